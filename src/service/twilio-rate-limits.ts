// Use cases of Twilio Verify's Service Rate Limits and their Buckets. A start names values for the
// service's limits (`RateLimits={"end_user_ip":"203.0.113.7"}`); each Bucket of a named limit allows
// at most `max` starts per value in `interval` seconds, counted by the engine's sliding windows
// (rate_limit_buckets, the same as Infobip's limits). A limit without Buckets limits nothing.
import { createHash, randomBytes } from 'node:crypto';
import { fail, FieldErrors, ok, type Result } from '../domain/errors.js';
import type { NamedLimit } from './limit-refusals.js';
import type { TwilioBucketRow, TwilioRateLimitRow } from '../store/twilio-store.js';
import type { Principal, ServiceContext } from './context.js';
import { getService, type TwilioService } from './twilio-services.js';

export const RATE_LIMITS_PER_SERVICE_MAX = 20;
export const BUCKETS_PER_RATE_LIMIT_MAX = 10;
export const INTERVAL_MAX_SECONDS = 86_400 * 366;
const UNIQUE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** A value is an IP address, a phone number, a user or session id: 256 characters hold any of them. */
export const RATE_LIMIT_VALUE_MAX = 256;

const newSid = (prefix: 'RK' | 'BL') => `${prefix}${randomBytes(16).toString('hex')}`;

export interface RateLimitInService {
  service: TwilioService;
  rateLimit: TwilioRateLimitRow;
}

export interface BucketInService extends RateLimitInService {
  bucket: TwilioBucketRow;
}

function notFound(path: string) {
  return fail('RESOURCE_NOT_FOUND', `The requested resource ${path} was not found`);
}

export async function createRateLimit(ctx: ServiceContext, principal: Principal, serviceSid: string, input: { uniqueName: string; description?: string }): Promise<Result<RateLimitInService>> {
  const found = await getService(ctx, principal, serviceSid);
  if (!found.ok) return found;
  const service = found.value;
  if (!UNIQUE_NAME.test(input.uniqueName)) {
    return fail('RATE_LIMIT_NAME_INVALID', 'UniqueName must be 1 to 64 letters, digits, `_`, `.` or `-` (and never personal data)');
  }
  const existing = await ctx.store.twilio.listRateLimits(principal.accountId, service.application.id);
  if (existing.length >= RATE_LIMITS_PER_SERVICE_MAX) return fail('RATE_LIMITS_FULL', `A service has at most ${RATE_LIMITS_PER_SERVICE_MAX} rate limits`);
  const now = ctx.clock();
  const rateLimit: TwilioRateLimitRow = {
    sid: newSid('RK'), accountId: principal.accountId, applicationId: service.application.id, uniqueName: input.uniqueName,
    description: input.description ?? null, createdAt: now, updatedAt: now,
  };
  if (!(await ctx.store.twilio.insertRateLimit(rateLimit))) return fail('RATE_LIMIT_EXISTS', `The service has a rate limit named ${input.uniqueName} already`);
  return ok({ service, rateLimit });
}

export async function getRateLimit(ctx: ServiceContext, principal: Principal, serviceSid: string, sid: string): Promise<Result<RateLimitInService>> {
  const found = await getService(ctx, principal, serviceSid);
  if (!found.ok) return found;
  const rateLimit = await ctx.store.twilio.getRateLimit(principal.accountId, found.value.application.id, sid);
  return rateLimit ? ok({ service: found.value, rateLimit }) : notFound(`/Services/${serviceSid}/RateLimits/${sid}`);
}

export async function listRateLimits(ctx: ServiceContext, principal: Principal, serviceSid: string): Promise<Result<RateLimitInService[]>> {
  const found = await getService(ctx, principal, serviceSid);
  if (!found.ok) return found;
  const rows = await ctx.store.twilio.listRateLimits(principal.accountId, found.value.application.id);
  return ok(rows.map((rateLimit) => ({ service: found.value, rateLimit })));
}

