// `vonage://API_KEY:API_SECRET@default?from=Acme`: SMS through the Vonage (Nexmo) SMS API, one
// form POST per message to /sms/json with api_key, api_secret, from, to and text (and
// type=unicode when the text does not fit GSM-7). Vonage answers HTTP 200 for accepted and refused
// messages alike; the verdict is `messages[].status`, "0" meaning accepted.
//
// Status table (https://developer.vonage.com/en/api-errors/sms) and how we treat it:
//   0  Success                         -> sent; messages[0]['message-id'] is the id receipts carry
//   1  Throttled                       -> retry (the account's throughput limit)
//   5  Internal Error                  -> retry (Vonage's own fault)
//   10 Too Many Existing Binds         -> retry (Vonage: "back-off and retry")
//   2  Missing Parameters, 3 Invalid Parameters, 4 Invalid Credentials, 6 Invalid Message,
//   7  Number Barred, 8 Partner Account Barred, 9 Partner Quota Violation (no credit),
//   11 Account Not Enabled For HTTP, 12 Message Too Long, 14 Invalid Signature,
//   15 Invalid Sender Address, 22 Invalid Network Code, 23 Invalid Callback URL,
//   29 Non-Whitelisted Destination, 32 Signature And API Secret Disallowed,
//   33 Number De-activated, and any status not listed -> failed at once: none clears by itself
//   within a PIN's lifetime (9 needs someone to top up the account), and a failover pair moves on
//   to its next transport straight away instead of waiting out our retries.
//
// India DLT: a message whose route sets `regulatory` ids carries them as the SMS API's `entity-id`
// (the Principal Entity id) and `content-id` (the content template id).
//
// Voice (TWOFA_VOICE_DSN): `vonage://KEY:SECRET@default?from=15005550006&application_id=...&
// private_key_file=/etc/twofa/vonage.key`. One JSON POST per call to the Voice API,
// https://api.nexmo.com/v1/calls, authenticated by a JWT signed (RS256) with the Vonage
// application's private key: {to: [{type: phone, number}], from: {type: phone, number}, ncco:
// [{action: talk, text, language, loop}]}. The text has the PIN spaced out with commas and is read
// `repeat` times (DSN parameter, default 2); the language is the template's as a BCP 47 locale
// (cmn-CN / cmn-TW for Chinese); a speechRate other than 1 wraps the text in SSML <prosody rate>.
// The caller is the first phone number among the template's senderId and the DSN's from. Vonage
// answers 201 with the call's uuid (the id its event webhook carries; those events go to the
// application's event URL and are not read here). 401/403 (key or application wrong) and other
// 4xx are final; 429 and 5xx are retried.
import { formatMicros, parseMicros } from '../../../domain/money.js';
import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import { smsTextInfo } from '../../../domain/template-rendering.js';
import type { DeliveryResult, OutgoingMessage, Transport } from '../../transport.js';
import { bindCallback, withCallbackToken, type BoundProviderCallback, type CallbackCapable } from '../provider-callback.js';
import { baseUrlText, dsnCredentials, optionalParam, PROVIDER_TIMEOUT_MS, readDsnParams, readHttpUrl, readTimeout } from '../provider-dsn.js';
import { httpFailure, isRecord, parseJson, postToProvider, reportedPrice, stringField } from '../provider-http.js';
import { redactProviderText } from '../redact-provider-text.js';
import { checkSmsMessage } from '../sms-message.js';
import { checkVoiceMessage, escapeXml, prosodyRate, readRepeat, redactVoiceText, vonageLanguage } from '../../voice/provider-voice.js';
import { spokenText, type SpokenMessage } from '../../voice/spoken-text.js';
import { VONAGE_SIGNATURE_METHODS, vonageCallback, type VonageSignatureMethod } from './vonage-callback.js';
import { readVonagePrivateKey, vonageJwt } from './vonage-jwt.js';

