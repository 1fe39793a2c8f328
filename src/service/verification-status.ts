// Use case of Infobip's verification status: which PINs sent to a destination were delivered and verified.
import { normalizeEmailAddress, normalizePhoneNumber } from '../domain/destinations.js';
import { ok, type Result } from '../domain/errors.js';
import type { VerificationRow } from '../store/store.js';
import { applicationNotFound } from './applications.js';
import type { Principal, ServiceContext } from './context.js';

/** The newest PINs are answered; older ones are summarised by them. */
export const VERIFICATIONS_MAX = 100;

/** The destination as sends stored it, so "+41 ..." style input still finds "41...". */
function normalizeDestination(msisdn: string): string {
  // An unencoded "+" in a query string arrives as a space: "?msisdn=+41..." means "41...".
  const trimmed = msisdn.trim();
  const result = trimmed.includes('@') ? normalizeEmailAddress(trimmed) : normalizePhoneNumber(trimmed);
  return result.ok ? result.value : msisdn;
}

export async function getVerificationStatus(ctx: ServiceContext, principal: Principal, applicationId: string, query: { msisdn: string; verified?: boolean; sent?: boolean }): Promise<Result<VerificationRow[]>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  const filter = { ...(query.verified !== undefined ? { verified: query.verified } : {}), ...(query.sent !== undefined ? { sent: query.sent } : {}) };
  return ok(await ctx.store.listVerifications(principal.accountId, applicationId, normalizeDestination(query.msisdn), filter, VERIFICATIONS_MAX));
}