export async function updateRateLimit(ctx: ServiceContext, principal: Principal, serviceSid: string, sid: string, input: { description?: string }): Promise<Result<RateLimitInService>> {
  const found = await getRateLimit(ctx, principal, serviceSid, sid);
  if (!found.ok || input.description === undefined) return found;
  const rateLimit = { ...found.value.rateLimit, description: input.description, updatedAt: ctx.clock() };
  await ctx.store.twilio.updateRateLimit(rateLimit);
  return ok({ ...found.value, rateLimit });
}

export async function deleteRateLimit(ctx: ServiceContext, principal: Principal, serviceSid: string, sid: string): Promise<Result<null>> {
  const found = await getService(ctx, principal, serviceSid);
  if (!found.ok) return found;
  return (await ctx.store.twilio.deleteRateLimit(principal.accountId, found.value.application.id, sid)) ? ok(null) : notFound(`/Services/${serviceSid}/RateLimits/${sid}`);
}

function checkBucket(input: { max?: number; interval?: number }, errors: FieldErrors): void {
  if (input.max !== undefined && (!Number.isInteger(input.max) || input.max < 1)) errors.add('Max', 'must be a whole number of at least 1');
  if (input.interval !== undefined && (!Number.isInteger(input.interval) || input.interval < 1 || input.interval > INTERVAL_MAX_SECONDS)) {
    errors.add('Interval', `must be a whole number of seconds between 1 and ${INTERVAL_MAX_SECONDS}`);
  }
}

function intervalTaken(buckets: readonly TwilioBucketRow[], interval: number, except?: string) {
  return buckets.some((b) => b.interval === interval && b.sid !== except)
    ? fail('BUCKET_INTERVAL_EXISTS', `The rate limit has a bucket with an interval of ${interval} s already`) : undefined;
}

export async function createBucket(ctx: ServiceContext, principal: Principal, serviceSid: string, rateLimitSid: string, input: { max: number; interval: number }): Promise<Result<BucketInService>> {
  const found = await getRateLimit(ctx, principal, serviceSid, rateLimitSid);
  if (!found.ok) return found;
  const errors = new FieldErrors();
  checkBucket(input, errors);
  if (!errors.empty) return errors.result();
  const buckets = await ctx.store.twilio.listBuckets(principal.accountId, [rateLimitSid]);
  if (buckets.length >= BUCKETS_PER_RATE_LIMIT_MAX) return fail('BUCKETS_FULL', `A rate limit has at most ${BUCKETS_PER_RATE_LIMIT_MAX} buckets`);
  const taken = intervalTaken(buckets, input.interval);
  if (taken) return taken;
  const now = ctx.clock();
  const bucket: TwilioBucketRow = {
    sid: newSid('BL'), rateLimitSid, accountId: principal.accountId, applicationId: found.value.service.application.id,
    max: input.max, interval: input.interval, createdAt: now, updatedAt: now,
  };
  await ctx.store.twilio.insertBucket(bucket);
  return ok({ ...found.value, bucket });
}

export async function getBucket(ctx: ServiceContext, principal: Principal, serviceSid: string, rateLimitSid: string, sid: string): Promise<Result<BucketInService>> {
  const found = await getRateLimit(ctx, principal, serviceSid, rateLimitSid);
  if (!found.ok) return found;
  const bucket = await ctx.store.twilio.getBucket(principal.accountId, rateLimitSid, sid);
  return bucket ? ok({ ...found.value, bucket }) : notFound(`/Services/${serviceSid}/RateLimits/${rateLimitSid}/Buckets/${sid}`);
}

export async function listBuckets(ctx: ServiceContext, principal: Principal, serviceSid: string, rateLimitSid: string): Promise<Result<BucketInService[]>> {
  const found = await getRateLimit(ctx, principal, serviceSid, rateLimitSid);
  if (!found.ok) return found;
  const buckets = await ctx.store.twilio.listBuckets(principal.accountId, [rateLimitSid]);
  return ok(buckets.map((bucket) => ({ ...found.value, bucket })));
}

