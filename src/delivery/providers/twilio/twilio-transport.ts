// `twilio://ACCOUNT_SID:AUTH_TOKEN@default?from=+15005550006`: SMS through Twilio's Programmable
// Messaging REST API, one form POST per message to /2010-04-01/Accounts/{SID}/Messages.json with
// HTTP Basic auth (SID:TOKEN). Twilio answers 201 with the Message resource, whose `sid` is the id
// its status callbacks carry.
//
// Voice (TWOFA_VOICE_DSN): one form POST per call to /2010-04-01/Accounts/{SID}/Calls.json with the
// TwiML inline (`Twiml`, no URL for Twilio to fetch): <Response><Say language voice loop>text</Say>
// </Response>, the PIN spaced out with commas, read `repeat` times (DSN parameter, default 2). The
// template's language becomes a locale (`pt_br` -> pt-BR); its voiceName becomes the voice (`Joanna`
// -> Polly.Joanna; `Polly.*`, `Google.*`, man, woman and alice as given), and only with such a voice
// is its speechRate applied (SSML <prosody rate>, which Twilio's basic voices do not take). The
// caller is the first phone number among the template's senderId and the DSN's from. Key presses
// (repeatDTMF) need a webhook round trip in TwiML and are not supported here. Twilio answers 201
// with the Call resource; its `sid` (CA...) is what call status callbacks carry (CallStatus
// completed -> delivered; busy, no-answer, failed, canceled -> undelivered).
import type { Logger } from 'pino';
import type { DeliveryResult, OutgoingMessage, Transport } from '../../transport.js';
import { bindCallback, type BoundProviderCallback, type CallbackCapable } from '../provider-callback.js';
import { baseUrlText, dsnCredentials, optionalParam, PROVIDER_TIMEOUT_MS, readDsnParams, readHttpUrl, readTimeout } from '../provider-dsn.js';
import { httpFailure, isRecord, isRetryableStatus, parseJson, postToProvider, reportedPrice, stringField } from '../provider-http.js';
import { redactProviderText } from '../redact-provider-text.js';
import { checkSmsMessage } from '../sms-message.js';
import { checkVoiceMessage, escapeXml, prosodyRate, readRepeat, redactVoiceText, twilioLanguage } from '../../voice/provider-voice.js';
import { spokenText, type SpokenMessage } from '../../voice/spoken-text.js';
import { twilioCallback } from './twilio-callback.js';

export const TWILIO_BASE_URL = 'https://api.twilio.com';
export const TWILIO_DSN_EXAMPLE = 'twilio://ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX:AUTH_TOKEN@default?from=+15005550006';
const PARAMS = ['from', 'messaging_service_sid', 'status_callback', 'base_url', 'timeout', 'repeat'] as const;

// Twilio error codes that arrive with HTTP 400 but mean "not now": 21611, the sender's queue of
// unsent messages is full (https://www.twilio.com/docs/api/errors/21611).
const RETRYABLE_TWILIO_CODES = new Set(['21611']);

export interface TwilioTransportOptions {
  accountSid: string;
  authToken: string;
  from?: string;
  messagingServiceSid?: string;
  statusCallback?: string;
  baseUrl?: string;
  timeoutMs?: number;
  /** Readings of a voice message per call; default 2. */
  repeat?: number;
}

