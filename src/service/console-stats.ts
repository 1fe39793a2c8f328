// Use case of the console's dashboard: what the account sent, delivered, verified and had refused over
// a range of time, all counted by the database (src/store/console-store.ts).
import { FieldErrors, ok, type Result } from '../domain/errors.js';
import { outboxAgeMs } from '../observability/delivery-health.js';
import type { AccountStats } from '../store/console-store.js';
import type { Channel } from '../store/store.js';
import type { Principal, ServiceContext } from './context.js';

export type StatsBucket = 'hour' | 'day';

export const BUCKET_MS: Record<StatsBucket, number> = { hour: 3_600_000, day: 86_400_000 };
/** A chart has at most this many buckets (a month of hours, or nearly three years of days). */
export const MAX_BUCKETS = 1000;
const DEFAULT_RANGE_MS = 7 * BUCKET_MS.day;

export interface StatsQuery {
  from?: number;
  to?: number;
  bucket?: StatsBucket;
}

export interface Stats {
  from: number;
  to: number;
  bucket: StatsBucket;
  bucketMs: number;
  totals: { sends: number; deliveries: number; verifications: number };
  series: AccountStats['series'];
  conversion: {
    byChannel: Array<{ channel: Channel; sent: number; verified: number; rate: number }>;
    byCountry: Array<{ country: string | null; sent: number; verified: number; rate: number }>;
  };
  latency: AccountStats['latency'];
  blocked: AccountStats['blocked'];
  testNumbers: { sent: number; verified: number; rate: number };
  queue: { pending: number; oldestAgeMs: number };
}

const rate = (verified: number, sent: number) => (sent === 0 ? 0 : Math.round((verified / sent) * 10_000) / 10_000);

export async function getStats(ctx: ServiceContext, principal: Principal, query: StatsQuery): Promise<Result<Stats>> {
  const errors = new FieldErrors();
  // `to` is exclusive: by default just past now, so that what happened this very millisecond counts.
  const to = query.to ?? ctx.clock() + 1;
  const from = query.from ?? to - DEFAULT_RANGE_MS;
  if (from >= to) errors.add('from', 'must be earlier than to');
  // Up to two days read best by the hour; longer ranges by the day.
  const bucket = query.bucket ?? (to - from <= 2 * BUCKET_MS.day ? 'hour' : 'day');
  const bucketMs = BUCKET_MS[bucket];
  if (from < to && Math.ceil((to - from) / bucketMs) > MAX_BUCKETS) {
    errors.add('bucket', `the range holds more than ${MAX_BUCKETS} ${bucket}s: choose a shorter range or a wider bucket`);
  }
  if (!errors.empty) return errors.result();

  const stats = await ctx.store.console.stats(principal.accountId, { from, to, bucketMs });
  const totals = { sends: 0, deliveries: 0, verifications: 0 };
  for (const point of stats.series) {
    totals.sends += point.sends;
    totals.deliveries += point.deliveries;
    totals.verifications += point.verifications;
  }
  return ok({
    from, to, bucket, bucketMs, totals, series: stats.series,
    conversion: {
      byChannel: stats.byChannel.map((c) => ({ ...c, rate: rate(c.verified, c.sent) })),
      byCountry: stats.byCountry.map((c) => ({ ...c, rate: rate(c.verified, c.sent) })),
    },
    latency: stats.latency,
    blocked: stats.blocked,
    testNumbers: { ...stats.testNumbers, rate: rate(stats.testNumbers.verified, stats.testNumbers.sent) },
    queue: { pending: stats.queue.pending, oldestAgeMs: outboxAgeMs(stats.queue.oldestAcceptedAt ?? undefined, ctx.clock()) },
  });
}
