// Use cases of Twilio Verify's Verification Attempts (each send of a verification) and their
// conversion summary, over the account's sends (store/twilio-store.ts): an attempt converted when
// its verification was approved (the PIN verified, by a check or by update).
import { normalizeEmailAddress, normalizePhoneNumber } from '../domain/destinations.js';
import { fail, FieldErrors, ok, type Result } from '../domain/errors.js';
import { applicationIdOf, pinIdOf } from '../domain/twilio-sids.js';
import type { AttemptFilter, TwilioAttemptRow } from '../store/twilio-store.js';
import type { Principal, ServiceContext } from './context.js';

export interface AttemptQuery {
  dateCreatedAfter?: string;
  dateCreatedBefore?: string;
  to?: string;
  country?: string;
  channel?: string;
  verifyServiceSid?: string;
  verificationSid?: string;
  status?: string;
  destinationPrefix?: string;
}

export interface AttemptsSummary {
  totalAttempts: number;
  totalConverted: number;
  totalUnconverted: number;
  /** 100 x converted / attempts, as Twilio writes it ("81.818181818"); "0" with no attempt. */
  conversionRatePercentage: string;
}

/** A SID filter that names nothing of this account matches nothing (never everything). */
const NOTHING = '-';

function filterOf(query: AttemptQuery): Result<AttemptFilter> {
  const errors = new FieldErrors();
  const filter: AttemptFilter = {};
  const date = (field: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) errors.add(field, 'must be an ISO 8601 date-time');
    return ms;
  };
  const since = date('DateCreatedAfter', query.dateCreatedAfter);
  const until = date('DateCreatedBefore', query.dateCreatedBefore);
  if (since !== undefined) filter.since = since;
  if (until !== undefined) filter.until = until;
  if (query.to !== undefined) {
    const to = query.to.includes('@') ? normalizeEmailAddress(query.to) : normalizePhoneNumber(query.to);
    if (to.ok) filter.destination = to.value;
    else errors.add('ChannelData.To', to.error);
  }
  if (query.country !== undefined) filter.country = query.country;
  if (query.channel !== undefined) filter.channel = query.channel;
  if (query.verifyServiceSid !== undefined) filter.applicationId = applicationIdOf(query.verifyServiceSid) ?? NOTHING;
  if (query.verificationSid !== undefined) filter.pinId = pinIdOf(query.verificationSid) ?? NOTHING;
  if (query.status !== undefined) filter.converted = query.status === 'converted';
  if (query.destinationPrefix !== undefined) filter.destinationPrefix = query.destinationPrefix;
  return errors.empty ? ok(filter) : errors.result();
}

/** One page of the account's attempts, newest first; `hasNext` when more follow. */
export async function listAttempts(ctx: ServiceContext, principal: Principal, query: AttemptQuery, page: { index: number; size: number }): Promise<Result<{ attempts: TwilioAttemptRow[]; hasNext: boolean }>> {
  const filter = filterOf(query);
  if (!filter.ok) return filter;
  const rows = await ctx.store.twilio.listAttempts(principal.accountId, filter.value, page.index * page.size, page.size + 1);
  return ok({ attempts: rows.slice(0, page.size), hasNext: rows.length > page.size });
}

export async function getAttempt(ctx: ServiceContext, principal: Principal, sid: string): Promise<Result<TwilioAttemptRow>> {
  const attempt = await ctx.store.twilio.getAttempt(principal.accountId, sid);
  return attempt ? ok(attempt) : fail('RESOURCE_NOT_FOUND', `The requested resource /Attempts/${sid} was not found`);
}

export async function summarizeAttempts(ctx: ServiceContext, principal: Principal, query: AttemptQuery): Promise<Result<AttemptsSummary>> {
  const filter = filterOf(query);
  if (!filter.ok) return filter;
  const { total, converted } = await ctx.store.twilio.summarizeAttempts(principal.accountId, filter.value);
  return ok({
    totalAttempts: total, totalConverted: converted, totalUnconverted: total - converted,
    conversionRatePercentage: total === 0 ? '0' : String(Number(((100 * converted) / total).toFixed(9))),
  });
}
