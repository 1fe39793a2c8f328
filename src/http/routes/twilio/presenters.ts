// Engine records as Twilio's answers: SIDs, ISO 8601 dates, absolute `url` and `links` pointing back
// at the host that was asked (the SDKs follow them verbatim), Twilio's page `meta`.
import { formatMicros } from '../../../domain/money.js';
import type { FastifyRequest } from 'fastify';
import { accountSid, serviceSid, verificationSid } from '../../../domain/twilio-sids.js';
import { DEFAULT_LOCALE, type BuiltInTemplate } from '../../../domain/twilio-templates.js';
import type { DeliveryStatus } from '../../../store/store.js';
import type { TwilioAttemptRow } from '../../../store/twilio-store.js';
import type { TwilioService } from '../../../service/twilio-services.js';
import type { Verification } from '../../../service/twilio-verifications.js';
import type { AttemptsSummary } from '../../../service/twilio-attempts.js';
import type { BucketInService, RateLimitInService } from '../../../service/twilio-rate-limits.js';
import type { SafeListEntry } from '../../../service/twilio-safe-list.js';
import type { MessagingConfigurationInService } from '../../../service/twilio-messaging-configurations.js';
import type { WebhookInService } from '../../../service/twilio-webhooks.js';
import { definedFields, numberOrUndefined } from '../../request-fields.js';
import { SERVICE_SETTINGS } from './schemas.js';

