// What routes keep in the database, shared by every node (docs/routing.md): the conversion counters
// the cheapest strategy reads (per named transport, country and hour: one upsert when a routed PIN is
// first delivered, one when it is verified, a grouped read of one country's few rows when the figures
// are asked for, never a scan of PIN history), and the applications' own senders per country.
import type { Kysely } from 'kysely';
import type { Conversion } from '../domain/routes.js';
import type { SenderId, SenderKind } from '../domain/sender-ids.js';
import type { Database } from './schema.js';
import { UNCACHED, type ConfigReader } from './config-cache.js';

/** Counters are kept per hour: the window is read as whole hours. */
export const CONVERSION_BUCKET_MS = 3_600_000;

export function conversionBucketOf(at: number): number {
  return at - (at % CONVERSION_BUCKET_MS);
}

/** The transport of a route_deliveries row that marks a verification counted before its delivery. */
const VERIFIED_EARLY = '';

export interface ApplicationSender extends SenderId {
  country: string;
  updatedAt: number;
}

export interface RouteStore {
  /**
   * A PIN delivered through a routes table: the first delivery of the PIN counts one sent for its
   * named transport and country (a resend is the same PIN: not counted again) and remembers which
   * transport to credit when it is verified.
   */
  countRoutedDelivery(pinId: string, transport: string, country: string, at: number): Promise<void>;
  /**
   * A PIN verified: credits the transport that first delivered it (once: the remembered row goes). A
   * verification that overtakes the delivery's count (a user quicker than the worker's write) leaves a
   * mark that the delivery's count then credits.
   */
  countRoutedVerification(pinId: string, at: number): Promise<void>;
  /** Per named transport, the PINs sent to `country` and verified, in the hours that start after `since`. */
  conversionsTo(country: string, since: number): Promise<Map<string, Conversion>>;
  /** Forgets counters and unverified deliveries of hours that started before `before`. */
  purge(before: number): Promise<void>;

  listApplicationSenders(applicationId: string): Promise<ApplicationSender[]>;
  /** The application's sender for a country, cached as configuration (read on every routed delivery). */
  applicationSender(applicationId: string, country: string): Promise<SenderId | undefined>;
  putApplicationSender(accountId: string, applicationId: string, sender: ApplicationSender): Promise<void>;
  /** False when the application had no sender for the country. */
  deleteApplicationSender(applicationId: string, country: string): Promise<boolean>;
}

export class KyselyRouteStore implements RouteStore {
  constructor(private readonly db: Kysely<Database>, private readonly config: ConfigReader = UNCACHED) {}

  async countRoutedDelivery(pinId: string, transport: string, country: string, at: number): Promise<void> {
    const bucketStart = conversionBucketOf(at);
    // The insert is the gate: a PIN's second delivery (a resend, a duplicate of the at-least-once
    // outbox) finds its row and counts nothing.
    const inserted = await this.db.insertInto('route_deliveries').values({ pin_id: pinId, transport, country, bucket_start: bucketStart })
      .onConflict((oc) => oc.column('pin_id').doNothing()).returning('pin_id').executeTakeFirst();
    if (inserted !== undefined) return this.count(transport, country, bucketStart, { sent: 1, verified: 0 });
    // The row there may be the mark of a verification that came first: it is taken, and both count.
    const early = await this.db.deleteFrom('route_deliveries').where('pin_id', '=', pinId).where('transport', '=', VERIFIED_EARLY)
      .returning('pin_id').executeTakeFirst();
    if (early !== undefined) await this.count(transport, country, bucketStart, { sent: 1, verified: 1 });
  }

  async countRoutedVerification(pinId: string, at: number): Promise<void> {
    // Deleting the row is the gate: of two verifications of one PIN (allowMultiplePinVerifications), one counts.
    const credit = () => this.db.deleteFrom('route_deliveries').where('pin_id', '=', pinId).where('transport', '<>', VERIFIED_EARLY)
      .returning(['transport', 'country', 'bucket_start']).executeTakeFirst();
    let row = await credit();
    if (row === undefined) {
      const marked = await this.db.insertInto('route_deliveries').values({ pin_id: pinId, transport: VERIFIED_EARLY, country: '', bucket_start: conversionBucketOf(at) })
        .onConflict((oc) => oc.column('pin_id').doNothing()).returning('pin_id').executeTakeFirst();
      if (marked !== undefined) return;
      // The delivery's row arrived between the two statements: credit it now.
      row = await credit();
      if (row === undefined) return;
    }
    // Credited to the hour of the delivery, so sent and verified of one hour describe the same PINs.
    await this.count(row.transport, row.country, Number(row.bucket_start), { sent: 0, verified: 1 });
  }

  private async count(transport: string, country: string, bucketStart: number, add: Conversion): Promise<void> {
    await this.db.insertInto('route_conversions').values({ transport, country, bucket_start: bucketStart, ...add })
      .onConflict((oc) => oc.columns(['country', 'transport', 'bucket_start']).doUpdateSet((eb) => ({
        sent: eb('route_conversions.sent', '+', add.sent), verified: eb('route_conversions.verified', '+', add.verified),
      })))
      .execute();
  }

