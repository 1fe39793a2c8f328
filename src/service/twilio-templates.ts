// Twilio Verify's Templates over the engine's message templates: the built-in one (domain/twilio-
// templates.ts) and the account's custom templates, which are its applications' named SMS/voice
// message templates (made as Vonage templates, or named otherwise) with their locale texts as
// translations. A start's TemplateSid names one of them; nothing is copied (service/template-texts.ts).
import { canonicalLocale } from '../domain/template-locales.js';
import { messageIdOfTemplateSid, templateSid } from '../domain/twilio-sids.js';
import { BUILT_IN_TEMPLATES, type BuiltInTemplate } from '../domain/twilio-templates.js';
import type { SmsVoiceTemplateRecord } from '../store/store.js';
import type { Principal, ServiceContext } from './context.js';
import { readMessageTemplate } from './effective-records.js';

/** The engine's `{{pin}}` as Twilio's `{{code}}`. */
const twilioText = (text: string) => text.replaceAll('{{pin}}', '{{code}}');

/** A custom template as Twilio lists it: its SMS texts by locale, the default text under the template's language. */
function asTwilioTemplate(t: SmsVoiceTemplateRecord & { name: string }): BuiltInTemplate {
  const translations: Record<string, string> = { [t.language]: twilioText(t.messageText) };
  const seen = new Set([canonicalLocale(t.language)]);
  // A locale's SMS text before its text of every channel; a voice-only text is no SMS translation.
  const texts = [...(t.texts ?? [])].filter((x) => x.channel !== 'voice').sort((a, b) => Number(a.channel === null) - Number(b.channel === null));
  for (const text of texts) {
    if (seen.has(canonicalLocale(text.locale))) continue;
    seen.add(canonicalLocale(text.locale));
    translations[text.locale] = twilioText(text.text);
  }
  return { sid: templateSid(t.id), friendlyName: t.name, channels: ['sms', 'voice'], translations, createdAt: t.createdAt, defaultLocale: t.language };
}

/** The built-in template, then the named templates of the account's applications. */
export async function listTemplates(ctx: ServiceContext, principal: Principal): Promise<BuiltInTemplate[]> {
  const custom: BuiltInTemplate[] = [];
  for (const app of await ctx.store.listApplications(principal.accountId)) {
    for (const t of await ctx.store.listMessageTemplates(principal.accountId, app.id)) {
      if (t.kind === 'sms_voice' && typeof t.name === 'string') custom.push(asTwilioTemplate(t as SmsVoiceTemplateRecord & { name: string }));
    }
  }
  return [...BUILT_IN_TEMPLATES, ...custom];
}

/**
 * The message template a TemplateSid names in the Service's application: undefined for the built-in
 * one (the Service's own texts, per locale); `false` when it names no SMS/voice template there.
 */
export async function customTemplateOf(ctx: ServiceContext, principal: Principal, applicationId: string, sid: string): Promise<SmsVoiceTemplateRecord | undefined | false> {
  if (BUILT_IN_TEMPLATES.some((t) => t.sid === sid)) return undefined;
  const messageId = messageIdOfTemplateSid(sid);
  const template = messageId === undefined ? undefined : await readMessageTemplate(ctx, principal.accountId, applicationId, messageId);
  return template?.kind === 'sms_voice' ? template : false;
}
