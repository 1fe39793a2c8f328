// Vonage Verify v2's templates and template fragments, over the engine's message templates and their
// locale texts (service/template-texts.ts): a Vonage template is a named SMS/voice message template of
// the application the credentials name, a fragment one of its locale texts. Nothing is copied: a
// template made here is the message template Twilio's TemplateSid, Prelude's template_id and
// Infobip's messageId name, and a locale text added through /api/v1 is one of its fragments.
// Vonage writes `${code}`, `${brand}`, `${time-limit}` and `${time-limit-unit}`; the engine stores
// `{{pin}}`, `{{friendly_name}}`, `{{time-limit}}` and `{{time-limit-unit}}` (a start fills them).
import { FieldErrors, fail, ok, type Result } from '../domain/errors.js';
import { generateResourceId } from '../domain/pin-generation.js';
import type { LocaleText } from '../domain/template-locales.js';
import { localeMessageText } from '../domain/twilio-templates.js';
import type { SmsVoiceTemplateRecord } from '../store/store.js';
import { applicationNotFound } from './applications.js';
import type { Principal, ServiceContext } from './context.js';
import { DEFAULT_PIN_LENGTH } from './message-templates.js';
import { addTemplateText, deleteTemplateText, getTemplateText, listTemplateTexts, smsVoiceTemplate, updateTemplateText } from './template-texts.js';

/** Vonage's bound on an account's custom templates, here per application. */
export const VONAGE_TEMPLATES_MAX = 10;

const TO_ENGINE: ReadonlyArray<[string, string]> = [
  ['${code}', '{{pin}}'], ['${brand}', '{{friendly_name}}'], ['${time-limit}', '{{time-limit}}'], ['${time-limit-unit}', '{{time-limit-unit}}'],
];

/** A Vonage fragment's text in the engine's placeholders; undefined when it holds `{{`/`}}`, which would not read back the same. */
export function engineText(vonageText: string): string | undefined {
  if (vonageText.includes('{{') || vonageText.includes('}}')) return undefined;
  return TO_ENGINE.reduce((text, [vonage, engine]) => text.replaceAll(vonage, engine), vonageText);
}

/** A locale text as Vonage writes it. */
export function vonageText(engine: string): string {
  return TO_ENGINE.reduce((text, [vonage, engineName]) => text.replaceAll(engineName, vonage), engine);
}

function templateNotFound(id: string) {
  return fail('MESSAGE_NOT_FOUND', `Template ${id} was not found.`);
}

function invalid(field: string, message: string) {
  const errors = new FieldErrors();
  errors.add(field, message);
  return errors.result();
}

const named = (t: { kind: string; name?: string | null }): t is SmsVoiceTemplateRecord & { name: string } => t.kind === 'sms_voice' && typeof t.name === 'string';

async function namedTemplates(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<Array<SmsVoiceTemplateRecord & { name: string }>>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  return ok((await ctx.store.listMessageTemplates(principal.accountId, applicationId)).filter(named));
}

