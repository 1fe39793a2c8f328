// Which application an account's Prelude Verify calls use. Prelude's calls name no application (its
// API key is the project), so each account names one, through /api/v1/prelude/settings; until it
// does, every Prelude call is refused (404, which the SDK does not retry) saying so.
import { fail, ok, type Result } from '../domain/errors.js';
import type { ApplicationRecord } from '../store/store.js';
import type { Principal, ServiceContext } from './context.js';
import { readApplication } from './effective-records.js';
import { inUnitOfWork } from './unit-of-work.js';

export interface PreludeSettings {
  application: ApplicationRecord;
  /** Whether creates may choose their code (`options.custom_code`), which Prelude enables per account. */
  customCodeAllowed: boolean;
  updatedAt: number;
}

const NOT_CONFIGURED = 'No application is set for Prelude Verify in this account: set one with PUT /api/v1/prelude/settings';

export async function preludeApplication(ctx: ServiceContext, principal: Principal): Promise<Result<PreludeSettings>> {
  const row = await ctx.store.prelude.getSettings(principal.accountId);
  const application = row && await readApplication(ctx, principal.accountId, row.applicationId);
  if (!row || !application) return fail('APPLICATION_NOT_FOUND', NOT_CONFIGURED, { dialectCode: 'application_not_configured' });
  return ok({ application, customCodeAllowed: row.customCodeAllowed, updatedAt: row.updatedAt });
}

/** PUT /api/v1/prelude/settings: the application of the account's Prelude calls, audited. */
export function updatePreludeSettings(ctx: ServiceContext, principal: Principal, input: { applicationId: string; customCodeAllowed?: boolean }): Promise<Result<PreludeSettings>> {
  return inUnitOfWork(ctx, principal, async (unit) => {
    const application = await readApplication(ctx, principal.accountId, input.applicationId);
    if (!application) return fail('INVALID_REQUEST', `application ${input.applicationId} does not exist`, { validationErrors: { applicationId: [`application ${input.applicationId} does not exist`] } });
    const previous = await ctx.store.prelude.getSettings(principal.accountId);
    const customCodeAllowed = input.customCodeAllowed ?? previous?.customCodeAllowed ?? false;
    const updatedAt = ctx.clock();
    await ctx.store.prelude.saveSettings({ accountId: principal.accountId, applicationId: application.id, customCodeAllowed, updatedAt });
    unit.audit({ event: 'config.prelude.update', applicationId: application.id, reason: `customCodeAllowed=${customCodeAllowed}` });
    return ok({ application, customCodeAllowed, updatedAt });
  });
}
