// Use cases of 2FA applications: Infobip's /2fa/2/applications endpoints.
import { DEFAULT_CONFIGURATION, mergeConfiguration, validateApplicationName } from '../domain/application-rules.js';
import { FieldErrors, fail, ok, type Result } from '../domain/errors.js';
import { generateResourceId } from '../domain/pin-generation.js';
import type { ApplicationConfiguration, ApplicationRecord } from '../store/store.js';
import { inUnitOfWork } from './unit-of-work.js';
import type { Principal, ServiceContext } from './context.js';
import { presentApplication } from './effective-records.js';

/** The security-relevant settings of an application, as the audit log records a change. */
function describeConfiguration(app: ApplicationRecord): string {
  const c = app.configuration;
  return `enabled=${app.enabled} pinAttempts=${c.pinAttempts} pinTimeToLive=${c.pinTimeToLive} verifyPinLimit=${c.verifyPinLimit} `
    + `sendPinPerPhoneNumberLimit=${c.sendPinPerPhoneNumberLimit} sendPinPerApplicationLimit=${c.sendPinPerApplicationLimit} allowMultiplePinVerifications=${c.allowMultiplePinVerifications}`;
}

export interface ApplicationInput {
  name: string;
  enabled?: boolean;
  configuration?: Partial<ApplicationConfiguration>;
}

export function applicationNotFound(id: string) {
  return fail('APPLICATION_NOT_FOUND', `Application ${id} not found`);
}

export async function createApplication(ctx: ServiceContext, principal: Principal, input: ApplicationInput): Promise<Result<ApplicationRecord>> {
  const errors = new FieldErrors();
  validateApplicationName(input.name, errors);
  const configuration = mergeConfiguration(DEFAULT_CONFIGURATION, input.configuration, errors);
  if (!errors.empty) return errors.result();
  const now = ctx.clock();
  const app: ApplicationRecord = {
    id: generateResourceId(), accountId: principal.accountId, name: input.name, enabled: input.enabled ?? true,
    configuration, createdAt: now, updatedAt: now,
  };
  return inUnitOfWork(ctx, principal, async (unit) => {
    await ctx.store.insertApplication(app);
    unit.audit({ event: 'config.application.create', applicationId: app.id, reason: describeConfiguration(app) });
    return ok(presentApplication(ctx, app));
  });
}

export async function getApplication(ctx: ServiceContext, principal: Principal, id: string): Promise<Result<ApplicationRecord>> {
  const app = await ctx.store.getApplication(principal.accountId, id);
  return app ? ok(presentApplication(ctx, app)) : applicationNotFound(id);
}

export async function listApplications(ctx: ServiceContext, principal: Principal): Promise<ApplicationRecord[]> {
  return (await ctx.store.listApplications(principal.accountId)).map((app) => presentApplication(ctx, app));
}

/**
 * PUT merges: `name` is required as Infobip requires it, fields left out keep their value (a
 * full replace would silently reset an omitted limit to its default).
 */
export async function updateApplication(ctx: ServiceContext, principal: Principal, id: string, input: ApplicationInput): Promise<Result<ApplicationRecord>> {
  const current = await ctx.store.getApplication(principal.accountId, id);
  if (!current) return applicationNotFound(id);
  const errors = new FieldErrors();
  validateApplicationName(input.name, errors);
  const configuration = mergeConfiguration(current.configuration, input.configuration, errors);
  if (!errors.empty) return errors.result();
  const updated: ApplicationRecord = { ...current, name: input.name, enabled: input.enabled ?? current.enabled, configuration, updatedAt: ctx.clock() };
  return inUnitOfWork(ctx, principal, async (unit) => {
    await ctx.store.updateApplication(updated);
    unit.audit({ event: 'config.application.update', applicationId: updated.id, reason: describeConfiguration(updated) });
    return ok(presentApplication(ctx, updated));
  });
}
