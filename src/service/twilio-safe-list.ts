// Use cases of the account's Safe List (Twilio's /v2/SafeList/Numbers and /api/v1/safe-list): numbers,
// and (through /api/v1 only) number prefixes, that the destination guards (allowed and blocked
// countries and prefixes, premium numbers, the conversion breaker) let through and the risk score
// never blocks nor counts in its baselines, on every dialect's sends. The per-address limits still count them.
import { randomBytes } from 'node:crypto';
import { normalizePhoneNumber } from '../domain/destinations.js';
import { fail, ok, type Failure, type Result } from '../domain/errors.js';
import { PREFIX_MARK, parseSafeListPrefix, prefixKey } from '../domain/safe-list.js';
import type { Principal, ServiceContext } from './context.js';

export interface SafeListEntry {
  sid: string;
  /** E.164 with `+`. */
  phoneNumber: string;
  createdAt: number;
}

function destinationOf(phoneNumber: string): Result<string> {
  const parsed = phoneNumber.startsWith('+') ? normalizePhoneNumber(phoneNumber) : undefined;
  if (!parsed?.ok) return fail('INVALID_REQUEST', 'Invalid parameter: PhoneNumber', { validationErrors: { PhoneNumber: ['must be an E.164 number with a leading +'] } });
  return ok(parsed.value);
}

/** A prefix on the Safe List (/api/v1 only: Twilio's list holds numbers). */
export interface SafeListPrefixEntry {
  sid: string;
  /** E.164's + and the prefix's digits, e.g. +4179. */
  prefix: string;
  createdAt: number;
}

export type SafeListItem = SafeListEntry | SafeListPrefixEntry;

const newSid = () => `GN${randomBytes(16).toString('hex')}`;

function itemOf(key: string, stored: { sid: string; createdAt: number }): SafeListItem {
  return key.endsWith(PREFIX_MARK) ? { sid: stored.sid, prefix: `+${key.slice(0, -PREFIX_MARK.length)}`, createdAt: stored.createdAt } : { ...stored, phoneNumber: `+${key}` };
}

function invalidEntry(field: string): Failure {
  return fail('INVALID_REQUEST', `Invalid ${field}`, { validationErrors: { [field]: ['must be an E.164 number with its leading + (+41791234567), or a prefix ending with * (+4179*)'] } }).failure;
}

/** The stored key of an entry named in a path: a number (+41791234567) or a prefix (+4179*). */
function keyOfEntry(entry: string): Result<string> {
  if (entry.endsWith(PREFIX_MARK)) {
    const digits = parseSafeListPrefix(entry);
    return digits === undefined ? { ok: false, failure: invalidEntry('entry') } : ok(prefixKey(digits));
  }
  const number = destinationOf(entry);
  return number.ok ? number : { ok: false, failure: invalidEntry('entry') };
}

/** Puts a number or a prefix (exactly one of them) on the Safe List; an entry listed already is answered as it was stored. */
export async function addSafeListEntry(ctx: ServiceContext, principal: Principal, target: { phoneNumber?: string; prefix?: string }): Promise<Result<SafeListItem>> {
  const { phoneNumber, prefix } = target;
  if ((phoneNumber === undefined) === (prefix === undefined)) {
    return fail('INVALID_REQUEST', 'Give either phoneNumber or prefix', { validationErrors: { phoneNumber: ['give either phoneNumber (a number) or prefix (every number it starts), not both'] } });
  }
  let key: string;
  if (prefix !== undefined) {
    const digits = parseSafeListPrefix(prefix);
    if (digits === undefined) return fail('INVALID_REQUEST', 'Invalid prefix', { validationErrors: { prefix: ['must be E.164\'s + and 1 to 14 digits, e.g. +4179'] } });
    key = prefixKey(digits);
  } else {
    const number = destinationOf(phoneNumber!);
    if (!number.ok) return fail('INVALID_REQUEST', 'Invalid phoneNumber', { validationErrors: { phoneNumber: ['must be an E.164 number with a leading +'] } });
    key = number.value;
  }
  return ok(itemOf(key, await ctx.store.twilio.addSafeListed(principal.accountId, key, newSid(), ctx.clock())));
}

/** The entry of a listed number or prefix (named as keyOfEntry takes it). */
export async function getSafeListEntry(ctx: ServiceContext, principal: Principal, entry: string): Promise<Result<SafeListItem>> {
  const key = keyOfEntry(entry);
  if (!key.ok) return key;
  const stored = await ctx.store.twilio.getSafeListed(principal.accountId, key.value);
  return stored ? ok(itemOf(key.value, stored)) : fail('RESOURCE_NOT_FOUND', `${entry} is not on the Safe List`);
}

export async function removeSafeListEntry(ctx: ServiceContext, principal: Principal, entry: string): Promise<Result<null>> {
  const key = keyOfEntry(entry);
  if (!key.ok) return key;
  return (await ctx.store.twilio.removeSafeListed(principal.accountId, key.value)) ? ok(null) : fail('RESOURCE_NOT_FOUND', `${entry} is not on the Safe List`);
}

/** Every number and prefix of the account's Safe List, in the order of their digits. */
export async function listSafeList(ctx: ServiceContext, principal: Principal): Promise<Result<{ entries: SafeListItem[] }>> {
  return ok({ entries: (await ctx.store.twilio.listSafeListed(principal.accountId)).map((e) => itemOf(e.key, e)) });
}

export async function addSafeListNumber(ctx: ServiceContext, principal: Principal, phoneNumber: string): Promise<Result<SafeListEntry>> {
  const destination = destinationOf(phoneNumber);
  if (!destination.ok) return destination;
  const entry = await ctx.store.twilio.addSafeListed(principal.accountId, destination.value, newSid(), ctx.clock());
  return ok({ ...entry, phoneNumber: `+${destination.value}` });
}

export async function getSafeListNumber(ctx: ServiceContext, principal: Principal, phoneNumber: string): Promise<Result<SafeListEntry>> {
  const destination = destinationOf(phoneNumber);
  if (!destination.ok) return destination;
  const entry = await ctx.store.twilio.getSafeListed(principal.accountId, destination.value);
  return entry ? ok({ ...entry, phoneNumber: `+${destination.value}` }) : fail('RESOURCE_NOT_FOUND', `The requested resource /SafeList/Numbers/${phoneNumber} was not found`);
}

export async function removeSafeListNumber(ctx: ServiceContext, principal: Principal, phoneNumber: string): Promise<Result<null>> {
  const destination = destinationOf(phoneNumber);
  if (!destination.ok) return destination;
  return (await ctx.store.twilio.removeSafeListed(principal.accountId, destination.value)) ? ok(null) : fail('RESOURCE_NOT_FOUND', `The requested resource /SafeList/Numbers/${phoneNumber} was not found`);
}
