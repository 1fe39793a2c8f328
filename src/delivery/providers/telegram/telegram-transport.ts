// `telegram://TOKEN@default?sender_username=NAME&callback_url=https://...`: PINs through the
// Telegram Gateway API (core.telegram.org/gateway/api), which delivers a verification code to the
// Telegram account registered with a phone number. Only the code travels: Telegram writes the
// message around it. One JSON POST to {base_url}/sendVerificationMessage, Bearer token, with twofa's
// own `code`, a `ttl` from the PIN's remaining life (the Gateway takes 30 to 3600 seconds: a PIN
// with less than 30 s left is sent with 30, one living longer than an hour with 3600; the fee is
// refunded for a message not delivered within it), the `callback_url` for delivery reports and a
// `payload` naming the PIN. The answer's request_id is what reports carry.
//
// With check_send_ability=true, checkSendAbility comes first and its request_id is passed on (it is
// billed either way; a number without Telegram is refused then, before a code is sent).
// revokeMessage() calls revokeVerificationMessage once the PIN no longer needs delivering.
import type { Logger } from 'pino';
import type { DeliveryResult, OutgoingMessage, Transport } from '../../transport.js';
import { bindCallback, type BoundProviderCallback, type CallbackCapable } from '../provider-callback.js';
import { baseUrlText, decode, optionalParam, PROVIDER_TIMEOUT_MS, readBoolean, readDsnParams, readHttpUrl, readTimeout } from '../provider-dsn.js';
import { httpFailure, isRecord, parseJson, postToProvider, reportedPrice, stringField } from '../provider-http.js';
import { redactProviderText } from '../redact-provider-text.js';
import { telegramCallback } from './telegram-callback.js';

export const TELEGRAM_GATEWAY_BASE_URL = 'https://gatewayapi.telegram.org';
export const TELEGRAM_DSN_EXAMPLE = 'telegram://TOKEN@default?sender_username=MyServiceBot&callback_url=https://twofa.example.com/api/v1/callbacks/telegram';
const PARAMS = ['sender_username', 'callback_url', 'check_send_ability', 'base_url', 'timeout'] as const;
export const TELEGRAM_TTL_MIN_S = 30;
export const TELEGRAM_TTL_MAX_S = 3600;

export interface TelegramTransportOptions {
  token: string;
  senderUsername?: string;
  callbackUrl?: string;
  checkSendAbility?: boolean;
  baseUrl?: string;
  timeoutMs?: number;
  /** For the ttl; Date.now unless a test moves time. */
  clock?: () => number;
}

type GatewayAnswer = { ok: true; result: Record<string, unknown> | boolean } | { ok: false; failure: DeliveryResult };

export class TelegramTransport implements Transport, CallbackCapable {
  readonly name = 'telegram';
  readonly callback: BoundProviderCallback;
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly clock: () => number;

  constructor(private readonly options: TelegramTransportOptions) {
    this.base = options.baseUrl ?? TELEGRAM_GATEWAY_BASE_URL;
    this.timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
    this.clock = options.clock ?? Date.now;
    this.callback = bindCallback(telegramCallback, { token: options.token });
  }

  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    if (message.channel === 'voice' || message.channel === 'email') return refuse(`the telegram transport sends codes to phone numbers only, not by ${message.channel}`);
    if (message.code === undefined || !/^\d{4,8}$/.test(message.code)) {
      return refuse('the Telegram Gateway takes codes of 4 to 8 digits: use a NUMERIC template with pinLength 4 to 8');
    }
    const digits = message.to.startsWith('+') ? message.to.slice(1) : message.to;
    if (!/^\d{6,15}$/.test(digits)) return refuse('the destination is not an international phone number');
    const phoneNumber = `+${digits}`;

