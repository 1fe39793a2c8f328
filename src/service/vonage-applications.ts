// Vonage applications: a twofa application whose Vonage Verify calls may authenticate with a JWT
// signed by the private half of a registered RSA key (service/vonage-credentials.ts), and whose
// Verify callbacks (event, summary) go to its callback URL signed with its signature secret, as
// Vonage's application capabilities have them. Managed through /api/v1/vonage/applications, audited;
// Basic logins need none of this.
//
// The signature secret signs (HS256) and so is stored encrypted under TWOFA_SECRET, like webhook
// secrets. It is shown in the answer that made it (the first callback URL, a rotation, or a secret
// the caller chose), never again: a lost one is rotated.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { PinKeyring } from '../domain/pin-secrets.js';
import type { Store } from '../store/store.js';
import { vonageSignatureSecretId } from '../domain/vonage-callbacks.js';
import { fail, FieldErrors, ok, type Result } from '../domain/errors.js';
import type { VonageApplicationRow } from '../store/vonage-store.js';
import type { Principal, ServiceContext } from './context.js';
import { readApplication } from './effective-records.js';
import { inUnitOfWork } from './unit-of-work.js';
import { rsaPublicKey } from './vonage-credentials.js';
import { checkWebhookUrl } from './webhooks.js';

/** Vonage's signature secrets are of this order; a chosen one must be long enough to resist guessing. */
export const SIGNATURE_SECRET_MIN = 32;
export const SIGNATURE_SECRET_MAX = 128;

export interface VonageApplicationInput {
  /** Required when the application has no row yet. */
  publicKey?: string;
  /** An empty string removes it (JSON bodies' nulls read as absent): callbacks stop, those waiting are cancelled. */
  callbackUrl?: string;
  /** A secret of the caller's choosing instead of one made here. */
  signatureSecret?: string;
}

export interface VonageApplicationView {
  row: VonageApplicationRow;
  /** Only in the answer that set it. */
  signatureSecret?: string;
}

function notFound(applicationId: string) {
  return fail('APPLICATION_NOT_FOUND', `application ${applicationId} has no Vonage public key: set one with PUT /api/v1/vonage/applications/${applicationId}`);
}

/** 32 random bytes, as base64url: 43 characters, of Vonage's signature secrets' order. */
function newSignatureSecret(): string {
  return randomBytes(32).toString('base64url');
}

