// Anti-fraud guards of an application and their settings endpoint. The guards run on every send of an
// application that turned them on, after the body was checked and before the send limits are
// consumed: destination country and number-prefix lists, premium-rate and shared-cost numbers, the
// per-country conversion breaker, and two more limits consumed atomically with the send (per client
// address, IPv6 by /64, and per number range). Refusals are 403 (blocked) or 429 (a limit or a tripped
// breaker, with Retry-After), counted in twofa_security_refusals_total and written to the audit log.
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { ipRateKey } from '../domain/client-ip.js';
import { parsedPhone, phoneCountry } from '../domain/destinations.js';
import { ONE_DAY_MS, parseDuration, parseRateLimit } from '../domain/durations.js';
import { FieldErrors, fail, ok, type Failure, type Result } from '../domain/errors.js';
import {
  bruteForceBudget, mergeSecuritySettings, settingsFromJson, type BruteForceBudget, type SecuritySettings, type SecuritySettingsPatch,
} from '../domain/security-settings.js';
import { effectiveSecuritySettings } from '../domain/security-profile.js';
import { FACTOR_VERIFICATION_ATTEMPTS, totpBruteForceBudget, type TotpBruteForceBudget } from '../domain/factors.js';
import { TOTP_DEFAULTS } from '../domain/totp.js';
import type { FactorGuessing } from '../store/factor-store.js';
import type { ActiveBlock } from '../store/security-store.js';
import type { ApplicationRecord, Channel } from '../store/store.js';
import type { NamedLimit } from './limit-refusals.js';
import { applicationNotFound } from './applications.js';
import type { Principal, ServiceContext } from './context.js';
import { presentApplication, profileOf, readMessageTemplates } from './effective-records.js';
import { inUnitOfWork, type UnitOfWork } from './unit-of-work.js';

export interface SecurityView {
  applicationId: string;
  settings: SecuritySettings;
  /** Blocks the conversion breaker tripped that have not expired. */
  activeBlocks: ActiveBlock[];
  bruteForce: BruteForceBudget;
  /** Guessing against the application's TOTP factors: the bound, and what the last 24 hours saw. */
  totp: TotpBruteForceBudget & FactorGuessing & { codeLength: number; skew: number };
  updatedAt: number | null;
}

/** The settings as the application stored them, which an update merges into. */
async function storedSecuritySettings(ctx: ServiceContext, applicationId: string): Promise<SecuritySettings> {
  const row = await ctx.store.security.getSettings(applicationId);
  return settingsFromJson(row?.settings);
}

/** The settings the guards run with: the stored ones under the security profile's floors. */
export async function loadSecuritySettings(ctx: ServiceContext, applicationId: string): Promise<SecuritySettings> {
  return effectiveSecuritySettings(profileOf(ctx), await storedSecuritySettings(ctx, applicationId));
}

async function view(ctx: ServiceContext, app: ApplicationRecord): Promise<SecurityView> {
  const row = await ctx.store.security.getSettings(app.id);
  const templates = await readMessageTemplates(ctx, app.accountId, app.id);
  return {
    applicationId: app.id,
    settings: effectiveSecuritySettings(profileOf(ctx), settingsFromJson(row?.settings)),
    activeBlocks: await ctx.store.security.listBlocks(app.id, ctx.clock()),
    bruteForce: bruteForceBudget(presentApplication(ctx, app).configuration, templates),
    totp: await totpGuessing(ctx, app),
    updatedAt: row?.updatedAt ?? null,
  };
}

/** The TOTP budget at the Service's defaults (Totp.CodeLength, Totp.Skew) and the last day's wrong codes and lock-outs. */
async function totpGuessing(ctx: ServiceContext, app: ApplicationRecord): Promise<SecurityView['totp']> {
  const totp = (await ctx.store.twilio.getService(app.accountId, app.id).catch(() => undefined))?.settings['totp'] as { code_length?: number | null; skew?: number | null } | undefined;
  const codeLength = totp?.code_length ?? TOTP_DEFAULTS.code_length;
  const skew = totp?.skew ?? TOTP_DEFAULTS.skew;
  const seen = await ctx.store.factors.guessingSince(app.accountId, app.id, ctx.clock() - ONE_DAY_MS, FACTOR_VERIFICATION_ATTEMPTS);
  return { codeLength, skew, ...totpBruteForceBudget(codeLength, skew), ...seen };
}

