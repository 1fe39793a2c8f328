// Use cases of 2FA message templates: SMS/voice ones under /messages, email ones under
// /email/messages, both listed and read through /messages.
import { FieldErrors, fail, ok, type Result } from '../domain/errors.js';
import { validateEmailSender } from '../domain/destinations.js';
import { normalizeLanguage } from '../domain/languages.js';
import { PIN_LENGTH_MAX, PIN_LENGTH_MIN, generateResourceId, type PinType } from '../domain/pin-generation.js';
import { validateSmsSender } from '../domain/sender-ids.js';
import { PIN_PLACEHOLDER, placeholderNames } from '../domain/template-rendering.js';
import type { EmailMessageTemplateRecord, MessageTemplateRecord, RegionalOptions, SmsVoiceTemplateRecord } from '../store/store.js';
import { applicationNotFound } from './applications.js';
import type { Principal, ServiceContext } from './context.js';
import { presentTemplate, readMessageTemplates } from './effective-records.js';

export const MESSAGE_TEXT_MAX = 1600;
export const DEFAULT_PIN_LENGTH = 4;

export interface SmsVoiceTemplateInput {
  messageText?: string;
  pinType?: PinType;
  pinLength?: number;
  senderId?: string;
  language?: string;
  voiceName?: string;
  repeatDTMF?: string;
  speechRate?: number;
  regional?: RegionalOptions;
}

export interface EmailMessageInput {
  emailTemplateId?: number;
  from?: string;
  pinType?: PinType;
  pinLength?: number;
  landingPageId?: string;
}

/** Why a message text (a template's default or one of its locale texts) cannot be sent, or undefined. */
export function messageTextError(text: string): string | undefined {
  if (!text.includes(PIN_PLACEHOLDER)) return `must contain the PIN placeholder ${PIN_PLACEHOLDER}`;
  if (text.length > MESSAGE_TEXT_MAX) return `must be at most ${MESSAGE_TEXT_MAX} characters`;
  if (placeholderNames(text).length > 20) return 'must use at most 20 distinct placeholders';
  return undefined;
}

export function messageNotFound(id: string) {
  return fail('MESSAGE_NOT_FOUND', `Message ${id} not found`);
}

function checkPinLength(pinLength: number | undefined, errors: FieldErrors): void {
  if (pinLength === undefined) return;
  if (!Number.isInteger(pinLength) || pinLength < PIN_LENGTH_MIN || pinLength > PIN_LENGTH_MAX) {
    errors.add('pinLength', `must be a whole number between ${PIN_LENGTH_MIN} and ${PIN_LENGTH_MAX}`);
  }
}

function applySmsVoiceInput(base: SmsVoiceTemplateRecord, input: SmsVoiceTemplateInput, errors: FieldErrors): SmsVoiceTemplateRecord {
  const t = { ...base };
  if (input.messageText !== undefined) {
    errors.add('messageText', messageTextError(input.messageText));
    t.messageText = input.messageText;
  }
  if (input.pinType !== undefined) t.pinType = input.pinType;
  checkPinLength(input.pinLength, errors);
  if (input.pinLength !== undefined) t.pinLength = input.pinLength;
  if (input.senderId !== undefined) {
    errors.add('senderId', validateSmsSender(input.senderId));
    t.senderId = input.senderId;
  }
  if (input.language !== undefined) {
    const language = normalizeLanguage(input.language);
    if (language === null) errors.add('language', 'is not a supported language code');
    else t.language = language;
  }
  if (input.voiceName !== undefined) t.voiceName = input.voiceName;
  if (input.repeatDTMF !== undefined) t.repeatDtmf = input.repeatDTMF;
  if (input.speechRate !== undefined) {
    if (!(input.speechRate >= 0.5 && input.speechRate <= 2)) errors.add('speechRate', 'must be between 0.5 and 2');
    t.speechRate = input.speechRate;
  }
  if (input.regional !== undefined) t.regional = input.regional;
  return t;
}

export async function createSmsVoiceTemplate(ctx: ServiceContext, principal: Principal, applicationId: string, input: SmsVoiceTemplateInput & { messageText: string; pinType: PinType }): Promise<Result<SmsVoiceTemplateRecord>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  const now = ctx.clock();
  const blank: SmsVoiceTemplateRecord = {
    kind: 'sms_voice', id: generateResourceId(), accountId: principal.accountId, applicationId, pinType: input.pinType,
    pinLength: DEFAULT_PIN_LENGTH, messageText: '', senderId: null, language: 'en', voiceName: null, repeatDtmf: null,
    speechRate: null, regional: null, createdAt: now, updatedAt: now,
  };
  const errors = new FieldErrors();
  const template = applySmsVoiceInput(blank, input, errors);
  if (!errors.empty) return errors.result();
  await ctx.store.insertMessageTemplate(template);
  return ok(presentTemplate(ctx, template));
}