    let requestId: string | undefined;
    if (this.options.checkSendAbility === true) {
      const ability = await this.call('checkSendAbility', { phone_number: phoneNumber }, message);
      if (!ability.ok) return ability.failure;
      requestId = isRecord(ability.result) ? stringField(ability.result, 'request_id') : undefined;
    }
    const sent = await this.call('sendVerificationMessage', {
      phone_number: phoneNumber,
      code: message.code,
      ttl: telegramTtl(message.expiresAt, this.clock()),
      payload: message.pinId,
      ...(requestId !== undefined && { request_id: requestId }),
      ...(this.options.senderUsername !== undefined && { sender_username: this.options.senderUsername }),
      ...(this.options.callbackUrl !== undefined && { callback_url: this.options.callbackUrl }),
    }, message);
    if (!sent.ok) return sent.failure;
    const id = isRecord(sent.result) ? stringField(sent.result, 'request_id') : undefined;
    if (id === undefined || id === '') return { ok: false, retryable: true, error: 'telegram answered without a request_id' };
    // RequestStatus.request_cost: what the request cost, in US dollars (the Gateway's prices and balance are in USD).
    const price = isRecord(sent.result) ? reportedPrice(sent.result['request_cost'], 'USD') : undefined;
    return { ok: true, providerMessageId: id, ...(price && { price }) };
  }

  /** Asks the Gateway not to deliver a message it has not delivered yet; true when it was revoked. */
  async revokeMessage(requestId: string): Promise<boolean> {
    const answer = await this.call('revokeVerificationMessage', { request_id: requestId }, undefined);
    return answer.ok && answer.result === true;
  }

  private async call(method: string, body: Record<string, unknown>, message: OutgoingMessage | undefined): Promise<GatewayAnswer> {
    const answer = await postToProvider('telegram', {
      url: `${this.base}/${method}`,
      headers: { authorization: `Bearer ${this.options.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      timeoutMs: this.timeoutMs,
    });
    if (answer.kind === 'unreachable') return { ok: false, failure: { ok: false, retryable: true, error: answer.error } };
    const json = parseJson(answer.body);
    const parsed = isRecord(json) ? json : {};
    // The Gateway answers {"ok": true, "result": ...} or {"ok": false, "error": "PHONE_NUMBER_INVALID"}.
    const reason = stringField(parsed, 'error');
    const detail = reason === undefined ? undefined : message === undefined ? reason.slice(0, 100) : redactProviderText(reason, message);
    if (answer.status < 200 || answer.status >= 300) return { ok: false, failure: httpFailure('telegram', answer, detail) };
    if (parsed.ok === true && (isRecord(parsed.result) || typeof parsed.result === 'boolean')) return { ok: true, result: parsed.result };
    // FLOOD_WAIT_<seconds> and the like: worth another try later; any other error is a refusal.
    const retryable = detail !== undefined && /^(FLOOD_WAIT|TOO_MANY|INTERNAL)/.test(detail);
    const failure: DeliveryResult = { ok: false, retryable, error: `telegram ${method} refused: ${detail ?? 'no reason given'}` };
    // FLOOD_WAIT_<seconds>: the Gateway asks us to slow down for that long; the pacer pauses and sends again.
    const floodWait = detail === undefined ? null : /^FLOOD_WAIT_(\d{1,6})/.exec(detail);
    if (floodWait) failure.throttled = { retryAfterMs: Number(floodWait[1]) * 1000 };
    // A number that has no Telegram account is the recipient's doing, not the Gateway's.
    if (detail !== undefined && /^PHONE_NUMBER|^CHAT_|NOT_FOUND/.test(detail)) failure.byRecipient = true;
    return { ok: false, failure };
  }
}

/** The Gateway's ttl for a PIN expiring at `expiresAt`: its remaining life, within 30..3600 s. */
export function telegramTtl(expiresAt: number | undefined, now: number): number {
  if (expiresAt === undefined) return TELEGRAM_TTL_MAX_S;
  const seconds = Math.floor((expiresAt - now) / 1000);
  return Math.min(TELEGRAM_TTL_MAX_S, Math.max(TELEGRAM_TTL_MIN_S, seconds));
}

function refuse(error: string): DeliveryResult {
  return { ok: false, retryable: false, error };
}

/** Whether a transport can revoke what it sent (the Telegram Gateway can). */
export function canRevoke(transport: Transport): transport is Transport & { revokeMessage(id: string): Promise<boolean> } {
  return typeof (transport as { revokeMessage?: unknown }).revokeMessage === 'function';
}

/** The transport a `telegram://` DSN describes; throws an Error naming `variable` when it is unusable. */
export function createTelegramTransport(variable: string, url: URL, deps: { logger: Logger; clock?: () => number }): TelegramTransport {
  const params = readDsnParams(variable, url, PARAMS, TELEGRAM_DSN_EXAMPLE);
  const token = decode(url.username);
  if (token === '' || url.password !== '') throw new Error(`${variable}: the telegram DSN needs the Gateway API token as the user part, e.g. ${TELEGRAM_DSN_EXAMPLE}`);
  if (url.hostname !== 'default') throw new Error(`${variable}: the telegram DSN host must be "default" (use base_url to call another address), e.g. ${TELEGRAM_DSN_EXAMPLE}`);
  const senderUsername = optionalParam(params, 'sender_username');
  if (senderUsername !== undefined && !/^@?[A-Za-z][A-Za-z0-9_]{3,31}$/.test(senderUsername)) {
    throw new Error(`${variable}: DSN parameter sender_username must be a Telegram username (the channel that sends the codes, verified in the Gateway account)`);
  }
  const warn = (text: string): void => deps.logger.warn({ variable, transport: 'telegram' }, text);
  const baseUrl = params.has('base_url') ? baseUrlText(readHttpUrl(variable, 'base_url', params.get('base_url') as string, warn)) : undefined;
  const callbackUrl = params.has('callback_url') ? readHttpUrl(variable, 'callback_url', params.get('callback_url') as string, warn).href : undefined;
  if (callbackUrl === undefined) deps.logger.info({ variable, transport: 'telegram' }, 'no callback_url: Telegram delivery reports are not received, so PINs show no delivery status');
  return new TelegramTransport({
    token,
    ...(senderUsername !== undefined && { senderUsername: senderUsername.replace(/^@/, '') }),
    ...(callbackUrl !== undefined && { callbackUrl }),
    checkSendAbility: readBoolean(variable, 'check_send_ability', params.get('check_send_ability'), false),
    ...(baseUrl !== undefined && { baseUrl }),
    timeoutMs: readTimeout(variable, params.get('timeout'), PROVIDER_TIMEOUT_MS),
    ...(deps.clock !== undefined && { clock: deps.clock }),
  });
}
