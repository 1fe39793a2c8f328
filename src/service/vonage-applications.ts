// Vonage applications: a twofa application whose Vonage Verify calls may authenticate with a JWT
// signed by the private half of a registered RSA key (service/vonage-credentials.ts). Managed through
// /api/v1/vonage/applications/{applicationId}, audited; Basic logins need none of this.
import { fail, ok, type Result } from '../domain/errors.js';
import type { VonageApplicationRow } from '../store/vonage-store.js';
import type { Principal, ServiceContext } from './context.js';
import { readApplication } from './effective-records.js';
import { inUnitOfWork } from './unit-of-work.js';
import { rsaPublicKey } from './vonage-credentials.js';

function notFound(applicationId: string) {
  return fail('APPLICATION_NOT_FOUND', `application ${applicationId} has no Vonage public key: set one with PUT /api/v1/vonage/applications/${applicationId}`);
}

export async function getVonageApplication(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<VonageApplicationRow>> {
  const row = await ctx.store.vonage.getApplication(applicationId);
  return row && row.accountId === principal.accountId ? ok(row) : notFound(applicationId);
}

/** PUT: registers (or replaces) the application's public key; the JWTs of the key it replaces no longer log in. */
export function putVonageApplication(ctx: ServiceContext, principal: Principal, applicationId: string, publicKey: string): Promise<Result<VonageApplicationRow>> {
  return inUnitOfWork(ctx, principal, async (unit) => {
    if (!(await readApplication(ctx, principal.accountId, applicationId))) return fail('APPLICATION_NOT_FOUND', `application ${applicationId} does not exist`);
    const key = rsaPublicKey(publicKey);
    if (!key) return fail('INVALID_REQUEST', 'publicKey must be the PEM of an RSA public key', { validationErrors: { publicKey: ['must be the PEM of an RSA public key (-----BEGIN PUBLIC KEY-----)'] } });
    const row: VonageApplicationRow = { accountId: principal.accountId, applicationId, publicKey: key.export({ type: 'spki', format: 'pem' }).toString(), updatedAt: ctx.clock() };
    await ctx.store.vonage.saveApplication(row);
    unit.audit({ event: 'config.vonage.application.update', applicationId });
    return ok(row);
  });
}

export function deleteVonageApplication(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<null>> {
  return inUnitOfWork(ctx, principal, async (unit) => {
    if (!(await ctx.store.vonage.deleteApplication(principal.accountId, applicationId))) return notFound(applicationId);
    unit.audit({ event: 'config.vonage.application.delete', applicationId });
    return ok(null);
  });
}