export async function getSecurity(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<SecurityView>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  return ok(await view(ctx, app));
}

/** PUT merges like the application PUT: fields left out keep their values. */
export async function updateSecurity(ctx: ServiceContext, principal: Principal, applicationId: string, patch: SecuritySettingsPatch): Promise<Result<SecurityView>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  const errors = new FieldErrors();
  const current = await storedSecuritySettings(ctx, app.id);
  const merged = mergeSecuritySettings(current, patch, errors);
  if (!errors.empty) return errors.result();
  return inUnitOfWork(ctx, principal, async (unit) => {
    await ctx.store.security.putSettings(principal.accountId, app.id, JSON.stringify(merged), ctx.clock());
    unit.audit({ event: 'config.security.update', applicationId: app.id, reason: `enabled=${merged.enabled}` });
    return ok(await view(ctx, app));
  });
}

const PREMIUM_TYPES = new Set(['PREMIUM_RATE', 'SHARED_COST']);

/** libphonenumber's type of an international number (full metadata), e.g. MOBILE or PREMIUM_RATE. */
export function phoneNumberType(digits: string): string | undefined {
  return (/^[0-9]+$/.test(digits) ? parsedPhone(digits) : parsePhoneNumberFromString(`+${digits}`))?.getType();
}

export interface GuardPass {
  ok: true;
  /** Extra limits to consume with the send, in its transaction. */
  limits: NamedLimit[];
  /** Set when the conversion breaker watches this send: count it once it is accepted. */
  breakerCountry?: string;
  settings?: SecuritySettings;
}

export interface GuardRefusal {
  ok: false;
  failure: Failure;
  guard: string;
}

/** A destination guard's refusal; counted in the metrics by checkSendGuards once the Safe List has not let it through. */
function blocked(guard: string, text: string): GuardRefusal {
  return { ok: false, guard, failure: fail('DESTINATION_BLOCKED', `Destination refused by the application's security settings: ${text}`).failure };
}

function breakerBucketMs(windowMs: number): number {
  return Math.max(1000, Math.floor(windowMs / 10));
}

/** The first destination guard (countries, prefixes, premium numbers, the conversion breaker) that refuses `to`, if any. */
async function destinationRefusal(unit: UnitOfWork, app: ApplicationRecord, settings: SecuritySettings, to: string, country: string | undefined, now: number): Promise<GuardRefusal | undefined> {
  if (settings.allowedCountries.length > 0 && (country === undefined || !settings.allowedCountries.includes(country))) {
    return blocked('country', `country ${country ?? 'unknown'} is not among the allowed countries`);
  }
  if (country !== undefined && settings.blockedCountries.includes(country)) return blocked('country', `country ${country} is blocked`);
  if (settings.allowedPrefixes.length > 0 && !settings.allowedPrefixes.some((p) => to.startsWith(p))) {
    return blocked('prefix', 'the number is not in an allowed prefix');
  }
  const blockedPrefix = settings.blockedPrefixes.find((p) => to.startsWith(p));
  if (blockedPrefix !== undefined) return blocked('prefix', `numbers starting with ${blockedPrefix} are blocked`);
  if (settings.refusePremiumNumbers) {
    const type = phoneNumberType(to);
    if (type !== undefined && PREMIUM_TYPES.has(type)) return blocked('premium_number', `${type === 'PREMIUM_RATE' ? 'premium-rate' : 'shared-cost'} numbers are refused`);
  }
  const breaker = settings.conversionBreaker;
  if (breaker.enabled && country !== undefined) return checkBreaker(unit, app, settings, country, now);
  return undefined;
}