export async function listTemplates(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<SmsVoiceTemplateRecord[]>> {
  return namedTemplates(ctx, principal, applicationId);
}

/** One of the application's named templates (an unnamed message template is no Vonage template). */
export async function getTemplate(ctx: ServiceContext, principal: Principal, applicationId: string, id: string): Promise<Result<SmsVoiceTemplateRecord & { name: string }>> {
  const template = await smsVoiceTemplate(ctx, principal, applicationId, id);
  if (!template.ok) return template.failure.name === 'APPLICATION_NOT_FOUND' ? template : templateNotFound(id);
  return named(template.value) ? ok(template.value) : templateNotFound(id);
}

/**
 * A named template whose default text is the built-in one (`Your ${brand} verification code is:
 * ${code}.`): what a start sends where no fragment fits the locale. The name check is a read, not a
 * gate: two creates of one name at the same moment may both pass (the name is a label, the id is the key).
 */
export async function createTemplate(ctx: ServiceContext, principal: Principal, applicationId: string, name: string): Promise<Result<SmsVoiceTemplateRecord>> {
  const existing = await namedTemplates(ctx, principal, applicationId);
  if (!existing.ok) return existing;
  if (existing.value.some((t) => t.name === name)) return fail('TEMPLATE_NAME_EXISTS', `A template named ${name} exists already.`);
  if (existing.value.length >= VONAGE_TEMPLATES_MAX) return fail('TEMPLATE_LIMIT_REACHED', `An application holds at most ${VONAGE_TEMPLATES_MAX} templates.`);
  const now = ctx.clock();
  const template: SmsVoiceTemplateRecord = {
    kind: 'sms_voice', id: generateResourceId(), accountId: principal.accountId, applicationId, pinType: 'NUMERIC', pinLength: DEFAULT_PIN_LENGTH,
    messageText: localeMessageText('en'), senderId: null, language: 'en', voiceName: null, repeatDtmf: null, speechRate: null, regional: null,
    name, createdAt: now, updatedAt: now,
  };
  await ctx.store.insertMessageTemplate(template);
  return ok(template);
}

/** Renames a template and sets whether it is the default; a new default stops being another's. */
export async function updateTemplate(ctx: ServiceContext, principal: Principal, applicationId: string, id: string, changes: { name?: string; isDefault?: boolean }): Promise<Result<SmsVoiceTemplateRecord>> {
  const found = await getTemplate(ctx, principal, applicationId, id);
  if (!found.ok) return found;
  const all = await namedTemplates(ctx, principal, applicationId);
  if (!all.ok) return all;
  if (changes.name !== undefined && all.value.some((t) => t.name === changes.name && t.id !== id)) return fail('TEMPLATE_NAME_EXISTS', `A template named ${changes.name} exists already.`);
  const now = ctx.clock();
  if (changes.isDefault === true) {
    for (const other of all.value) if (other.id !== id && other.isDefault === true) await ctx.store.updateMessageTemplate({ ...other, isDefault: false, updatedAt: now });
  }
  const updated: SmsVoiceTemplateRecord = {
    ...found.value, ...(changes.name !== undefined ? { name: changes.name } : {}), ...(changes.isDefault !== undefined ? { isDefault: changes.isDefault } : {}), updatedAt: now,
  };
  await ctx.store.updateMessageTemplate(updated);
  return ok(updated);
}

/** Deletes a template without fragments (Vonage's not-empty-template otherwise). */
export async function deleteTemplate(ctx: ServiceContext, principal: Principal, applicationId: string, id: string): Promise<Result<null>> {
  const found = await getTemplate(ctx, principal, applicationId, id);
  if (!found.ok) return found;
  if ((found.value.texts ?? []).length > 0) return fail('TEMPLATE_NOT_EMPTY', 'The template still has fragments: delete them first.');
  return (await ctx.store.deleteMessageTemplate(principal.accountId, applicationId, id)) ? ok(null) : templateNotFound(id);
}

/** The template a start without template_id sends with, if the application has one. */
export async function defaultTemplateId(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<string | undefined> {
  const all = await namedTemplates(ctx, principal, applicationId);
  return all.ok ? all.value.find((t) => t.isDefault === true)?.id : undefined;
}

export async function listFragments(ctx: ServiceContext, principal: Principal, applicationId: string, templateId: string): Promise<Result<LocaleText[]>> {
  const found = await getTemplate(ctx, principal, applicationId, templateId);
  return found.ok ? listTemplateTexts(ctx, principal, applicationId, templateId) : found;
}

export async function getFragment(ctx: ServiceContext, principal: Principal, applicationId: string, templateId: string, fragmentId: string): Promise<Result<LocaleText>> {
  const found = await getTemplate(ctx, principal, applicationId, templateId);
  return found.ok ? getTemplateText(ctx, principal, applicationId, templateId, fragmentId) : found;
}

function checkedText(text: string): Result<string> {
  if (!text.includes('${code}')) return invalid('text', 'must contain ${code}, where the code goes');
  const converted = engineText(text);
  return converted === undefined ? invalid('text', 'must not contain {{ or }}') : ok(converted);
}

export async function createFragment(ctx: ServiceContext, principal: Principal, applicationId: string, templateId: string, input: { channel: string; locale: string; text: string }): Promise<Result<LocaleText>> {
  const found = await getTemplate(ctx, principal, applicationId, templateId);
  if (!found.ok) return found;
  const text = checkedText(input.text);
  if (!text.ok) return text;
  return addTemplateText(ctx, principal, applicationId, templateId, { channel: input.channel, locale: input.locale, text: text.value });
}

export async function updateFragment(ctx: ServiceContext, principal: Principal, applicationId: string, templateId: string, fragmentId: string, text: string): Promise<Result<LocaleText>> {
  const found = await getTemplate(ctx, principal, applicationId, templateId);
  if (!found.ok) return found;
  const converted = checkedText(text);
  if (!converted.ok) return converted;
  return updateTemplateText(ctx, principal, applicationId, templateId, fragmentId, converted.value);
}

export async function deleteFragment(ctx: ServiceContext, principal: Principal, applicationId: string, templateId: string, fragmentId: string): Promise<Result<null>> {
  const found = await getTemplate(ctx, principal, applicationId, templateId);
  return found.ok ? deleteTemplateText(ctx, principal, applicationId, templateId, fragmentId) : found;
}
