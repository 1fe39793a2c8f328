// Use cases of an account's test numbers (/api/v1/test-numbers, `twofa test-numbers`): destinations
// (phone numbers or email addresses) with a fixed code each, for app-store review and end-to-end
// tests. A send to one is accepted and recorded like any other, but send-pin.ts queues no delivery
// and makes the fixed code the PIN, so the code verifies (and nothing else does) under the PIN's
// usual attempts, expiry and lock. The code is stored encrypted under the PIN keyring (bound to the
// entry's id), never in clear, and is never shown again after it was set.
//
// A known code for a destination is a way past the second factor of whoever owns that destination,
// so under TWOFA_SECURITY_PROFILE=strict test numbers are off unless the operator allows them
// (TWOFA_ALLOW_TEST_NUMBERS): none can be added, and existing ones are ignored by sends, which then
// deliver a random PIN as to any destination.
import { normalizeEmailAddress, normalizePhoneNumber } from '../domain/destinations.js';
import { fail, invalid, ok, type Result } from '../domain/errors.js';
import { generateResourceId } from '../domain/pin-generation.js';
import { chosenCodeTooShort } from '../domain/security-profile.js';
import type { TestNumberRecord } from '../store/test-number-store.js';
import { inUnitOfWork } from './unit-of-work.js';
import type { Principal, ServiceContext } from './context.js';
import { profileOf } from './effective-records.js';

/** The list is read whole into memory on SQLite at every change: a bound keeps that cheap. */
export const MAX_TEST_NUMBERS_PER_ACCOUNT = 100;
export const TEST_CODE_PATTERN = /^[0-9A-Za-z]{4,16}$/;

export interface TestNumberInput {
  destination: string;
  code: string;
}

export interface TestNumberView {
  id: string;
  destination: string;
  createdAt: number;
}

/**
 * The audit entry's reason for a request about a test number's PIN: marked, so the audit log (and the
 * refusals the statistics count from it) tell test traffic from real traffic.
 */
export function testNumberAuditReason(reason: string, testNumber: boolean): string {
  return testNumber ? `${reason};test-number` : reason;
}

export function testNumbersAllowed(ctx: ServiceContext): boolean {
  return profileOf(ctx) !== 'strict' || ctx.allowTestNumbers === true;
}

/** A destination as sends normalise it: an email address when it has an `@`, else international phone digits. */
export function normalizeTestDestination(destination: string): { ok: true; value: string } | { ok: false; error: string } {
  return destination.includes('@') ? normalizeEmailAddress(destination) : normalizePhoneNumber(destination);
}

function codeProblem(ctx: ServiceContext, code: string): string | undefined {
  if (!TEST_CODE_PATTERN.test(code)) return 'must be 4 to 16 letters or digits';
  return chosenCodeTooShort(profileOf(ctx), code);
}

const toView = (record: TestNumberRecord): TestNumberView => ({ id: record.id, destination: record.destination, createdAt: record.createdAt });

export async function addTestNumber(ctx: ServiceContext, principal: Principal, input: TestNumberInput): Promise<Result<TestNumberView>> {
  if (!testNumbersAllowed(ctx)) {
    return fail('TEST_NUMBERS_NOT_ALLOWED', 'Test numbers are off under TWOFA_SECURITY_PROFILE=strict: a fixed code would let anyone who knows it past the second factor. The operator can allow them with TWOFA_ALLOW_TEST_NUMBERS=true.');
  }
  const errors: Record<string, string[]> = {};
  const destination = normalizeTestDestination(input.destination);
  if (!destination.ok) errors['destination'] = [destination.error];
  const problem = codeProblem(ctx, input.code);
  if (problem !== undefined) errors['code'] = [problem];
  if (!destination.ok || problem !== undefined) return invalid(errors);
  if ((await ctx.store.testNumbers.count(principal.accountId)) >= MAX_TEST_NUMBERS_PER_ACCOUNT) {
    return fail('TEST_NUMBER_LIMIT_REACHED', `An account has at most ${MAX_TEST_NUMBERS_PER_ACCOUNT} test numbers; remove one first`);
  }
  const id = generateResourceId();
  const record: TestNumberRecord = {
    id, accountId: principal.accountId, destination: destination.value, codeCiphertext: ctx.keyring.encryptTestNumberCode(id, input.code), createdAt: ctx.clock(),
  };
  return inUnitOfWork(ctx, principal, async (unit) => {
    if ((await ctx.store.testNumbers.add(record)) === 'duplicate') return fail('TEST_NUMBER_EXISTS', 'This destination is already a test number of the account; remove it first to change its code');
    unit.audit({ event: 'config.test-number.create', destination: record.destination, reason: id });
    return ok(toView(record));
  });
}

export async function listTestNumbers(ctx: ServiceContext, principal: Principal): Promise<TestNumberView[]> {
  return (await ctx.store.testNumbers.list(principal.accountId)).map(toView);
}

export async function removeTestNumber(ctx: ServiceContext, principal: Principal, id: string): Promise<Result<null>> {
  const existing = (await ctx.store.testNumbers.list(principal.accountId)).find((t) => t.id === id);
  return inUnitOfWork(ctx, principal, async (unit) => {
    if (!existing || !(await ctx.store.testNumbers.remove(principal.accountId, id))) return fail('TEST_NUMBER_NOT_FOUND', `Test number ${id} not found`);
    unit.audit({ event: 'config.test-number.delete', destination: existing.destination, reason: id });
    return ok(null);
  });
}

/**
 * The fixed code a send to `destination` (normalised) uses, when it is one of the account's test
 * numbers and test numbers are allowed; undefined otherwise (also when the code was encrypted under a
 * secret no longer configured: the destination is then treated as any other).
 */
export async function testNumberCode(ctx: ServiceContext, accountId: string, destination: string): Promise<string | undefined> {
  if (!testNumbersAllowed(ctx)) return undefined;
  const entry = await ctx.store.testNumbers.find(accountId, destination);
  if (!entry) return undefined;
  return ctx.keyring.decryptTestNumberCode(entry.id, entry.codeCiphertext) ?? undefined;
}