export const VONAGE_BASE_URL = 'https://rest.nexmo.com';
export const VONAGE_VOICE_BASE_URL = 'https://api.nexmo.com';
export const VONAGE_DSN_EXAMPLE = 'vonage://API_KEY:API_SECRET@default?from=Acme';
const PARAMS = ['from', 'base_url', 'signature_secret', 'signature_method', 'callback_token', 'callback_url', 'timeout', 'application_id', 'private_key_file', 'repeat'] as const;
const VONAGE_THROTTLED = '1';
const RETRYABLE_STATUSES = new Set(['1', '5', '10']);

export interface VonageTransportOptions {
  apiKey: string;
  apiSecret: string;
  from?: string;
  baseUrl?: string;
  /** Per-message delivery receipt URL (Vonage's `callback`); without it the dashboard's URL is used. */
  callbackUrl?: string;
  signatureSecret?: string;
  signatureMethod?: VonageSignatureMethod;
  callbackToken?: string;
  timeoutMs?: number;
  /** Seconds since the epoch, for the signature's freshness check; injectable for tests. */
  clock?: () => number;
  /** Voice: the Vonage application whose private key signs the Voice API's JWT. */
  applicationId?: string;
  privateKey?: KeyObject;
  /** Readings of a voice message per call; default 2. */
  repeat?: number;
}