/** The checks before a send; no-op (one settings read) for an application that has not turned them on. */
export async function checkSendGuards(unit: UnitOfWork, app: ApplicationRecord, channel: Channel, to: string, now: number): Promise<GuardPass | GuardRefusal> {
  const { ctx, principal } = unit;
  const settings = await loadSecuritySettings(ctx, app.id);
  if (!settings.enabled) return { ok: true, limits: [] };
  const limits: NamedLimit[] = [];
  let breakerCountry: string | undefined;

  if (channel !== 'email') {
    const country = phoneCountry(to);
    const refusal = await destinationRefusal(unit, app, settings, to, country, now);
    // A number on the account's Safe List (POST /v2/SafeList/Numbers) passes the destination guards,
    // looked up only when one refuses; the per-address limits below still count it.
    if (refusal && !(await ctx.store.twilio.isSafeListed(principal.accountId, to))) {
      // (The breaker counts its own refusals, with the block it records.)
      if (refusal.guard !== 'conversion_breaker') ctx.metrics.securityRefusal(refusal.guard);
      return refusal;
    }
    if (!refusal && settings.conversionBreaker.enabled && country !== undefined) breakerCountry = country;
    if (settings.perPrefixSendLimit !== null && to.length > 4) {
      const limit = parseRateLimit(settings.perPrefixSendLimit);
      if (limit) limits.push({ key: `send:prefix:${app.id}:${to.slice(0, -4)}`, limit: limit.count, windowMs: limit.windowMs, reason: 'GUARD_PREFIX_LIMIT' });
    }
  }
  if (settings.perIpSendLimit !== null) {
    // An address that does not parse is still counted, under its own spelling, never let through unlimited.
    const ipKey = ipRateKey(principal.ip) ?? (principal.ip !== undefined ? `raw:${principal.ip}` : undefined);
    const limit = parseRateLimit(settings.perIpSendLimit);
    if (ipKey !== undefined && limit) limits.push({ key: `send:ip:${app.id}:${ipKey}`, limit: limit.count, windowMs: limit.windowMs, reason: 'GUARD_IP_LIMIT' });
  }
  return { ok: true, limits, settings, ...(breakerCountry !== undefined ? { breakerCountry } : {}) };
}

async function checkBreaker(unit: UnitOfWork, app: ApplicationRecord, settings: SecuritySettings, country: string, now: number): Promise<GuardRefusal | undefined> {
  const { ctx } = unit;
  const scope = `country:${country}`;
  const tooMany = (until: number, text: string): GuardRefusal => {
    ctx.metrics.securityRefusal('conversion_breaker');
    return { ok: false, guard: 'conversion_breaker', failure: fail('GUARD_CONVERSION_BREAKER', text, { retryAfterMs: Math.max(1, until - now) }).failure };
  };
  const active = await ctx.store.security.activeBlock(app.id, scope, now);
  if (active) return tooMany(active.blockedUntil, `Sends to country ${country} are paused by the conversion breaker (${active.reason}); retry in ${Math.ceil((active.blockedUntil - now) / 1000)} s`);
  const b = settings.conversionBreaker;
  const windowMs = parseDuration(b.window) ?? 3_600_000;
  const { sends, verifies } = await ctx.store.security.conversionSince(app.id, country, now - windowMs);
  if (sends < b.minSends || verifies / sends >= b.minConversionRate) return undefined;
  const until = now + (parseDuration(b.blockFor) ?? 3_600_000);
  const reason = `${verifies} of ${sends} sends verified in ${b.window}, below ${b.minConversionRate}`;
  await ctx.store.security.addBlock(app.id, scope, until, reason, now);
  unit.audit({ event: 'security.breaker.tripped', applicationId: app.id, reason: `${scope}: ${reason}` });
  return tooMany(until, `Sends to country ${country} are paused by the conversion breaker (${reason}); retry in ${Math.ceil((until - now) / 1000)} s`);
}

/** Counts an accepted send for the conversion breaker. Never throws. */
export async function countBreakerSend(ctx: ServiceContext, app: ApplicationRecord, country: string, settings: SecuritySettings, now: number): Promise<void> {
  const windowMs = parseDuration(settings.conversionBreaker.window) ?? 3_600_000;
  const bucket = breakerBucketMs(windowMs);
  await ctx.store.security.countConversion(app.id, country, 'send', Math.floor(now / bucket) * bucket).catch(() => undefined);
}

/** Counts a successful verification for the conversion breaker, when the application watches conversion. Never throws. */
export async function countBreakerVerify(ctx: ServiceContext, applicationId: string, destination: string, now: number): Promise<void> {
  try {
    const settings = await loadSecuritySettings(ctx, applicationId);
    if (!settings.enabled || !settings.conversionBreaker.enabled) return;
    const country = phoneCountry(destination);
    if (country === undefined) return;
    const bucket = breakerBucketMs(parseDuration(settings.conversionBreaker.window) ?? 3_600_000);
    await ctx.store.security.countConversion(applicationId, country, 'verify', Math.floor(now / bucket) * bucket);
  } catch {
    // The breaker errs towards blocking a country too early, never towards a failed verification.
  }
}