/** 2015-07-30T20:00:00Z: seconds, as Twilio writes them. */
export const isoDate = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function baseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}/v2`;
}

export function toService(request: FastifyRequest, service: TwilioService) {
  const url = `${baseUrl(request)}/Services/${serviceSid(service.application.id)}`;
  const s = service.settings;
  return {
    sid: serviceSid(service.application.id),
    account_sid: accountSid(service.application.accountId),
    friendly_name: service.application.name,
    code_length: service.codeLength,
    lookup_enabled: s.lookup_enabled,
    psd2_enabled: s.psd2_enabled,
    skip_sms_to_landlines: s.skip_sms_to_landlines,
    dtmf_input_required: s.dtmf_input_required,
    tts_name: s.tts_name,
    do_not_share_warning_enabled: s.do_not_share_warning_enabled,
    custom_code_enabled: s.custom_code_enabled,
    push: s.push,
    totp: s.totp,
    default_template_sid: s.default_template_sid,
    whatsapp: s.whatsapp,
    passkeys: s.passkeys,
    verify_event_subscription_enabled: s.verify_event_subscription_enabled,
    date_created: isoDate(service.createdAt),
    date_updated: isoDate(service.updatedAt),
    url,
    links: {
      verification_checks: `${url}/VerificationCheck`, verifications: `${url}/Verifications`, rate_limits: `${url}/RateLimits`,
      messaging_configurations: `${url}/MessagingConfigurations`, entities: `${url}/Entities`, webhooks: `${url}/Webhooks`, access_tokens: `${url}/AccessTokens`,
    },
  };
}

/** What a form body of Services (create or update) changes: name, code length and settings. */
export function serviceChanges(body: Record<string, string | undefined>) {
  return { ...definedFields({ friendlyName: body['FriendlyName'], codeLength: numberOrUndefined(body['CodeLength']) }), settings: settingsPatch(body) };
}

/** The settings parameters of a form body as a (nested) settings patch. */
export function settingsPatch(body: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [name, path, kind] of SERVICE_SETTINGS) {
    const raw = body[name];
    if (typeof raw !== 'string') continue;
    const value = kind === 'boolean' ? raw === 'true' : kind === 'integer' ? Number(raw) : kind === 'list' ? raw.split(',').map((o) => o.trim()).filter((o) => o !== '') : raw;
    let target = patch;
    for (const key of path.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
    target[path[path.length - 1]!] = value;
  }
  return patch;
}

/** The fields a Verification and a VerificationCheck answer share. */
function verificationFields(v: Verification, valid: boolean) {
  return {
    sid: verificationSid(v.pin.id),
    service_sid: serviceSid(v.service.application.id),
    account_sid: accountSid(v.pin.accountId),
    to: v.to,
    channel: v.channel,
    status: v.status,
    valid,
    amount: v.row?.amount ?? null,
    payee: v.row?.payee ?? null,
    date_created: isoDate(v.pin.createdAt),
    date_updated: isoDate(v.updatedAt),
  };
}

export function toVerification(request: FastifyRequest, v: Verification) {
  const fields = verificationFields(v, v.status === 'approved');
  return {
    ...fields,
    lookup: {},
    send_code_attempts: (v.row?.sendCodeAttempts ?? []).map((a) => ({ time: isoDate(a.time), channel: a.channel, attempt_sid: a.attemptSid })),
    sna: null,
    url: `${baseUrl(request)}/Services/${fields.service_sid}/Verifications/${fields.sid}`,
  };
}

export function toVerificationCheck(v: Verification, valid: boolean) {
  return { ...verificationFields(v, valid), sna_attempts_error_codes: [] };
}

export function rateLimitPath({ service, rateLimit }: RateLimitInService): string {
  return `/Services/${serviceSid(service.application.id)}/RateLimits/${rateLimit.sid}`;
}

export function toRateLimit(request: FastifyRequest, found: RateLimitInService) {
  const { service, rateLimit } = found;
  const url = `${baseUrl(request)}${rateLimitPath(found)}`;
  return {
    sid: rateLimit.sid, service_sid: serviceSid(service.application.id), account_sid: accountSid(rateLimit.accountId),
    unique_name: rateLimit.uniqueName, description: rateLimit.description,
    date_created: isoDate(rateLimit.createdAt), date_updated: isoDate(rateLimit.updatedAt), url, links: { buckets: `${url}/Buckets` },
  };
}

export function toBucket(request: FastifyRequest, found: BucketInService) {
  const { service, bucket } = found;
  return {
    sid: bucket.sid, rate_limit_sid: bucket.rateLimitSid, service_sid: serviceSid(service.application.id), account_sid: accountSid(bucket.accountId),
    max: bucket.max, interval: bucket.interval, date_created: isoDate(bucket.createdAt), date_updated: isoDate(bucket.updatedAt),
    url: `${baseUrl(request)}${rateLimitPath(found)}/Buckets/${bucket.sid}`,
  };
}

export function toMessagingConfiguration(request: FastifyRequest, { service, configuration }: MessagingConfigurationInService) {
  const sid = serviceSid(service.application.id);
  return {
    account_sid: accountSid(configuration.accountId), service_sid: sid, country: configuration.country, messaging_service_sid: configuration.messagingServiceSid,
    date_created: isoDate(configuration.createdAt), date_updated: isoDate(configuration.updatedAt),
    url: `${baseUrl(request)}/Services/${sid}/MessagingConfigurations/${configuration.country}`,
  };
}

export function toWebhook(request: FastifyRequest, { service, webhook }: WebhookInService) {
  const sid = serviceSid(service.application.id);
  return {
    sid: webhook.sid, service_sid: sid, account_sid: accountSid(webhook.accountId), friendly_name: webhook.friendlyName, event_types: webhook.eventTypes,
    status: webhook.status, version: webhook.version, webhook_url: webhook.webhookUrl, webhook_method: 'POST' as const,
    date_created: isoDate(webhook.createdAt), date_updated: isoDate(webhook.updatedAt), url: `${baseUrl(request)}/Services/${sid}/Webhooks/${webhook.sid}`,
  };
}

/** The `+` stays raw in the URL, as Twilio writes it. */
export function toSafeListNumber(request: FastifyRequest, entry: SafeListEntry) {
  return { sid: entry.sid, phone_number: entry.phoneNumber, url: `${baseUrl(request)}/SafeList/Numbers/${entry.phoneNumber}` };
}

export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 1000;

const PAGING = new Set(['PageSize', 'Page', 'PageToken']);

/**
 * Twilio's page `meta` for page `index` of `path`: Page is the index and PageToken echoes it for the
 * SDKs; the request's other query parameters (filters) stay in every URL, which the SDKs follow as given.
 */
export function pageMeta(request: FastifyRequest, path: string, key: string, index: number, pageSize: number, hasNext: boolean) {
  const filters = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query as Record<string, unknown>)) {
    if (!PAGING.has(name) && value !== undefined) for (const v of ([] as unknown[]).concat(value)) filters.append(name, String(v));
  }
  const prefix = filters.size > 0 ? `${filters.toString()}&` : '';
  const urlOf = (i: number) => `${baseUrl(request)}${path}?${prefix}PageSize=${pageSize}&Page=${i}${i > 0 ? `&PageToken=PA${i}` : ''}`;
  return {
    page: index, page_size: pageSize, first_page_url: urlOf(0),
    previous_page_url: index > 0 ? urlOf(index - 1) : null,
    url: urlOf(index),
    next_page_url: hasNext ? urlOf(index + 1) : null,
    key,
  };
}

/** The page index and size a list request asks for. */
export function pageOf(query: { PageSize?: string; Page?: string }): { index: number; size: number } {
  return { index: Number(query.Page ?? 0), size: Math.min(PAGE_SIZE_MAX, Math.max(1, Number(query.PageSize ?? PAGE_SIZE_DEFAULT))) };
}

/** The page the request asks for of `all`, a list held whole, as Twilio's list answer: `{ [key]: [...], meta }`. */
export function listPage<K extends string, T, R>(request: FastifyRequest, path: string, key: K, all: readonly T[], present: (item: T) => R) {
  const { index, size } = pageOf(request.query as { PageSize?: string; Page?: string });
  const start = index * size;
  const meta = pageMeta(request, path, key, index, size, start + size < all.length);
  return { [key]: all.slice(start, start + size).map(present), meta } as { [P in K]: R[] } & { meta: typeof meta };
}

/** GET /v2/Attempts/Summary. */
export function toAttemptsSummary(request: FastifyRequest, s: AttemptsSummary) {
  return {
    total_attempts: s.totalAttempts, total_converted: s.totalConverted, total_unconverted: s.totalUnconverted,
    conversion_rate_percentage: s.conversionRatePercentage, url: `${baseUrl(request)}/Attempts/Summary`,
  };
}

/** A built-in template, with its translations keyed by locale. */
export function toTemplate(request: FastifyRequest, t: BuiltInTemplate) {
  return {
    sid: t.sid, account_sid: accountSid(request.principal.accountId), friendly_name: t.friendlyName, channels: [...t.channels],
    translations: Object.fromEntries(Object.entries(t.translations).map(([locale, text]) => [locale, {
      is_default_translation: locale === (t.defaultLocale ?? DEFAULT_LOCALE), status: 'approved', locale, text, date_updated: isoDate(t.createdAt), date_created: isoDate(t.createdAt),
    }])),
  };
}

const MESSAGE_STATUS: Record<DeliveryStatus, string> = {
  queued: 'queued', sent: 'sent', delivered: 'delivered', undelivered: 'undelivered', failed: 'failed', not_sent: 'failed',
};

export function toAttempt(request: FastifyRequest, a: TwilioAttemptRow, now: number) {
  const verification = verificationSid(a.pinId);
  return {
    sid: a.sid,
    account_sid: accountSid(a.accountId),
    service_sid: serviceSid(a.applicationId),
    verification_sid: verification,
    date_created: isoDate(a.createdAt),
    date_updated: isoDate(a.updatedAt),
    conversion_status: a.verifiedAt !== null ? 'converted' as const : 'unconverted' as const,
    channel: a.channel,
    // Twilio writes the currency in lower case ("usd"); null until a transport took the message, or when it has no known price.
    price: a.price === null ? null : { value: formatMicros(a.price.amount), currency: a.price.currency.toLowerCase() },
    channel_data: {
      verification_sid: verification,
      to: a.pinChannel === 'email' ? a.destination : `+${a.destination}`,
      status: a.verifiedAt !== null ? 'confirmed' as const : a.expiresAt <= now ? 'expired' as const : 'unconfirmed' as const,
      message_status: MESSAGE_STATUS[a.deliveryStatus],
      error_code: null, country: a.country, code_length: null, locale: a.pinChannel === 'email' ? null : 'en', mcc: null, mnc: null, carrier: null,
    },
    url: `${baseUrl(request)}/Attempts/${a.sid}`,
  };
}