  async conversionsTo(country: string, since: number): Promise<Map<string, Conversion>> {
    const rows = await this.db.selectFrom('route_conversions')
      .select((eb) => ['transport', eb.fn.sum<number>('sent').as('sent'), eb.fn.sum<number>('verified').as('verified')])
      .where('country', '=', country).where('bucket_start', '>', since).groupBy('transport').execute();
    return new Map(rows.map((r) => [r.transport, { sent: Number(r.sent), verified: Number(r.verified) }]));
  }

  async purge(before: number): Promise<void> {
    await this.db.deleteFrom('route_conversions').where('bucket_start', '<', before).execute();
    await this.db.deleteFrom('route_deliveries').where('bucket_start', '<', before).execute();
  }

  async listApplicationSenders(applicationId: string): Promise<ApplicationSender[]> {
    const rows = await this.db.selectFrom('application_senders').selectAll().where('application_id', '=', applicationId).orderBy('country').execute();
    return rows.map((r) => ({ country: r.country, id: r.sender_id, kind: r.kind as SenderKind, updatedAt: Number(r.updated_at) }));
  }

  async applicationSender(applicationId: string, country: string): Promise<SenderId | undefined> {
    return this.config.get(`sender:${applicationId}:${country}`, async () => {
      const row = await this.db.selectFrom('application_senders').select(['sender_id', 'kind'])
        .where('application_id', '=', applicationId).where('country', '=', country).executeTakeFirst();
      return row && { id: row.sender_id, kind: row.kind as SenderKind };
    });
  }

  async putApplicationSender(accountId: string, applicationId: string, sender: ApplicationSender): Promise<void> {
    const values = { sender_id: sender.id, kind: sender.kind, updated_at: sender.updatedAt };
    await this.db.insertInto('application_senders').values({ application_id: applicationId, country: sender.country, account_id: accountId, ...values })
      .onConflict((oc) => oc.columns(['application_id', 'country']).doUpdateSet(values)).execute();
  }

  async deleteApplicationSender(applicationId: string, country: string): Promise<boolean> {
    const result = await this.db.deleteFrom('application_senders').where('application_id', '=', applicationId).where('country', '=', country).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

/** The same in memory, for the services' unit tests. */
export class MemoryRouteStore implements RouteStore {
  private readonly deliveries = new Map<string, { transport: string; country: string; bucketStart: number }>();
  private readonly counters = new Map<string, { transport: string; country: string; bucketStart: number; sent: number; verified: number }>();
  private readonly senders = new Map<string, ApplicationSender & { applicationId: string }>();

  async countRoutedDelivery(pinId: string, transport: string, country: string, at: number): Promise<void> {
    const bucketStart = conversionBucketOf(at);
    const existing = this.deliveries.get(pinId);
    if (existing === undefined) {
      this.deliveries.set(pinId, { transport, country, bucketStart });
      this.counter(transport, country, bucketStart).sent += 1;
    } else if (existing.transport === VERIFIED_EARLY) {
      this.deliveries.delete(pinId);
      const counter = this.counter(transport, country, bucketStart);
      counter.sent += 1;
      counter.verified += 1;
    }
  }

  async countRoutedVerification(pinId: string, at: number): Promise<void> {
    const row = this.deliveries.get(pinId);
    if (row === undefined) {
      this.deliveries.set(pinId, { transport: VERIFIED_EARLY, country: '', bucketStart: conversionBucketOf(at) });
      return;
    }
    if (row.transport === VERIFIED_EARLY) return;
    this.deliveries.delete(pinId);
    this.counter(row.transport, row.country, row.bucketStart).verified += 1;
  }

  private counter(transport: string, country: string, bucketStart: number) {
    const k = `${country}\u0000${transport}\u0000${bucketStart}`;
    const row = this.counters.get(k) ?? { transport, country, bucketStart, sent: 0, verified: 0 };
    this.counters.set(k, row);
    return row;
  }

  async conversionsTo(country: string, since: number): Promise<Map<string, Conversion>> {
    const result = new Map<string, Conversion>();
    for (const c of this.counters.values()) {
      if (c.country !== country || c.bucketStart <= since) continue;
      const sum = result.get(c.transport) ?? { sent: 0, verified: 0 };
      result.set(c.transport, { sent: sum.sent + c.sent, verified: sum.verified + c.verified });
    }
    return result;
  }

  async purge(before: number): Promise<void> {
    for (const [k, c] of this.counters) if (c.bucketStart < before) this.counters.delete(k);
    for (const [k, d] of this.deliveries) if (d.bucketStart < before) this.deliveries.delete(k);
  }

  async listApplicationSenders(applicationId: string): Promise<ApplicationSender[]> {
    return [...this.senders.values()].filter((s) => s.applicationId === applicationId).sort((a, b) => a.country.localeCompare(b.country))
      .map(({ country, id, kind, updatedAt }) => ({ country, id, kind, updatedAt }));
  }

  async applicationSender(applicationId: string, country: string): Promise<SenderId | undefined> {
    const s = this.senders.get(`${applicationId}\u0000${country}`);
    return s && { id: s.id, kind: s.kind };
  }

  async putApplicationSender(accountId: string, applicationId: string, sender: ApplicationSender): Promise<void> {
    void accountId;
    this.senders.set(`${applicationId}\u0000${sender.country}`, { ...sender, applicationId });
  }

  async deleteApplicationSender(applicationId: string, country: string): Promise<boolean> {
    return this.senders.delete(`${applicationId}\u0000${country}`);
  }
}
