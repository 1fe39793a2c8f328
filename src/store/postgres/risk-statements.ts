// The risk score's writes on PostgreSQL as CTEs over four parameters (risk-store.ts's
// riskWriteParameters: the application, the counters, their buckets, the decision as JSON), so that a
// send's hits and decision ride in its PIN's one statement (hot-statements.ts's CREATE_PIN) and a
// block's, a resend's or a verification's take one statement of their own. Upserted in the order the
// parameters give (by counter name), so two statements sharing counters never deadlock on their rows.
import { named } from './named-statements.js';

/** The CTEs `risk_hit` and `risk_decision` over parameters $n..$n+3. */
export function riskWriteCtes(n: number): string {
  return `risk_hit as (
    insert into risk_counters as r (application_id, counter, bucket_start, hits)
    select $${n}::text, h.counter, h.bucket_start, 1
    from unnest($${n + 1}::text[], $${n + 2}::bigint[]) with ordinality as h(counter, bucket_start, k) order by h.k
    on conflict (application_id, counter, bucket_start) do update set hits = r.hits + 1
    returning 1
  ),
  risk_decision as (
    insert into risk_decisions (id, account_id, application_id, pin_id, kind, created_at, destination, country, score, threshold, decision, mode, safe_listed, signals, price_micros, price_currency)
    select d.id, d.account_id, d.application_id, d.pin_id, d.kind, d.created_at, d.destination, d.country, d.score, d.threshold, d.decision, d.mode, d.safe_listed, d.signals, d.price_micros, d.price_currency
    from json_populate_record(null::risk_decisions, $${n + 3}::json) as d where $${n + 3}::json is not null
    returning 1
  )`;
}

/** What the CTEs wrote: to select, so that the statement reads (and so surely runs) both. */
export const RISK_WRITE_OUTPUT = '(select count(*) from risk_hit) as risk_hits, (select count(*) from risk_decision) as risk_decisions';

export const RISK_WRITE = named(`with ${riskWriteCtes(1)} select ${RISK_WRITE_OUTPUT}`);
