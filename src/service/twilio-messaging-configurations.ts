// Use cases of Twilio Verify's Messaging Configurations: the messaging service (MG...) a Service names
// per country, or for every country (`all`). Stored and answered as Twilio does; twofa's senders are
// chosen by its own transports (TWOFA_SMS_DSN and the message templates' sender ids), not by these.
import { fail, ok, type Result } from '../domain/errors.js';
import type { TwilioMessagingConfigurationRow } from '../store/twilio-store.js';
import type { Principal, ServiceContext } from './context.js';
import { getService, type TwilioService } from './twilio-services.js';

export interface MessagingConfigurationInService {
  service: TwilioService;
  configuration: TwilioMessagingConfigurationRow;
}

const invalid = (field: string, message: string) => fail('INVALID_REQUEST', `Invalid parameter: ${field}`, { validationErrors: { [field]: [message] } });

/** `all`, or an ISO 3166-1 alpha-2 code in either case; undefined otherwise. */
function countryOf(input: string): string | undefined {
  if (input.toLowerCase() === 'all') return 'all';
  return /^[A-Za-z]{2}$/.test(input) ? input.toUpperCase() : undefined;
}

async function found(ctx: ServiceContext, principal: Principal, serviceSid: string, countryInput: string): Promise<Result<MessagingConfigurationInService>> {
  const service = await getService(ctx, principal, serviceSid);
  if (!service.ok) return service;
  const country = countryOf(countryInput);
  const configuration = country === undefined ? undefined
    : (await ctx.store.twilio.listMessagingConfigurations(principal.accountId, service.value.application.id)).find((c) => c.country === country);
  return configuration ? ok({ service: service.value, configuration }) : fail('RESOURCE_NOT_FOUND', `The requested resource /Services/${serviceSid}/MessagingConfigurations/${countryInput} was not found`);
}

export async function createMessagingConfiguration(ctx: ServiceContext, principal: Principal, serviceSid: string, input: { country: string; messagingServiceSid: string }): Promise<Result<MessagingConfigurationInService>> {
  const service = await getService(ctx, principal, serviceSid);
  if (!service.ok) return service;
  const country = countryOf(input.country);
  if (country === undefined) return invalid('Country', 'must be an ISO 3166-1 alpha-2 code or all');
  if (!/^MG[0-9a-fA-F]{32}$/.test(input.messagingServiceSid)) return invalid('MessagingServiceSid', 'must be MG + 32 hex');
  const now = ctx.clock();
  const configuration: TwilioMessagingConfigurationRow = {
    applicationId: service.value.application.id, accountId: principal.accountId, country, messagingServiceSid: input.messagingServiceSid, createdAt: now, updatedAt: now,
  };
  if (!(await ctx.store.twilio.insertMessagingConfiguration(configuration))) {
    return fail('MESSAGING_CONFIGURATION_EXISTS', `The service has a messaging configuration for ${country} already`);
  }
  return ok({ service: service.value, configuration });
}

export async function listMessagingConfigurations(ctx: ServiceContext, principal: Principal, serviceSid: string): Promise<Result<MessagingConfigurationInService[]>> {
  const service = await getService(ctx, principal, serviceSid);
  if (!service.ok) return service;
  const rows = await ctx.store.twilio.listMessagingConfigurations(principal.accountId, service.value.application.id);
  return ok(rows.map((configuration) => ({ service: service.value, configuration })));
}

export const getMessagingConfiguration = found;

export async function updateMessagingConfiguration(ctx: ServiceContext, principal: Principal, serviceSid: string, country: string, input: { messagingServiceSid: string }): Promise<Result<MessagingConfigurationInService>> {
  const current = await found(ctx, principal, serviceSid, country);
  if (!current.ok) return current;
  if (!/^MG[0-9a-fA-F]{32}$/.test(input.messagingServiceSid)) return invalid('MessagingServiceSid', 'must be MG + 32 hex');
  const configuration = { ...current.value.configuration, messagingServiceSid: input.messagingServiceSid, updatedAt: ctx.clock() };
  await ctx.store.twilio.updateMessagingConfiguration(configuration);
  return ok({ ...current.value, configuration });
}

export async function deleteMessagingConfiguration(ctx: ServiceContext, principal: Principal, serviceSid: string, country: string): Promise<Result<null>> {
  const current = await found(ctx, principal, serviceSid, country);
  if (!current.ok) return current;
  await ctx.store.twilio.deleteMessagingConfiguration(principal.accountId, current.value.service.application.id, current.value.configuration.country);
  return ok(null);
}