export async function updateBucket(ctx: ServiceContext, principal: Principal, serviceSid: string, rateLimitSid: string, sid: string, input: { max?: number; interval?: number }): Promise<Result<BucketInService>> {
  const found = await getBucket(ctx, principal, serviceSid, rateLimitSid, sid);
  if (!found.ok) return found;
  const errors = new FieldErrors();
  checkBucket(input, errors);
  if (!errors.empty) return errors.result();
  if (input.interval !== undefined) {
    const taken = intervalTaken(await ctx.store.twilio.listBuckets(principal.accountId, [rateLimitSid]), input.interval, sid);
    if (taken) return taken;
  }
  const bucket = { ...found.value.bucket, max: input.max ?? found.value.bucket.max, interval: input.interval ?? found.value.bucket.interval, updatedAt: ctx.clock() };
  await ctx.store.twilio.updateBucket(bucket);
  return ok({ ...found.value, bucket });
}

export async function deleteBucket(ctx: ServiceContext, principal: Principal, serviceSid: string, rateLimitSid: string, sid: string): Promise<Result<null>> {
  const found = await getRateLimit(ctx, principal, serviceSid, rateLimitSid);
  if (!found.ok) return found;
  return (await ctx.store.twilio.deleteBucket(principal.accountId, rateLimitSid, sid)) ? ok(null) : notFound(`/Services/${serviceSid}/RateLimits/${rateLimitSid}/Buckets/${sid}`);
}

/**
 * The limit key of a value: a digest, so that every bucket row has the same small size whatever
 * the client sends, and the value itself (an IP, a phone number) is not kept in the limit tables.
 */
const valueDigest = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');

/**
 * The limits a start consumes for the values its `RateLimits` parameter gives: one per Bucket of each
 * named limit of the service, keyed by the bucket and the value's digest. Names the service has no
 * limit of count nothing. A parameter that is not a JSON object of string or number values of at most
 * RATE_LIMIT_VALUE_MAX characters is a 400. The caller consumes them with the send's own limits, in
 * its write: a start refused for any reason counts in no bucket and writes no bucket row.
 */
export async function rateLimitChecks(ctx: ServiceContext, service: TwilioService, rateLimits: string | undefined): Promise<Result<NamedLimit[]>> {
  if (rateLimits === undefined) return ok([]);
  let values: unknown;
  try { values = JSON.parse(rateLimits); } catch { values = undefined; }
  const invalid = (why: string) => fail('INVALID_REQUEST', 'Invalid parameter: RateLimits', { validationErrors: { RateLimits: [why] } });
  if (values === null || typeof values !== 'object' || Array.isArray(values)) return invalid('must be a JSON object of names and string values');
  const entries = Object.entries(values as Record<string, unknown>);
  if (entries.some(([, v]) => typeof v !== 'string' && typeof v !== 'number')) return invalid('must be a JSON object of names and string values');
  if (entries.some(([, v]) => String(v).length > RATE_LIMIT_VALUE_MAX)) return invalid(`values must be at most ${RATE_LIMIT_VALUE_MAX} characters`);
  const limits = (await ctx.store.twilio.listRateLimits(service.application.accountId, service.application.id))
    .filter((l) => Object.hasOwn(values as object, l.uniqueName));
  const buckets = await ctx.store.twilio.listBuckets(service.application.accountId, limits.map((l) => l.sid));
  const digestOf = new Map(limits.map((l) => [l.sid, valueDigest(String((values as Record<string, unknown>)[l.uniqueName]))]));
  return ok(buckets.map((b) => ({ key: `twilio:bucket:${b.sid}:${digestOf.get(b.rateLimitSid) ?? ''}`, limit: b.max, windowMs: b.interval * 1000, reason: 'SERVICE_RATE_LIMIT' as const })));
}