export async function getVonageApplication(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<VonageApplicationRow>> {
  const row = await ctx.store.vonage.getApplication(applicationId);
  return row && row.accountId === principal.accountId ? ok(row) : notFound(applicationId);
}

export function listVonageApplications(ctx: ServiceContext, principal: Principal): Promise<VonageApplicationRow[]> {
  return ctx.store.vonage.listApplications(principal.accountId);
}

/**
 * PUT: registers the application or changes it; what is left out keeps its value. A new public key
 * ends the JWTs of the one it replaces. The first callback URL comes with a new signature secret
 * unless one is given.
 */
export function putVonageApplication(ctx: ServiceContext, principal: Principal, applicationId: string, input: VonageApplicationInput): Promise<Result<VonageApplicationView>> {
  return inUnitOfWork(ctx, principal, async (unit) => {
    if (!(await readApplication(ctx, principal.accountId, applicationId))) return fail('APPLICATION_NOT_FOUND', `application ${applicationId} does not exist`);
    const existing = await ctx.store.vonage.getApplication(applicationId);
    const previous = existing?.accountId === principal.accountId ? existing : undefined;
    const errors = new FieldErrors();
    let publicKey = previous?.publicKey;
    if (input.publicKey !== undefined) {
      const key = rsaPublicKey(input.publicKey);
      if (key) publicKey = key.export({ type: 'spki', format: 'pem' }).toString();
      else errors.add('publicKey', 'must be the PEM of an RSA public key (-----BEGIN PUBLIC KEY-----)');
    } else if (publicKey === undefined) {
      errors.add('publicKey', 'is required to register the application');
    }
    let callbackUrl = previous?.callbackUrl ?? null;
    if (input.callbackUrl !== undefined) {
      const checked = input.callbackUrl === '' ? undefined : await checkWebhookUrl(input.callbackUrl, ctx.webhookAddresses);
      if (checked === undefined) callbackUrl = null;
      else if (checked.ok) callbackUrl = checked.url;
      else errors.add('callbackUrl', checked.error);
    }
    if (input.signatureSecret !== undefined && (input.signatureSecret.length < SIGNATURE_SECRET_MIN || input.signatureSecret.length > SIGNATURE_SECRET_MAX || /\s/.test(input.signatureSecret))) {
      errors.add('signatureSecret', `must be ${SIGNATURE_SECRET_MIN} to ${SIGNATURE_SECRET_MAX} characters without spaces`);
    }
    if (!errors.empty || publicKey === undefined) return errors.result();
    const shownSecret = input.signatureSecret ?? (callbackUrl !== null && !previous?.signatureSecretCiphertext ? newSignatureSecret() : undefined);
    const row: VonageApplicationRow = {
      accountId: principal.accountId, applicationId, publicKey, callbackUrl,
      signatureSecretCiphertext: shownSecret === undefined ? previous?.signatureSecretCiphertext ?? null : ctx.keyring.encryptWebhookSecret(vonageSignatureSecretId(applicationId), shownSecret),
      updatedAt: ctx.clock(),
    };
    await ctx.store.vonage.saveApplication(row);
    unit.audit({ event: 'config.vonage.application.update', applicationId, ...(shownSecret !== undefined ? { reason: 'signature secret set' } : {}) });
    return ok(shownSecret === undefined ? { row } : { row, signatureSecret: shownSecret });
  });
}

/** A new signature secret: callbacks signed from now on use it (the worker reads it at each attempt). */
export function rotateVonageSignatureSecret(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<VonageApplicationView>> {
  return inUnitOfWork(ctx, principal, async (unit) => {
    const found = await getVonageApplication(ctx, principal, applicationId);
    if (!found.ok) return found;
    const secret = newSignatureSecret();
    const row = { ...found.value, signatureSecretCiphertext: ctx.keyring.encryptWebhookSecret(vonageSignatureSecretId(applicationId), secret), updatedAt: ctx.clock() };
    await ctx.store.vonage.saveApplication(row);
    unit.audit({ event: 'config.vonage.application.update', applicationId, reason: 'signature secret rotated' });
    return ok({ row, signatureSecret: secret });
  });
}

export function deleteVonageApplication(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<null>> {
  return inUnitOfWork(ctx, principal, async (unit) => {
    if (!(await ctx.store.vonage.deleteApplication(principal.accountId, applicationId))) return notFound(applicationId);
    unit.audit({ event: 'config.vonage.application.delete', applicationId });
    return ok(null);
  });
}

/**
 * At start, as reencryptWebhookSecrets does for subscription secrets: signature secrets encrypted
 * under a previous TWOFA_SECRET move to the current one, so that TWOFA_PREVIOUS_SECRETS can drop it.
 * One no configured key can decrypt is reported: its callbacks fail until the secret is rotated.
 */
export async function reencryptVonageSignatureSecrets(store: Store, keyring: PinKeyring, logger: Logger): Promise<void> {
  const current = `${keyring.currentKeyId}:`;
  let unreadable = 0;
  for (const { applicationId, ciphertext } of await store.vonage.listSignatureSecrets()) {
    if (ciphertext.startsWith(current)) continue;
    const secret = keyring.decryptWebhookSecret(vonageSignatureSecretId(applicationId), ciphertext);
    if (secret === null) {
      unreadable += 1;
      continue;
    }
    await store.vonage.replaceSignatureSecret(applicationId, ciphertext, keyring.encryptWebhookSecret(vonageSignatureSecretId(applicationId), secret));
  }
  if (unreadable > 0) {
    logger.warn({ applications: unreadable }, 'Vonage signature secrets made under a TWOFA_SECRET that is no longer configured: their callbacks fail until the secret is rotated (POST /api/v1/vonage/applications/{id}/signature-secret)');
  }
}
