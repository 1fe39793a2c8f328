// Use cases of Twilio Verify's Services. A Service is an application of the engine: its name is the
// application's, its code length the pin length of the SMS/voice message template it sends with, and
// what only Twilio has (lookup, PSD2, push, TOTP, ...) is kept beside it (store/twilio-store.ts).
// Every application of the account is a Service; one made through Infobip's API gets its message
// templates at its first verification.
import { ok, fail, FieldErrors, type Result } from '../domain/errors.js';
import { passkeySettingsErrors, type PasskeyConfigPatch } from '../domain/passkeys.js';
import { applicationIdOf, serviceSid } from '../domain/twilio-sids.js';
import { voiceLanguageOf } from '../domain/template-locales.js';
import { DEFAULT_LOCALE, localeMessageText } from '../domain/twilio-templates.js';
import { TOTP_LIMITS } from '../domain/totp.js';
import type { ApplicationConfiguration, ApplicationRecord } from '../store/store.js';
import type { TwilioServiceRow } from '../store/twilio-store.js';
import { createApplication, updateApplication } from './applications.js';
import type { Principal, ServiceContext } from './context.js';
import { createEmailTemplate } from './email-templates.js';
import { readMessageTemplate } from './effective-records.js';
import { createEmailMessageTemplate, createSmsVoiceTemplate, updateSmsVoiceTemplate } from './message-templates.js';
import { setTemplateAutofill } from './template-autofill.js';
import { inUnitOfWork } from './unit-of-work.js';

/**
 * The engine's configuration of a Service made through the Twilio dialect: Twilio's verification
 * lives 10 minutes and takes 5 checks; each verification takes 5 sends (counted by the dialect);
 * across verifications a number gets at most 20 sends an hour, against SMS pumping.
 */
export const TWILIO_CONFIGURATION: Partial<ApplicationConfiguration> = {
  pinAttempts: 5,
  allowMultiplePinVerifications: false,
  pinTimeToLive: '10m',
  verifyPinLimit: '30/1m',
  sendPinPerPhoneNumberLimit: '20/1h',
};

export const CODE_LENGTH_MIN = 4;
export const CODE_LENGTH_MAX = 10;
export const DEFAULT_CODE_LENGTH = 6;
export const FRIENDLY_NAME_MAX = 32;

/** The Twilio-only settings of a Service, keyed as Twilio answers them. */
export interface TwilioServiceSettings {
  lookup_enabled: boolean;
  psd2_enabled: boolean;
  skip_sms_to_landlines: boolean;
  dtmf_input_required: boolean;
  tts_name: string | null;
  do_not_share_warning_enabled: boolean;
  custom_code_enabled: boolean;
  default_template_sid: string | null;
  verify_event_subscription_enabled: boolean;
  push: { include_date: boolean; apn_credential_sid: string | null; fcm_credential_sid: string | null };
  totp: { issuer: string | null; time_step: number | null; code_length: number | null; skew: number | null };
  whatsapp: { msg_service_sid: string | null; from: string | null };
  passkeys: {
    relying_party: { id: string | null; name: string | null; origins: string[] | null };
    authenticator_attachment: string | null;
    discoverable_credentials: string | null;
    user_verification: string | null;
  };
}

export function defaultSettings(): TwilioServiceSettings {
  return {
    lookup_enabled: false, psd2_enabled: false, skip_sms_to_landlines: false, dtmf_input_required: false, tts_name: null,
    do_not_share_warning_enabled: false, custom_code_enabled: false, default_template_sid: null, verify_event_subscription_enabled: false,
    push: { include_date: false, apn_credential_sid: null, fcm_credential_sid: null },
    totp: { issuer: null, time_step: null, code_length: null, skew: null },
    whatsapp: { msg_service_sid: null, from: null },
    passkeys: { relying_party: { id: null, name: null, origins: null }, authenticator_attachment: null, discoverable_credentials: null, user_verification: null },
  };
}

/** A partial settings object: nested groups may be given in part. */
export type SettingsPatch = { [key: string]: unknown };

function mergeSettings(base: unknown, patch: SettingsPatch): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key];
    out[key] = value !== null && typeof value === 'object' && !Array.isArray(value) && current !== null && typeof current === 'object'
      ? mergeSettings(current, value as SettingsPatch) : value;
  }
  return out;
}

