// The SMS autofill setting of a 2FA message template (domain/autofill.ts), managed under /api/v1 so
// that nothing of it appears in Infobip-shaped bodies.
import { autofillErrors, withAutofill, type Autofill } from '../domain/autofill.js';
import { FieldErrors, fail, ok, type Result } from '../domain/errors.js';
import { placeholderNames, renderedSmsInfo } from '../domain/template-rendering.js';
import type { SmsVoiceTemplateRecord } from '../store/store.js';
import { applicationNotFound } from './applications.js';
import type { Principal, ServiceContext } from './context.js';
import { messageNotFound } from './message-templates.js';

const NONE: Autofill = { webOtpDomain: null, androidAppHash: null };

/**
 * SMS Retriever reads a message of at most 140 bytes: one SMS part (160 GSM-7 characters or 70
 * UCS-2 ones). Measured with a PIN of the template's length and every other placeholder empty: the
 * least the message can be; a send whose values make it longer is refused at the send.
 */
export function appHashTooLong(template: Pick<SmsVoiceTemplateRecord, 'messageText' | 'pinLength'>, autofill: Autofill, values?: Record<string, string>): boolean {
  if (autofill.androidAppHash === null) return false;
  const text = withAutofill(template.messageText, autofill);
  const filled = values ?? Object.fromEntries(placeholderNames(text).map((name) => [name, '']));
  return renderedSmsInfo(text, template.pinLength, filled).segments > 1;
}

async function smsTemplate(ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string): Promise<Result<SmsVoiceTemplateRecord>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  const template = await ctx.store.getMessageTemplate(principal.accountId, applicationId, messageId);
  if (!template) return messageNotFound(messageId);
  if (template.kind !== 'sms_voice') return fail('MESSAGE_KIND_MISMATCH', `Message ${messageId} is an email message; autofill applies to SMS messages`);
  return ok(template);
}

export async function getTemplateAutofill(ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string): Promise<Result<Autofill>> {
  const found = await smsTemplate(ctx, principal, applicationId, messageId);
  return found.ok ? ok(found.value.autofill ?? NONE) : found;
}

/** Replaces the setting; both fields null (or absent) turns autofill off. */
export async function setTemplateAutofill(ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string, input: Partial<Autofill>): Promise<Result<Autofill>> {
  const found = await smsTemplate(ctx, principal, applicationId, messageId);
  if (!found.ok) return found;
  const autofill: Autofill = { webOtpDomain: input.webOtpDomain ?? null, androidAppHash: input.androidAppHash ?? null };
  const errors = new FieldErrors();
  for (const [field, message] of Object.entries(autofillErrors(autofill))) errors.add(field, message);
  if (errors.empty && appHashTooLong(found.value, autofill)) {
    errors.add('androidAppHash', 'the message with the app hash would be longer than 140 bytes (one SMS), which SMS Retriever does not read; shorten the message text');
  }
  if (!errors.empty) return errors.result();
  const off = autofill.webOtpDomain === null && autofill.androidAppHash === null;
  await ctx.store.updateMessageTemplate({ ...found.value, autofill: off ? null : autofill, updatedAt: ctx.clock() });
  return ok(autofill);
}
