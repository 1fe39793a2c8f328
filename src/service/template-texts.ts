// Use cases of a message template's locale texts (domain/template-locales.ts): the one model behind
// our own API's /api/v1/applications/{id}/messages/{messageId}/texts, Vonage's template fragments and
// the custom templates Twilio's TemplateSid and Prelude's template_id name. A send only names the
// template and a locale; the message composer picks the text at delivery.
import { FieldErrors, fail, ok, type Result } from '../domain/errors.js';
import { generateResourceId } from '../domain/pin-generation.js';
import {
  canonicalLocale, isLocaleTag, LOCALE_TAG_MAX, LOCALE_TEXT_CHANNELS, LOCALE_TEXTS_MAX, type LocaleText, type LocaleTextChannel,
} from '../domain/template-locales.js';
import type { SmsVoiceTemplateRecord } from '../store/store.js';
import { applicationNotFound } from './applications.js';
import type { Principal, ServiceContext } from './context.js';
import { messageNotFound, messageTextError } from './message-templates.js';

export interface LocaleTextInput {
  /** sms or voice; null or absent: every phone channel. */
  channel?: string | null;
  locale: string;
  text: string;
}

/** Rounds of compare-and-set before an edit gives up: only edits of one template at the same moment retry. */
const EDIT_ROUNDS = 20;

/** The SMS/voice template a locale text belongs to (an email template has none). */
export async function smsVoiceTemplate(ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string): Promise<Result<SmsVoiceTemplateRecord>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  const template = await ctx.store.getMessageTemplate(principal.accountId, applicationId, messageId);
  if (!template) return messageNotFound(messageId);
  if (template.kind !== 'sms_voice') return fail('MESSAGE_KIND_MISMATCH', `Message ${messageId} is an email message: locale texts are for SMS/voice messages`);
  return ok(template);
}

export function templateTextNotFound(id: string) {
  return fail('TEMPLATE_TEXT_NOT_FOUND', `Locale text ${id} not found`);
}

function invalidField(field: string, message: string) {
  const errors = new FieldErrors();
  errors.add(field, message);
  return errors.result();
}

function checkInput(input: LocaleTextInput, errors: FieldErrors): LocaleTextChannel | null {
  if (!isLocaleTag(input.locale)) errors.add('locale', `must be a BCP-47 language tag such as en-us or pt-BR (at most ${LOCALE_TAG_MAX} characters)`);
  errors.add('text', messageTextError(input.text));
  const channel = input.channel ?? null;
  if (channel !== null && !(LOCALE_TEXT_CHANNELS as readonly string[]).includes(channel)) errors.add('channel', `must be one of ${LOCALE_TEXT_CHANNELS.join(', ')}, or left out for both`);
  return channel as LocaleTextChannel | null;
}

/**
 * Reads the template's texts, applies `edit`, and writes the result if nobody changed them meanwhile
 * (the store's compare-and-set): two edits at once both land, or one reads the other's and retries.
 */
async function editTexts<T>(
  ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string,
  edit: (texts: readonly LocaleText[], now: number) => Result<{ next: LocaleText[]; answer: T }>,
): Promise<Result<T>> {
  for (let round = 0; round < EDIT_ROUNDS; round++) {
    const template = await smsVoiceTemplate(ctx, principal, applicationId, messageId);
    if (!template.ok) return template;
    // The cached template may lag the texts another edit just wrote: the list is read from the database.
    const fresh = round === 0 ? template.value : (await ctx.store.listMessageTemplates(principal.accountId, applicationId)).find((t) => t.id === messageId);
    if (fresh?.kind !== 'sms_voice') return messageNotFound(messageId);
    const current = fresh.texts ?? [];
    const now = ctx.clock();
    const edited = edit(current, now);
    if (!edited.ok) return edited;
    if (await ctx.store.replaceTemplateTexts(principal.accountId, applicationId, messageId, current, edited.value.next, now)) return ok(edited.value.answer);
  }
  throw new Error(`the locale texts of message template ${messageId} kept changing under ${EDIT_ROUNDS} edits`);
}

export async function listTemplateTexts(ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string): Promise<Result<LocaleText[]>> {
  const template = await smsVoiceTemplate(ctx, principal, applicationId, messageId);
  return template.ok ? ok([...(template.value.texts ?? [])]) : template;
}

export async function getTemplateText(ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string, textId: string): Promise<Result<LocaleText>> {
  const texts = await listTemplateTexts(ctx, principal, applicationId, messageId);
  if (!texts.ok) return texts;
  const found = texts.value.find((t) => t.id === textId);
  return found ? ok(found) : templateTextNotFound(textId);
}

export async function addTemplateText(ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string, input: LocaleTextInput): Promise<Result<LocaleText>> {
  const errors = new FieldErrors();
  const channel = checkInput(input, errors);
  if (!errors.empty) return errors.result();
  const id = generateResourceId();
  return editTexts(ctx, principal, applicationId, messageId, (texts, now) => {
    const tag = canonicalLocale(input.locale);
    if (texts.some((t) => canonicalLocale(t.locale) === tag && t.channel === channel)) {
      return fail('TEMPLATE_TEXT_EXISTS', `Message ${messageId} has a text of locale ${input.locale} for ${channel ?? 'every channel'} already; update that one`);
    }
    if (texts.length >= LOCALE_TEXTS_MAX) return invalidField('locale', `a message template holds at most ${LOCALE_TEXTS_MAX} locale texts`);
    const added: LocaleText = { id, channel, locale: input.locale, text: input.text, createdAt: now, updatedAt: now };
    return ok({ next: [...texts, added], answer: added });
  });
}

export async function updateTemplateText(ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string, textId: string, text: string): Promise<Result<LocaleText>> {
  const errors = new FieldErrors();
  errors.add('text', messageTextError(text));
  if (!errors.empty) return errors.result();
  return editTexts(ctx, principal, applicationId, messageId, (texts, now) => {
    const found = texts.find((t) => t.id === textId);
    if (!found) return templateTextNotFound(textId);
    const updated: LocaleText = { ...found, text, updatedAt: now };
    return ok({ next: texts.map((t) => (t.id === textId ? updated : t)), answer: updated });
  });
}

export async function deleteTemplateText(ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string, textId: string): Promise<Result<null>> {
  return editTexts(ctx, principal, applicationId, messageId, (texts) => {
    if (!texts.some((t) => t.id === textId)) return templateTextNotFound(textId);
    return ok({ next: texts.filter((t) => t.id !== textId), answer: null });
  });
}