async function findTemplate(ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string): Promise<Result<MessageTemplateRecord>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  const template = await ctx.store.getMessageTemplate(principal.accountId, applicationId, messageId);
  return template ? ok(template) : messageNotFound(messageId);
}

export async function updateSmsVoiceTemplate(ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string, input: SmsVoiceTemplateInput): Promise<Result<SmsVoiceTemplateRecord>> {
  const found = await findTemplate(ctx, principal, applicationId, messageId);
  if (!found.ok) return found;
  if (found.value.kind !== 'sms_voice') {
    return fail('MESSAGE_KIND_MISMATCH', `Message ${messageId} is an email message; update it with PUT /2fa/2/applications/${applicationId}/email/messages/${messageId}`);
  }
  const errors = new FieldErrors();
  const template = applySmsVoiceInput(found.value, input, errors);
  if (!errors.empty) return errors.result();
  template.updatedAt = ctx.clock();
  await ctx.store.updateMessageTemplate(template);
  return ok(presentTemplate(ctx, template));
}

async function applyEmailInput(ctx: ServiceContext, principal: Principal, base: EmailMessageTemplateRecord, input: EmailMessageInput, errors: FieldErrors): Promise<EmailMessageTemplateRecord> {
  const t = { ...base };
  if (input.emailTemplateId !== undefined) {
    const emailTemplate = await ctx.store.getEmailTemplate(principal.accountId, input.emailTemplateId);
    if (!emailTemplate) errors.add('emailTemplateId', `email template ${input.emailTemplateId} does not exist; create it with POST /api/v1/email-templates`);
    t.emailTemplateId = input.emailTemplateId;
  }
  if (input.from !== undefined) {
    errors.add('from', validateEmailSender(input.from));
    t.from = input.from;
  }
  if (input.pinType !== undefined) t.pinType = input.pinType;
  checkPinLength(input.pinLength, errors);
  if (input.pinLength !== undefined) t.pinLength = input.pinLength;
  if (input.landingPageId !== undefined) t.landingPageId = input.landingPageId;
  return t;
}

export async function createEmailMessageTemplate(ctx: ServiceContext, principal: Principal, applicationId: string, input: EmailMessageInput & { emailTemplateId: number }): Promise<Result<EmailMessageTemplateRecord>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  const now = ctx.clock();
  const blank: EmailMessageTemplateRecord = {
    kind: 'email', id: generateResourceId(), accountId: principal.accountId, applicationId, pinType: 'NUMERIC',
    pinLength: DEFAULT_PIN_LENGTH, emailTemplateId: input.emailTemplateId, from: null, landingPageId: null, createdAt: now, updatedAt: now,
  };
  const errors = new FieldErrors();
  const template = await applyEmailInput(ctx, principal, blank, input, errors);
  if (!errors.empty) return errors.result();
  await ctx.store.insertMessageTemplate(template);
  return ok(presentTemplate(ctx, template));
}

export async function updateEmailMessageTemplate(ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string, input: EmailMessageInput): Promise<Result<EmailMessageTemplateRecord>> {
  const found = await findTemplate(ctx, principal, applicationId, messageId);
  if (!found.ok) return found;
  if (found.value.kind !== 'email') {
    return fail('MESSAGE_KIND_MISMATCH', `Message ${messageId} is an SMS/voice message; update it with PUT /2fa/2/applications/${applicationId}/messages/${messageId}`);
  }
  const errors = new FieldErrors();
  const template = await applyEmailInput(ctx, principal, found.value, input, errors);
  if (!errors.empty) return errors.result();
  template.updatedAt = ctx.clock();
  await ctx.store.updateMessageTemplate(template);
  return ok(presentTemplate(ctx, template));
}

export async function getMessageTemplate(ctx: ServiceContext, principal: Principal, applicationId: string, messageId: string): Promise<Result<MessageTemplateRecord>> {
  const found = await findTemplate(ctx, principal, applicationId, messageId);
  return found.ok ? ok(presentTemplate(ctx, found.value)) : found;
}

export async function listMessageTemplates(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<MessageTemplateRecord[]>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  return ok(await readMessageTemplates(ctx, principal.accountId, applicationId));
}
