// Requests made with an Idempotency-Key (src/http/plugins/idempotency.ts), one row per key and
// account in `idempotency_keys`. A request claims its key with one INSERT ... ON CONFLICT DO NOTHING:
// the primary key lets exactly one request per key run, on one node or several sharing PostgreSQL.
// The holder then completes the row with its answer; a holder that dies leaves a lease that runs out,
// after which a repeat takes the key over (one conditional UPDATE on the lease token it read).
// An account holds at most `maxLiveKeys` keys within their window: the table every tenant shares
// grows by a bounded amount per account, whatever keys a client makes up.
import type { Kysely } from 'kysely';
import { deleteInBatches, type PurgeLimits } from './purge-batches.js';
import type { Database } from './schema.js';

export interface IdempotencyClaimRequest {
  /** Hex SHA-256 of the account id and the key. */
  id: string;
  accountId: string;
  fingerprint: string;
  /** A fresh random token naming this request as the holder. */
  token: string;
  now: number;
  /** Until when this request holds the key while it runs. */
  leaseUntil: number;
  /** End of the key's window. */
  expiresAt: number;
  /**
   * Keys the account may hold within their windows: a new key beyond them is refused ('full'), a
   * key it holds already is answered as ever. Checked before the insert, so requests claiming new
   * keys at the same moment may each pass it: the overshoot is at most the requests in flight.
   */
  maxLiveKeys: number;
}

export type IdempotencyClaim =
  /** This request holds the key: run it, then complete or release. */
  | { kind: 'claimed' }
  /** The key was used with another request (method, path or body). */
  | { kind: 'mismatch' }
  /** The request that holds the key is still running. */
  | { kind: 'running' }
  /** The request was answered: its status and stored (encrypted) answer. */
  | { kind: 'answered'; status: number; answer: string }
  /** A new key, and the account holds `maxLiveKeys` already: the oldest leaves its window in `retryAfterMs`. */
  | { kind: 'full'; retryAfterMs: number };

export interface IdempotencyStore {
  /** Claims the key for this request, or says what holds it. Atomic across nodes. */
  claim(request: IdempotencyClaimRequest): Promise<IdempotencyClaim>;
  /** Stores the answer of the request holding `token`; false when it no longer holds the key. */
  complete(id: string, token: string, status: number, answer: string): Promise<boolean>;
  /** Gives the key up (the request was not answered in a way worth repeating): the next request with it runs. */
  release(id: string, token: string): Promise<void>;
  /** Deletes keys whose window ended at `now`, in batches; returns how many. */
  purge(now: number, limits: PurgeLimits): Promise<number>;
}

export class KyselyIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: Kysely<Database>, private readonly dialect: 'sqlite' | 'postgres') {}

  async claim(request: IdempotencyClaimRequest): Promise<IdempotencyClaim> {
    const { id, accountId, fingerprint, token, now, leaseUntil, expiresAt } = request;
    const fresh = { fingerprint, lease_token: token, lease_until: leaseUntil, status: null, answer: null, created_at: now, expires_at: expiresAt };
    const full = await this.liveKeysReach(accountId, now, request.maxLiveKeys);
    // Bounded: each round either decides or lost a race to a request that changed the row meanwhile.
    for (let round = 0; round < 5; round++) {
      if (!full) {
        const inserted = await this.db.insertInto('idempotency_keys').values({ id, account_id: accountId, ...fresh })
          .onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { kind: 'claimed' };
      }
      const row = await this.db.selectFrom('idempotency_keys').select(['fingerprint', 'lease_token', 'lease_until', 'status', 'answer', 'expires_at'])
        .where('id', '=', id).executeTakeFirst();
      if (!row && full) return { kind: 'full', retryAfterMs: await this.untilOldestLeaves(accountId, now) };
      if (!row) continue; // purged in between: insert again
      const windowEnded = Number(row.expires_at) <= now;
      if (!windowEnded && row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (!windowEnded && row.status !== null && row.answer !== null) return { kind: 'answered', status: Number(row.status), answer: row.answer };
      if (!windowEnded && Number(row.lease_until) > now) return { kind: 'running' };
      // The window ended (not purged yet), or the holder's lease ran out (it died mid-request): take the
      // key over, unless another request did so first (the token it read is gone).
      const taken = await this.db.updateTable('idempotency_keys').set(fresh)
        .where('id', '=', id).where('lease_token', '=', row.lease_token).executeTakeFirst();
      if (Number(taken.numUpdatedRows) > 0) return { kind: 'claimed' };
    }
    return { kind: 'running' };
  }

  /** Whether the account holds `max` keys within their windows (counts no further than `max`, through the account's index). */
  private async liveKeysReach(accountId: string, now: number, max: number): Promise<boolean> {
    // The index's own columns only, so the count reads the index and none of the rows.
    const live = await this.db.selectFrom((db) => db.selectFrom('idempotency_keys').select('account_id')
      .where('account_id', '=', accountId).where('expires_at', '>', now).limit(max).as('live'))
      .select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    return Number(live.n) >= max;
  }

  private async untilOldestLeaves(accountId: string, now: number): Promise<number> {
    const oldest = await this.db.selectFrom('idempotency_keys').select('expires_at')
      .where('account_id', '=', accountId).where('expires_at', '>', now).orderBy('expires_at').limit(1).executeTakeFirst();
    return oldest ? Number(oldest.expires_at) - now : 1000;
  }

  async complete(id: string, token: string, status: number, answer: string): Promise<boolean> {
    const done = await this.db.updateTable('idempotency_keys').set({ status, answer })
      .where('id', '=', id).where('lease_token', '=', token).where('status', 'is', null).executeTakeFirst();
    return Number(done.numUpdatedRows) > 0;
  }

  async release(id: string, token: string): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where('id', '=', id).where('lease_token', '=', token).where('status', 'is', null).execute();
  }

  purge(now: number, limits: PurgeLimits): Promise<number> {
    return deleteInBatches(this.db, this.dialect, limits, 'idempotency_keys', (batch) =>
      this.db.selectFrom('idempotency_keys').select('id').where('expires_at', '<=', now).orderBy('expires_at').limit(batch));
  }
}
