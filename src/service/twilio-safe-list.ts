// Use cases of the account's Safe List (Twilio's /v2/SafeList/Numbers and /api/v1/safe-list): numbers
// that the destination guards (allowed and blocked countries and prefixes, premium numbers, the
// conversion breaker) let through and the risk score never blocks, on every dialect's sends. The
// per-address limits still count them.
import { randomBytes } from 'node:crypto';
import { normalizePhoneNumber } from '../domain/destinations.js';
import { fail, ok, type Result } from '../domain/errors.js';
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

export async function addSafeListNumber(ctx: ServiceContext, principal: Principal, phoneNumber: string): Promise<Result<SafeListEntry>> {
  const destination = destinationOf(phoneNumber);
  if (!destination.ok) return destination;
  const entry = await ctx.store.twilio.addSafeListed(principal.accountId, destination.value, `GN${randomBytes(16).toString('hex')}`, ctx.clock());
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
