// Use cases of email templates: the service's own stand-in for the "broadcast email template
// created beforehand in the provider's web portal" that a 2FA email message's emailTemplateId names.
import { validateEmailSender } from '../domain/destinations.js';
import { FieldErrors, fail, ok, type Result } from '../domain/errors.js';
import { placeholderNames } from '../domain/template-rendering.js';
import type { EmailTemplateFields, EmailTemplateRecord } from '../store/store.js';
import type { Principal, ServiceContext } from './context.js';

export const EMAIL_SUBJECT_MAX = 998; // RFC 5322 line length
export const EMAIL_BODY_MAX = 50_000;

export interface EmailTemplateInput {
  name: string;
  from?: string | null;
  subject: string;
  html?: string | null;
  text?: string | null;
}

function checkFields(input: EmailTemplateInput): Result<EmailTemplateFields> {
  const errors = new FieldErrors();
  if (input.name.trim() === '') errors.add('name', 'must not be blank');
  if (input.name.length > 255) errors.add('name', 'must be at most 255 characters');
  if (input.from !== undefined && input.from !== null) errors.add('from', validateEmailSender(input.from));
  if (input.subject.trim() === '') errors.add('subject', 'must not be blank');
  if (input.subject.length > EMAIL_SUBJECT_MAX) errors.add('subject', `must be at most ${EMAIL_SUBJECT_MAX} characters`);
  // A header must never carry a line break: it would let template content inject headers.
  if (/[\r\n]/.test(input.subject)) errors.add('subject', 'must be a single line');
  const html = input.html ?? null;
  const text = input.text ?? null;
  if (html === null && text === null) errors.add('text', 'a template needs html, text or both');
  for (const [field, body] of [['html', html], ['text', text]] as const) {
    if (body !== null && body.length > EMAIL_BODY_MAX) errors.add(field, `must be at most ${EMAIL_BODY_MAX} characters`);
  }
  const usesPin = [input.subject, html ?? '', text ?? ''].some((part) => placeholderNames(part).includes('pin'));
  if (!usesPin) errors.add('text', 'the subject, html or text must contain the PIN placeholder {{pin}}');
  if (!errors.empty) return errors.result();
  return ok({ name: input.name, from: input.from ?? null, subject: input.subject, html, text });
}

function emailTemplateNotFound(id: number) {
  return fail('EMAIL_TEMPLATE_NOT_FOUND', `Email template ${id} not found`);
}

export async function createEmailTemplate(ctx: ServiceContext, principal: Principal, input: EmailTemplateInput): Promise<Result<EmailTemplateRecord>> {
  const fields = checkFields(input);
  if (!fields.ok) return fields;
  return ok(await ctx.store.insertEmailTemplate(principal.accountId, fields.value, ctx.clock()));
}

export async function getEmailTemplate(ctx: ServiceContext, principal: Principal, id: number): Promise<Result<EmailTemplateRecord>> {
  const template = await ctx.store.getEmailTemplate(principal.accountId, id);
  return template ? ok(template) : emailTemplateNotFound(id);
}

export async function listEmailTemplates(ctx: ServiceContext, principal: Principal): Promise<EmailTemplateRecord[]> {
  return ctx.store.listEmailTemplates(principal.accountId);
}

/** PUT replaces the whole template (our own API, so REST semantics rather than Infobip's merge). */
export async function updateEmailTemplate(ctx: ServiceContext, principal: Principal, id: number, input: EmailTemplateInput): Promise<Result<EmailTemplateRecord>> {
  const existing = await ctx.store.getEmailTemplate(principal.accountId, id);
  if (!existing) return emailTemplateNotFound(id);
  const fields = checkFields(input);
  if (!fields.ok) return fields;
  const updated = await ctx.store.updateEmailTemplate(principal.accountId, id, fields.value, ctx.clock());
  return updated ? ok(updated) : emailTemplateNotFound(id);
}

export async function deleteEmailTemplate(ctx: ServiceContext, principal: Principal, id: number): Promise<Result<null>> {
  const existing = await ctx.store.getEmailTemplate(principal.accountId, id);
  if (!existing) return emailTemplateNotFound(id);
  const users = await ctx.store.messagesUsingEmailTemplate(principal.accountId, id);
  if (users.length > 0) {
    return fail('EMAIL_TEMPLATE_IN_USE', `Email template ${id} is used by 2FA email message(s) ${users.join(', ')}; point them at another template first`);
  }
  await ctx.store.deleteEmailTemplate(principal.accountId, id);
  return ok(null);
}
