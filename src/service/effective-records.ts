// Applications and message templates as the security profile makes them (domain/security-profile.ts):
// every use case that sends, verifies or shows one reads it through here, so a floor applies
// everywhere at once. Updates merge into the stored record instead, which keeps what the client wrote.
import { effectiveApplication, effectiveTemplate, type SecurityProfile } from '../domain/security-profile.js';
import type { ApplicationRecord, MessageTemplateRecord } from '../store/store.js';
import type { ServiceContext } from './context.js';

export function profileOf(ctx: ServiceContext): SecurityProfile {
  return ctx.securityProfile ?? 'compatible';
}

export function presentApplication(ctx: ServiceContext, app: ApplicationRecord): ApplicationRecord {
  return effectiveApplication(profileOf(ctx), app);
}

export function presentTemplate<T extends MessageTemplateRecord>(ctx: ServiceContext, template: T): T {
  return effectiveTemplate(profileOf(ctx), template);
}

export async function readApplication(ctx: ServiceContext, accountId: string, applicationId: string): Promise<ApplicationRecord | undefined> {
  const app = await ctx.store.getApplication(accountId, applicationId);
  return app && presentApplication(ctx, app);
}

export async function readMessageTemplate(ctx: ServiceContext, accountId: string, applicationId: string, messageId: string): Promise<MessageTemplateRecord | undefined> {
  const template = await ctx.store.getMessageTemplate(accountId, applicationId, messageId);
  return template && presentTemplate(ctx, template);
}

export async function readMessageTemplates(ctx: ServiceContext, accountId: string, applicationId: string): Promise<MessageTemplateRecord[]> {
  return (await ctx.store.listMessageTemplates(accountId, applicationId)).map((t) => presentTemplate(ctx, t));
}