export class VonageTransport implements Transport, CallbackCapable {
  readonly name = 'vonage';
  readonly callback: BoundProviderCallback;
  private readonly endpoint: string;
  private readonly callsEndpoint: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: VonageTransportOptions) {
    this.endpoint = `${options.baseUrl ?? VONAGE_BASE_URL}/sms/json`;
    this.callsEndpoint = `${options.baseUrl ?? VONAGE_VOICE_BASE_URL}/v1/calls`;
    this.timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
    this.callback = bindCallback(vonageCallback, {
      ...(options.signatureSecret !== undefined && { signatureSecret: options.signatureSecret }),
      ...(options.signatureMethod !== undefined && { signatureMethod: options.signatureMethod }),
      ...(options.callbackToken !== undefined && { callbackToken: options.callbackToken }),
      ...(options.clock !== undefined && { clock: options.clock }),
    });
  }

  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    if (message.channel === 'voice') return this.call(message);
    const check = checkSmsMessage('vonage', message, this.options.from);
    if (!check.ok) return check.result;
    if (check.from === undefined) {
      return { ok: false, retryable: false, error: `no sender: the template has no senderId and the DSN has no from, e.g. ${VONAGE_DSN_EXAMPLE}` };
    }

    const form = new URLSearchParams();
    form.set('api_key', this.options.apiKey);
    form.set('api_secret', this.options.apiSecret);
    form.set('from', check.from);
    form.set('to', check.to);
    form.set('text', check.text);
    // Without type=unicode Vonage sends the text as GSM-7 and characters outside it arrive garbled.
    if (smsTextInfo(check.text).encoding === 'UCS-2') form.set('type', 'unicode');
    if (this.options.callbackUrl !== undefined) form.set('callback', this.options.callbackUrl);
    const { dltEntityId, dltTemplateId } = message.regulatory ?? {};
    if (dltEntityId !== undefined) form.set('entity-id', dltEntityId);
    if (dltTemplateId !== undefined) form.set('content-id', dltTemplateId);

    const answer = await postToProvider('vonage', {
      url: this.endpoint,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      timeoutMs: this.timeoutMs,
    });
    if (answer.kind === 'unreachable') return { ok: false, retryable: true, error: answer.error };

    const json = parseJson(answer.body);
    if (answer.status < 200 || answer.status >= 300) {
      const reason = isRecord(json) ? (stringField(json, 'error_title') ?? stringField(json, 'title')) : undefined;
      return httpFailure('vonage', answer, reason === undefined ? undefined : redactProviderText(reason, message));
    }
    const parts = isRecord(json) && Array.isArray(json.messages) ? json.messages.filter(isRecord) : [];
    if (parts.length === 0) {
      return { ok: false, retryable: true, error: `vonage answered HTTP ${answer.status} without a messages list` };
    }
    // A long text is sent as several parts, each with its own status and id; receipts come per
    // part, and the first part's id is the one we record.
    const refused = parts.find((part) => stringField(part, 'status') !== '0');
    if (refused !== undefined) {
      const status = stringField(refused, 'status') ?? 'missing';
      const reason = stringField(refused, 'error-text');
      const detail = reason === undefined ? '' : `: ${redactProviderText(reason, message)}`;
      const error = `vonage refused the message with status ${status}${detail}`;
      // Status 1, Throttled: the key's rate (30 requests/s by default) was exceeded. Only when no
      // part went through is it the transport's to slow down and send again; else a retry resends them.
      if (parts.every((part) => stringField(part, 'status') === VONAGE_THROTTLED)) return { ok: false, retryable: true, error, throttled: {} };
      return { ok: false, retryable: RETRYABLE_STATUSES.has(status), error };
    }
    const messageId = stringField(parts[0] as Record<string, unknown>, 'message-id');
    if (messageId === undefined || messageId === '') {
      return { ok: false, retryable: true, error: 'vonage accepted the message without a message-id' };
    }
    // Each part's `message-price` (the SMS API's estimate of what it costs), in the account's currency:
    // Vonage accounts are kept in euros, and the answer does not repeat it.
    const prices = parts.map((part) => reportedPrice(part['message-price'], 'EUR'));
    const price = prices.every((p) => p !== undefined) ? { amount: formatMicros(prices.reduce((sum, p) => sum + parseMicros(p.amount)!, 0)), currency: 'EUR' } : undefined;
    return { ok: true, providerMessageId: messageId, ...(price && { price }) };
  }

  /** A voice message: one Voice API call with a talk action. */
  private async call(message: OutgoingMessage): Promise<DeliveryResult> {
    const { applicationId, privateKey } = this.options;
    if (applicationId === undefined || privateKey === undefined) {
      return { ok: false, retryable: false, error: 'vonage voice needs application_id and private_key_file in the DSN (a Vonage application with voice enabled)' };
    }
    const check = checkVoiceMessage(message, this.options.from, this.options.repeat);
    if (!check.ok) return check.result;
    if (check.from === undefined) {
      return { ok: false, retryable: false, error: `no caller number: a call needs a phone number as the template's senderId or the DSN's from, e.g. ${VONAGE_DSN_EXAMPLE}` };
    }
    const body = {
      to: [{ type: 'phone', number: check.to }],
      from: { type: 'phone', number: check.from.replace(/^\+/, '') },
      ncco: [talkAction(check.spoken)],
    };
    const answer = await postToProvider('vonage', {
      url: this.callsEndpoint,
      headers: { authorization: `Bearer ${vonageJwt(applicationId, privateKey)}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      timeoutMs: this.timeoutMs,
    });
    if (answer.kind === 'unreachable') return { ok: false, retryable: true, error: answer.error };
    const json = parseJson(answer.body);
    if (answer.status < 200 || answer.status >= 300) {
      // Vonage's Voice API errors: {"type": "...", "title": "...", "detail": "...", "invalid_parameters": [...]}.
      const reason = isRecord(json) ? [stringField(json, 'title'), stringField(json, 'detail')].filter((part) => part !== undefined && part !== '').join(': ') : '';
      return httpFailure('vonage', answer, reason === '' ? undefined : redactVoiceText(reason, message));
    }
    const uuid = isRecord(json) ? stringField(json, 'uuid') : undefined;
    if (uuid === undefined || uuid === '') return { ok: false, retryable: true, error: `vonage answered HTTP ${answer.status} without a call uuid` };
    return { ok: true, providerMessageId: uuid };
  }
}

/** The NCCO talk action for one voice message. */
export function talkAction(spoken: SpokenMessage): Record<string, unknown> {
  const rate = prosodyRate(spoken);
  // The readings are separate loops of one talk action; SSML only when the pace must change.
  const text = rate === null ? spokenText(spoken) : `<speak><prosody rate="${rate}">${escapeXml(spokenText(spoken))}</prosody></speak>`;
  return { action: 'talk', text, language: vonageLanguage(spoken.language), loop: spoken.repeat };
}

/** The transport a `vonage://` DSN describes; throws an Error naming `variable` when it is unusable. */
export function createVonageTransport(variable: string, url: URL, deps: { logger: Logger }): VonageTransport {
  const params = readDsnParams(variable, url, PARAMS, VONAGE_DSN_EXAMPLE);
  const { user: apiKey, password: apiSecret } = dsnCredentials(url);
  if (apiKey === '' || apiSecret === '') {
    throw new Error(`${variable}: the vonage DSN needs the API key and secret as user and password, e.g. ${VONAGE_DSN_EXAMPLE}`);
  }
  if (url.hostname !== 'default') {
    throw new Error(`${variable}: the vonage DSN host must be "default" (use base_url to call another address), e.g. ${VONAGE_DSN_EXAMPLE}`);
  }
  const warn = (text: string): void => deps.logger.warn({ variable, transport: 'vonage' }, text);
  const methodText = optionalParam(params, 'signature_method') ?? 'md5hash';
  if (!(VONAGE_SIGNATURE_METHODS as readonly string[]).includes(methodText)) {
    throw new Error(`${variable}: signature_method must be one of ${VONAGE_SIGNATURE_METHODS.join(', ')} (the one chosen in the Vonage dashboard)`);
  }
  const signatureSecret = optionalParam(params, 'signature_secret');
  const callbackToken = optionalParam(params, 'callback_token');
  const callbackUrl = params.has('callback_url')
    ? withCallbackToken(readHttpUrl(variable, 'callback_url', params.get('callback_url') as string, warn), signatureSecret === undefined ? callbackToken : undefined)
    : undefined;
  if (callbackUrl !== undefined && signatureSecret === undefined && callbackToken === undefined) {
    throw new Error(`${variable}: delivery receipts to callback_url cannot be authenticated; add signature_secret (Vonage's signed webhooks) or callback_token (a shared token added to callback_url as ?token=...)`);
  }
  const from = optionalParam(params, 'from');
  const baseUrl = params.has('base_url') ? baseUrlText(readHttpUrl(variable, 'base_url', params.get('base_url') as string, warn)) : undefined;
  const applicationId = optionalParam(params, 'application_id');
  const keyFile = optionalParam(params, 'private_key_file');
  if ((applicationId === undefined) !== (keyFile === undefined)) {
    throw new Error(`${variable}: vonage voice needs both application_id and private_key_file (the Vonage application's id and the path of its private.key)`);
  }
  if (applicationId !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(applicationId)) {
    throw new Error(`${variable}: application_id must be the Vonage application's id, a UUID such as aaaaaaaa-bbbb-cccc-dddd-0123456789ab`);
  }
  const privateKey = keyFile === undefined ? undefined : readVonagePrivateKey(variable, keyFile);
  return new VonageTransport({
    apiKey,
    apiSecret,
    ...(applicationId !== undefined && privateKey !== undefined && { applicationId, privateKey }),
    repeat: readRepeat(variable, params.get('repeat')),
    ...(from !== undefined && { from }),
    ...(baseUrl !== undefined && { baseUrl }),
    ...(callbackUrl !== undefined && { callbackUrl }),
    ...(signatureSecret !== undefined && { signatureSecret, signatureMethod: methodText as VonageSignatureMethod }),
    ...(callbackToken !== undefined && { callbackToken }),
    timeoutMs: readTimeout(variable, params.get('timeout'), PROVIDER_TIMEOUT_MS),
  });
}