export interface TwilioService {
  application: ApplicationRecord;
  settings: TwilioServiceSettings;
  codeLength: number;
  smsMessageId: string | null;
  emailMessageId: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface ServiceInput {
  friendlyName?: string;
  codeLength?: number;
  settings: SettingsPatch;
}

export function serviceNotFound(sid: string) {
  return fail('RESOURCE_NOT_FOUND', `The requested resource /Services/${sid} was not found`);
}

const SMS_TEXT = localeMessageText(DEFAULT_LOCALE);
const DO_NOT_SHARE = ' Don\'t share this code with anyone; our employees will never ask for the code.';
const smsText = (doNotShare: boolean) => SMS_TEXT + (doNotShare ? DO_NOT_SHARE : '');

function checkInput(input: ServiceInput, errors: FieldErrors): void {
  if (input.friendlyName !== undefined) {
    if (input.friendlyName.trim() === '') errors.add('FriendlyName', 'must not be blank');
    else if (input.friendlyName.length > FRIENDLY_NAME_MAX) errors.add('FriendlyName', `must be at most ${FRIENDLY_NAME_MAX} characters`);
  }
  if (input.codeLength !== undefined && (!Number.isInteger(input.codeLength) || input.codeLength < CODE_LENGTH_MIN || input.codeLength > CODE_LENGTH_MAX)) {
    errors.add('CodeLength', `must be a whole number between ${CODE_LENGTH_MIN} and ${CODE_LENGTH_MAX}`);
  }
  // Totp.*: the defaults of the Service's TOTP factors, within Twilio's ranges.
  const totp = (input.settings['totp'] ?? {}) as Record<string, unknown>;
  for (const [key, field] of [['time_step', 'Totp.TimeStep'], ['code_length', 'Totp.CodeLength'], ['skew', 'Totp.Skew']] as const) {
    const value = totp[key];
    const range = TOTP_LIMITS[key];
    if (value !== undefined && value !== null && (!Number.isInteger(value) || (value as number) < range.min || (value as number) > range.max)) {
      errors.add(field, `must be a whole number between ${range.min} and ${range.max}`);
    }
  }
}

/** The Passkeys.* settings as merged, checked as a whole (an origin must sit on the relying party id, set before or now). */
function checkPasskeys(settings: TwilioServiceSettings, errors: FieldErrors): void {
  const names: Record<string, string> = {
    'relying_party.id': 'Passkeys.RelyingParty.Id', 'relying_party.name': 'Passkeys.RelyingParty.Name', 'relying_party.origins': 'Passkeys.RelyingParty.Origins',
    authenticator_attachment: 'Passkeys.AuthenticatorAttachment', discoverable_credentials: 'Passkeys.DiscoverableCredentials', user_verification: 'Passkeys.UserVerification',
  };
  for (const [field, message] of Object.entries(passkeySettingsErrors(settings.passkeys))) errors.add(names[field] ?? field, message);
}

async function assemble(ctx: ServiceContext, app: ApplicationRecord, row: TwilioServiceRow | undefined): Promise<TwilioService> {
  // As used and shown under the security profile (a floored code length under `strict`).
  const template = row?.smsMessageId ? await readMessageTemplate(ctx, app.accountId, app.id, row.smsMessageId) : undefined;
  return {
    application: app,
    settings: mergeSettings(defaultSettings(), row?.settings ?? {}) as unknown as TwilioServiceSettings,
    codeLength: template?.pinLength ?? DEFAULT_CODE_LENGTH,
    smsMessageId: row?.smsMessageId ?? null,
    emailMessageId: row?.emailMessageId ?? null,
    createdAt: row?.createdAt ?? app.createdAt,
    updatedAt: Math.max(row?.updatedAt ?? 0, app.updatedAt),
  };
}

function rowOf(service: TwilioService, now: number, deletedAt: number | null = null): TwilioServiceRow {
  return {
    applicationId: service.application.id, accountId: service.application.accountId, settings: service.settings as unknown as Record<string, unknown>,
    smsMessageId: service.smsMessageId, emailMessageId: service.emailMessageId, deletedAt, createdAt: service.createdAt, updatedAt: now,
  };
}

export async function createService(ctx: ServiceContext, principal: Principal, input: ServiceInput): Promise<Result<TwilioService>> {
  const errors = new FieldErrors();
  if (input.friendlyName === undefined) errors.add('FriendlyName', 'is required');
  checkInput(input, errors);
  const settings = mergeSettings(defaultSettings(), input.settings) as unknown as TwilioServiceSettings;
  checkPasskeys(settings, errors);
  if (!errors.empty || input.friendlyName === undefined) return errors.result();
  const app = await createApplication(ctx, principal, { name: input.friendlyName, configuration: TWILIO_CONFIGURATION });
  if (!app.ok) return app;
  const template = await createSmsVoiceTemplate(ctx, principal, app.value.id, {
    messageText: smsText(settings.do_not_share_warning_enabled), pinType: 'NUMERIC', pinLength: input.codeLength ?? DEFAULT_CODE_LENGTH, language: 'en',
  });
  if (!template.ok) return template;
  const now = ctx.clock();
  const service: TwilioService = {
    application: app.value, settings, codeLength: template.value.pinLength, smsMessageId: template.value.id, emailMessageId: null, createdAt: now, updatedAt: now,
  };
  await ctx.store.twilio.saveService(rowOf(service, now));
  return ok(service);
}

/** The Service a SID names in the principal's account (a deleted one is gone). */
export async function getService(ctx: ServiceContext, principal: Principal, sid: string): Promise<Result<TwilioService>> {
  const applicationId = applicationIdOf(sid);
  const app = applicationId === undefined ? undefined : await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return serviceNotFound(sid);
  const row = await ctx.store.twilio.getService(principal.accountId, app.id);
  if (row?.deletedAt !== null && row?.deletedAt !== undefined) return serviceNotFound(sid);
  return ok(await assemble(ctx, app, row));
}

/** The account's Services, oldest first. */
export async function listServices(ctx: ServiceContext, principal: Principal): Promise<TwilioService[]> {
  const [apps, rows] = await Promise.all([ctx.store.listApplications(principal.accountId), ctx.store.twilio.listServices(principal.accountId)]);
  const byApp = new Map(rows.map((r) => [r.applicationId, r]));
  const live = apps.filter((a) => (byApp.get(a.id)?.deletedAt ?? null) === null).sort((x, y) => x.createdAt - y.createdAt || x.id.localeCompare(y.id));
  return Promise.all(live.map((a) => assemble(ctx, a, byApp.get(a.id))));
}

export async function updateService(ctx: ServiceContext, principal: Principal, sid: string, input: ServiceInput): Promise<Result<TwilioService>> {
  const found = await getService(ctx, principal, sid);
  if (!found.ok) return found;
  const errors = new FieldErrors();
  checkInput(input, errors);
  const settings = mergeSettings(found.value.settings, input.settings) as unknown as TwilioServiceSettings;
  checkPasskeys(settings, errors);
  if (!errors.empty) return errors.result();
  let service = found.value;
  if (input.friendlyName !== undefined && input.friendlyName !== service.application.name) {
    const app = await updateApplication(ctx, principal, service.application.id, { name: input.friendlyName });
    if (!app.ok) return app;
    service = { ...service, application: app.value };
  }
  service = { ...service, settings };
  if (service.smsMessageId === null) service = await withSmsTemplate(ctx, principal, service, input.codeLength);
  else if (input.codeLength !== undefined || settings.do_not_share_warning_enabled !== found.value.settings.do_not_share_warning_enabled) {
    const template = await updateSmsVoiceTemplate(ctx, principal, service.application.id, service.smsMessageId, {
      messageText: smsText(settings.do_not_share_warning_enabled), ...(input.codeLength !== undefined ? { pinLength: input.codeLength } : {}),
    });
    if (!template.ok) return template;
    service = { ...service, codeLength: template.value.pinLength };
    // The service's other locales send codes of the same length.
    if (input.codeLength !== undefined) {
      for (const { messageId } of await ctx.store.twilio.listLocaleMessages(principal.accountId, service.application.id)) {
        const localized = await updateSmsVoiceTemplate(ctx, principal, service.application.id, messageId, { pinLength: input.codeLength });
        if (!localized.ok) return localized;
      }
    }
  }
  const now = ctx.clock();
  await ctx.store.twilio.saveService(rowOf(service, now));
  return ok({ ...service, updatedAt: now });
}

/** Deleting a Service disables its application (Infobip's API has no delete) and hides it from this dialect. */
export async function deleteService(ctx: ServiceContext, principal: Principal, sid: string): Promise<Result<null>> {
  const found = await getService(ctx, principal, sid);
  if (!found.ok) return found;
  const app = await updateApplication(ctx, principal, found.value.application.id, { name: found.value.application.name, enabled: false });
  if (!app.ok) return app;
  const now = ctx.clock();
  await ctx.store.twilio.saveService(rowOf(found.value, now, now));
  return ok(null);
}

async function withSmsTemplate(ctx: ServiceContext, principal: Principal, service: TwilioService, codeLength?: number): Promise<TwilioService> {
  const template = await createSmsVoiceTemplate(ctx, principal, service.application.id, {
    messageText: smsText(service.settings.do_not_share_warning_enabled), pinType: 'NUMERIC', pinLength: codeLength ?? service.codeLength, language: 'en',
  });
  if (!template.ok) throw new Error(`the Twilio service's SMS template was refused: ${template.failure.text}`);
  return { ...service, smsMessageId: template.value.id, codeLength: template.value.pinLength };
}

/**
 * The message template a verification on `kind` is sent with, made at first use: an application made
 * through Infobip's API has none yet, and the email one needs an email template of its own.
 */
export async function serviceMessageId(ctx: ServiceContext, principal: Principal, service: TwilioService, kind: 'sms_voice' | 'email', locale = DEFAULT_LOCALE): Promise<string> {
  if (kind === 'sms_voice' && locale !== DEFAULT_LOCALE) return localeMessageId(ctx, principal, service, locale);
  if (kind === 'sms_voice' && service.smsMessageId !== null) return service.smsMessageId;
  if (kind === 'email' && service.emailMessageId !== null) return service.emailMessageId;
  let updated: TwilioService;
  if (kind === 'sms_voice') {
    updated = await withSmsTemplate(ctx, principal, service);
  } else {
    const email = await createEmailTemplate(ctx, principal, {
      name: `Twilio Verify service ${service.application.id}`, subject: 'Your {{friendly_name}} verification code',
      text: SMS_TEXT, html: '<p>Your {{friendly_name}} verification code is: <strong>{{pin}}</strong></p>',
    });
    if (!email.ok) throw new Error(`the Twilio service's email template was refused: ${email.failure.text}`);
    const message = await createEmailMessageTemplate(ctx, principal, service.application.id, { emailTemplateId: email.value.id, pinType: 'NUMERIC', pinLength: service.codeLength });
    if (!message.ok) throw new Error(`the Twilio service's email message was refused: ${message.failure.text}`);
    updated = { ...service, emailMessageId: message.value.id };
  }
  await ctx.store.twilio.saveService(rowOf(updated, ctx.clock()));
  return kind === 'email' ? updated.emailMessageId! : updated.smsMessageId!;
}

/** The SMS/voice message template of a locale other than English, made at its first use (the built-in text; no warning). */
async function localeMessageId(ctx: ServiceContext, principal: Principal, service: TwilioService, locale: string): Promise<string> {
  const known = (await ctx.store.twilio.listLocaleMessages(principal.accountId, service.application.id)).find((l) => l.locale === locale);
  if (known) return known.messageId;
  const template = await createSmsVoiceTemplate(ctx, principal, service.application.id, {
    messageText: localeMessageText(locale), pinType: 'NUMERIC', pinLength: service.codeLength, language: voiceLanguageOf(locale),
  });
  if (!template.ok) throw new Error(`the Twilio service's ${locale} template was refused: ${template.failure.text}`);
  if (await ctx.store.twilio.saveLocaleMessage(principal.accountId, service.application.id, locale, template.value.id)) return template.value.id;
  // Another start made this locale's template at the same moment: both send with the one recorded.
  return (await ctx.store.twilio.listLocaleMessages(principal.accountId, service.application.id)).find((l) => l.locale === locale)?.messageId ?? template.value.id;
}

/** What PSD2 adds to a message: the transaction the code confirms (dynamic linking). */
export const PSD2_TEXT = ' Amount: {{amount}}. Payee: {{payee}}.';

/**
 * Android app hashes one Service keeps variants for. A start names its hash, and each new one makes a
 * message template kept as long as the Service: an app has a few (one per signing key), so this
 * bounds what starts can add to the configuration, whatever hashes a client sends.
 */
export const APP_HASHES_PER_SERVICE_MAX = 5;

/** The key of a variant among the Service's locale messages; an app hash, exactly 11 characters, comes last. */
function variantKey(baseMessageId: string, variant: { psd2: boolean; appHash?: string }): string {
  return `${baseMessageId}${variant.psd2 ? '+psd2' : ''}${variant.appHash !== undefined ? `+${variant.appHash}` : ''}`;
}

const APP_HASH_OF_KEY = /\+([A-Za-z0-9+/]{11})$/;

/**
 * A variant of a Service's SMS/voice message template: PSD2's amount and payee appended, an Android
 * app hash as the template's SMS autofill (its own line, which SMS Retriever reads). Made at first
 * use from the template it varies and kept beside the locales' (so a new CodeLength reaches it too).
 * A hash beyond the Service's APP_HASHES_PER_SERVICE_MAX is refused (60200), before the start
 * sends or counts anything.
 */
export async function variantMessageId(ctx: ServiceContext, principal: Principal, service: TwilioService, baseMessageId: string, variant: { psd2: boolean; appHash?: string }): Promise<Result<string>> {
  if (!variant.psd2 && variant.appHash === undefined) return ok(baseMessageId);
  const key = variantKey(baseMessageId, variant);
  const listed = () => ctx.store.twilio.listLocaleMessages(principal.accountId, service.application.id);
  const known = await listed();
  const found = known.find((l) => l.locale === key);
  if (found) return ok(found.messageId);
  if (variant.appHash !== undefined) {
    const hashes = new Set(known.map((l) => APP_HASH_OF_KEY.exec(l.locale)?.[1]).filter((h) => h !== undefined));
    if (!hashes.has(variant.appHash) && hashes.size >= APP_HASHES_PER_SERVICE_MAX) {
      return fail('INVALID_REQUEST', 'Invalid parameter: AppHash', { validationErrors: { AppHash: [`the service sends with ${APP_HASHES_PER_SERVICE_MAX} app hashes already, at most`] } });
    }
  }
  const base = await readMessageTemplate(ctx, principal.accountId, service.application.id, baseMessageId);
  if (!base || base.kind !== 'sms_voice') throw new Error(`the Twilio service's message ${baseMessageId} is gone`);
  const template = await createSmsVoiceTemplate(ctx, principal, service.application.id, {
    messageText: `${base.messageText}${variant.psd2 ? PSD2_TEXT : ''}`, pinType: base.pinType, pinLength: base.pinLength, language: base.language,
  });
  if (!template.ok) throw new Error(`the Twilio service's message variant was refused: ${template.failure.text}`);
  if (variant.appHash !== undefined) {
    const autofill = await setTemplateAutofill(ctx, principal, service.application.id, template.value.id, { androidAppHash: variant.appHash });
    if (!autofill.ok) throw new Error(`the app hash was refused: ${autofill.failure.text}`);
  }
  if (await ctx.store.twilio.saveLocaleMessage(principal.accountId, service.application.id, key, template.value.id)) return ok(template.value.id);
  return ok((await listed()).find((l) => l.locale === key)?.messageId ?? template.value.id);
}

/**
 * An application's passkey settings (its Service's `Passkeys.*`), set through /api/v1 for an
 * application of any dialect: only the settings change (no message template is made), and the
 * change is audited. Fields left out keep their value; null clears one.
 */
export function updatePasskeySettings(ctx: ServiceContext, principal: Principal, applicationId: string, patch: PasskeyConfigPatch): Promise<Result<TwilioService>> {
  return inUnitOfWork(ctx, principal, async (unit) => {
    const found = await getService(ctx, principal, serviceSid(applicationId));
    if (!found.ok) return fail('APPLICATION_NOT_FOUND', `Application ${applicationId} not found`);
    const settings = mergeSettings(found.value.settings, { passkeys: patch as SettingsPatch }) as unknown as TwilioServiceSettings;
    const errors = new FieldErrors();
    // Named as /api/v1 names them: relyingParty.origins, userVerification.
    for (const [field, message] of Object.entries(passkeySettingsErrors(settings.passkeys))) errors.add(field.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), message);
    if (!errors.empty) return errors.result();
    const now = ctx.clock();
    const service = { ...found.value, settings, updatedAt: now };
    await ctx.store.twilio.saveService(rowOf(service, now));
    const rp = settings.passkeys.relying_party;
    unit.audit({ event: 'config.passkeys.update', applicationId, reason: `rp=${rp.id ?? '-'} origins=${(rp.origins ?? []).join(',') || '-'}` });
    return ok(service);
  });
}