export class TwilioTransport implements Transport, CallbackCapable {
  readonly name = 'twilio';
  readonly callback: BoundProviderCallback;
  private readonly endpoint: string;
  private readonly callsEndpoint: string;
  private readonly authorization: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: TwilioTransportOptions) {
    const base = options.baseUrl ?? TWILIO_BASE_URL;
    this.endpoint = `${base}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
    this.callsEndpoint = `${base}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Calls.json`;
    this.authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`, 'utf8').toString('base64')}`;
    this.timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
    this.callback = bindCallback(twilioCallback, {
      authToken: options.authToken,
      ...(options.statusCallback !== undefined && { statusCallback: options.statusCallback }),
    });
  }

  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    if (message.channel === 'voice') return this.call(message);
    const check = checkSmsMessage('twilio', message, this.options.from);
    if (!check.ok) return check.result;
    if (check.from === undefined && this.options.messagingServiceSid === undefined) {
      return { ok: false, retryable: false, error: `no sender: the template has no senderId and the DSN has neither from nor messaging_service_sid, e.g. ${TWILIO_DSN_EXAMPLE}` };
    }

    const form = new URLSearchParams();
    form.set('To', `+${check.to}`);
    if (check.from !== undefined) form.set('From', check.from);
    if (this.options.messagingServiceSid !== undefined) form.set('MessagingServiceSid', this.options.messagingServiceSid);
    form.set('Body', check.text);
    if (this.options.statusCallback !== undefined) form.set('StatusCallback', this.options.statusCallback);

    return this.post(this.endpoint, form, message, 'message');
  }

  /** A voice message: one call whose inline TwiML speaks the text. */
  private async call(message: OutgoingMessage): Promise<DeliveryResult> {
    const check = checkVoiceMessage(message, this.options.from, this.options.repeat);
    if (!check.ok) return check.result;
    if (check.from === undefined) {
      return { ok: false, retryable: false, error: `no caller number: a call needs a phone number as the template's senderId or the DSN's from, e.g. ${TWILIO_DSN_EXAMPLE}` };
    }
    const form = new URLSearchParams();
    form.set('To', `+${check.to}`);
    form.set('From', check.from.startsWith('+') ? check.from : `+${check.from}`);
    form.set('Twiml', twiml(check.spoken));
    if (this.options.statusCallback !== undefined) form.set('StatusCallback', this.options.statusCallback);
    return this.post(this.callsEndpoint, form, message, 'call');
  }

  private async post(url: string, form: URLSearchParams, message: OutgoingMessage, resource: 'message' | 'call'): Promise<DeliveryResult> {
    const answer = await postToProvider('twilio', {
      url,
      headers: { authorization: this.authorization, 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      timeoutMs: this.timeoutMs,
    });
    if (answer.kind === 'unreachable') return { ok: false, retryable: true, error: answer.error };

    const json = parseJson(answer.body);
    const body = isRecord(json) ? json : {};
    if (answer.status >= 200 && answer.status < 300) {
      const sid = stringField(body, 'sid');
      if (sid === undefined || sid === '') {
        return { ok: false, retryable: true, error: `twilio answered HTTP ${answer.status} without a ${resource} sid` };
      }
      // `price` (negative: a debit, in `price_unit`) is usually null until the message is sent; when the answer has it, it is the message's.
      const price = reportedPrice(body['price'], stringField(body, 'price_unit'), true);
      return { ok: true, providerMessageId: sid, ...(price && { price }) };
    }
    // Twilio's error body: {"code": 21211, "message": "...", "more_info": "...", "status": 400}.
    const code = stringField(body, 'code');
    const reason = stringField(body, 'message');
    const redact = resource === 'call' ? redactVoiceText : redactProviderText;
    const detail = [code !== undefined ? `error ${code}` : undefined, reason !== undefined ? redact(reason, message) : undefined]
      .filter((part) => part !== undefined && part !== '')
      .join(': ');
    const retryable = isRetryableStatus(answer.status) || (code !== undefined && RETRYABLE_TWILIO_CODES.has(code));
    return httpFailure('twilio', answer, detail, retryable);
  }
}

const BASIC_VOICES = new Set(['man', 'woman', 'alice']);

/** `<Response><Say ...>` for one voice message; every value escaped. */
export function twiml(spoken: SpokenMessage): string {
  const voice = spoken.voiceName === null ? undefined : spoken.voiceName.includes('.') || BASIC_VOICES.has(spoken.voiceName) ? spoken.voiceName : `Polly.${spoken.voiceName}`;
  const attributes = [`language="${escapeXml(twilioLanguage(spoken.language))}"`];
  if (voice !== undefined) attributes.push(`voice="${escapeXml(voice)}"`);
  attributes.push(`loop="${spoken.repeat}"`);
  const rate = prosodyRate(spoken);
  const text = escapeXml(spokenText(spoken));
  // SSML works with Polly and Google voices only; a basic voice would read the tags out.
  const body = rate !== null && voice !== undefined && !BASIC_VOICES.has(voice) ? `<prosody rate="${rate}">${text}</prosody>` : text;
  return `<Response><Say ${attributes.join(' ')}>${body}</Say></Response>`;
}

/** The transport a `twilio://` DSN describes; throws an Error naming `variable` when it is unusable. */
export function createTwilioTransport(variable: string, url: URL, deps: { logger: Logger }): TwilioTransport {
  const params = readDsnParams(variable, url, PARAMS, TWILIO_DSN_EXAMPLE);
  const { user: accountSid, password: authToken } = dsnCredentials(url);
  if (!/^AC[0-9a-fA-F]{32}$/.test(accountSid) || authToken === '') {
    throw new Error(`${variable}: the twilio DSN needs the account SID (AC + 32 hex digits) and auth token as user and password, e.g. ${TWILIO_DSN_EXAMPLE}`);
  }
  if (url.hostname !== 'default') {
    throw new Error(`${variable}: the twilio DSN host must be "default" (use base_url to call another address), e.g. ${TWILIO_DSN_EXAMPLE}`);
  }
  const warn = (text: string): void => deps.logger.warn({ variable, transport: 'twilio' }, text);
  const from = optionalParam(params, 'from');
  const messagingServiceSid = optionalParam(params, 'messaging_service_sid');
  if (messagingServiceSid !== undefined && !/^MG[0-9a-fA-F]{32}$/.test(messagingServiceSid)) {
    throw new Error(`${variable}: messaging_service_sid must be MG followed by 32 hex digits`);
  }
  const baseUrl = params.has('base_url') ? baseUrlText(readHttpUrl(variable, 'base_url', params.get('base_url') as string, warn)) : undefined;
  const statusCallback = params.has('status_callback')
    ? readHttpUrl(variable, 'status_callback', params.get('status_callback') as string, warn).href
    : undefined;
  return new TwilioTransport({
    accountSid,
    authToken,
    ...(from !== undefined && { from }),
    ...(messagingServiceSid !== undefined && { messagingServiceSid }),
    ...(statusCallback !== undefined && { statusCallback }),
    ...(baseUrl !== undefined && { baseUrl }),
    timeoutMs: readTimeout(variable, params.get('timeout'), PROVIDER_TIMEOUT_MS),
    repeat: readRepeat(variable, params.get('repeat')),
  });
}

