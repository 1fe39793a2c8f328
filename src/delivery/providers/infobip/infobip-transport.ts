// `infobip://API_KEY@xyz.api.infobip.com?from=Acme`: SMS through Infobip's SMS API, one JSON POST
// per message with `Authorization: App <key>`. By default the current endpoint, POST
// /sms/3/messages ({messages: [{sender, destinations: [{to}], content: {text}, webhooks}]});
// `api=2` selects the older POST /sms/2/text/advanced ({messages: [{from, destinations: [{to}],
// text, notifyUrl, notifyContentType}]}), which Infobip marks deprecated. Both answer
// {messages: [{messageId, status: {groupName, name, ...}}]}: PENDING means accepted, REJECTED or
// UNDELIVERABLE means refused for good (e.g. REJECTED_NOT_ENOUGH_CREDITS, REJECTED_DESTINATION).
//
// India DLT: a message whose route sets `regulatory` ids carries them as Infobip documents, under
// `options.regional.indiaDlt` on /sms/3 and `regional.indiaDlt` on /sms/2 (`principalEntityId`,
// `contentTemplateId`).
//
// Voice (TWOFA_VOICE_DSN): one JSON POST per call to Infobip's text-to-speech voice message API,
// POST /tts/3/advanced ({messages: [{from, destinations: [{to}], text, language, speechRate, voice:
// {name}, repeatDtmf, notifyUrl, notifyContentType}]}), which answers like the SMS API ({messages:
// [{messageId, status}]}). The text has the PIN spaced out with commas and is read `repeat` times
// (DSN parameter, default 2) within the text itself; the template's repeatDTMF, speechRate and
// voiceName go to Infobip's own fields, the language in Infobip's spelling (`pt-br`, `zh-tw`).
// The caller is the first phone number among the template's senderId and the DSN's from; without
// one Infobip uses its default number. Voice delivery reports reach notify_url like SMS reports.
import type { Logger } from 'pino';
import type { DeliveryResult, OutgoingMessage, Transport } from '../../transport.js';
import { bindCallback, withCallbackToken, type BoundProviderCallback, type CallbackCapable } from '../provider-callback.js';
import { decode, isLoopback, optionalParam, PROVIDER_TIMEOUT_MS, readDsnParams, readHttpUrl, readTimeout } from '../provider-dsn.js';
import { httpFailure, isRecord, parseJson, postToProvider, stringField } from '../provider-http.js';
import { redactProviderText } from '../redact-provider-text.js';
import { checkSmsMessage } from '../sms-message.js';
import { checkVoiceMessage, infobipLanguage, readRepeat, redactVoiceText } from '../../voice/provider-voice.js';
import { repeatedSpokenText } from '../../voice/spoken-text.js';
import { infobipCallback } from './infobip-callback.js';

export const INFOBIP_DSN_EXAMPLE = 'infobip://API_KEY@xyz123.api.infobip.com?from=Acme';
const PARAMS = ['from', 'scheme', 'api', 'notify_url', 'callback_token', 'timeout', 'repeat'] as const;
const REFUSED_GROUPS = new Set(['REJECTED', 'UNDELIVERABLE', 'EXPIRED']);

export interface InfobipTransportOptions {
  apiKey: string;
  /** `https://xyz.api.infobip.com`, without a trailing slash. */
  baseUrl: string;
  from?: string;
  api?: 2 | 3;
  /** Where Infobip posts delivery reports, token included. */
  notifyUrl?: string;
  callbackToken?: string;
  timeoutMs?: number;
  /** Readings of a voice message per call; default 2. */
  repeat?: number;
}

export class InfobipTransport implements Transport, CallbackCapable {
  readonly name = 'infobip';
  readonly callback: BoundProviderCallback;
  private readonly endpoint: string;
  private readonly timeoutMs: number;
  private readonly api: 2 | 3;

  constructor(private readonly options: InfobipTransportOptions) {
    this.api = options.api ?? 3;
    this.endpoint = `${options.baseUrl}${this.api === 3 ? '/sms/3/messages' : '/sms/2/text/advanced'}`;
    this.timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
    this.callback = bindCallback(infobipCallback, options.callbackToken !== undefined ? { callbackToken: options.callbackToken } : {});
  }

  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    if (message.channel === 'voice') return this.call(message);
    const check = checkSmsMessage('infobip', message, this.options.from);
    if (!check.ok) return check.result;
    const regional = indiaDlt(message);
    const body = { messages: [this.api === 3 ? this.v3Message(check.to, check.text, check.from, regional) : this.v2Message(check.to, check.text, check.from, regional)] };
    return this.post(this.endpoint, body, message, redactProviderText);
  }

  /** A voice message: Infobip's text-to-speech call (POST /tts/3/advanced). */
  private async call(message: OutgoingMessage): Promise<DeliveryResult> {
    const check = checkVoiceMessage(message, this.options.from, this.options.repeat);
    if (!check.ok) return check.result;
    const { spoken } = check;
    const voiceMessage = {
      ...(check.from !== undefined && { from: check.from.replace(/^\+/, '') }),
      destinations: [{ to: check.to }],
      text: repeatedSpokenText(spoken),
      language: infobipLanguage(spoken.language),
      ...(spoken.speechRate !== 1 && { speechRate: spoken.speechRate }),
      ...(spoken.voiceName !== null && { voice: { name: spoken.voiceName } }),
      ...(spoken.repeatDtmf !== null && { repeatDtmf: spoken.repeatDtmf }),
      ...(this.options.notifyUrl !== undefined && { notifyUrl: this.options.notifyUrl, notifyContentType: 'application/json' }),
    };
    return this.post(`${this.options.baseUrl}/tts/3/advanced`, { messages: [voiceMessage] }, message, redactVoiceText);
  }

  private async post(url: string, body: unknown, message: OutgoingMessage, redact: (text: string, message: OutgoingMessage) => string): Promise<DeliveryResult> {
    const answer = await postToProvider('infobip', {
      url,
      headers: { authorization: `App ${this.options.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      timeoutMs: this.timeoutMs,
    });
    if (answer.kind === 'unreachable') return { ok: false, retryable: true, error: answer.error };

    const json = parseJson(answer.body);
    if (answer.status < 200 || answer.status >= 300) {
      return httpFailure('infobip', answer, errorDetail(json, message, redact));
    }
    const first = isRecord(json) && Array.isArray(json.messages) && isRecord(json.messages[0]) ? json.messages[0] : undefined;
    const messageId = first === undefined ? undefined : stringField(first, 'messageId');
    if (first === undefined || messageId === undefined || messageId === '') {
      return { ok: false, retryable: true, error: `infobip answered HTTP ${answer.status} without a messageId` };
    }
    const status = isRecord(first.status) ? first.status : {};
    const group = stringField(status, 'groupName')?.toUpperCase();
    if (group !== undefined && REFUSED_GROUPS.has(group)) {
      const name = stringField(status, 'name') ?? group;
      return { ok: false, retryable: false, error: `infobip refused the message: ${redact(name, message)}` };
    }
    return { ok: true, providerMessageId: messageId };
  }

  private v3Message(to: string, text: string, from: string | undefined, regional: Regional | undefined): Record<string, unknown> {
    return {
      ...(from !== undefined && { sender: from }),
      destinations: [{ to }],
      content: { text },
      ...(regional !== undefined && { options: { regional } }),
      ...(this.options.notifyUrl !== undefined && {
        webhooks: { delivery: { url: this.options.notifyUrl }, contentType: 'application/json' },
      }),
    };
  }

  private v2Message(to: string, text: string, from: string | undefined, regional: Regional | undefined): Record<string, unknown> {
    return {
      ...(from !== undefined && { from }),
      destinations: [{ to }],
      text,
      ...(regional !== undefined && { regional }),
      ...(this.options.notifyUrl !== undefined && { notifyUrl: this.options.notifyUrl, notifyContentType: 'application/json' }),
    };
  }
}

interface Regional {
  indiaDlt: { principalEntityId?: string; contentTemplateId?: string };
}

/** The route's India DLT ids in Infobip's `regional.indiaDlt`; undefined when the route sets none. */
function indiaDlt(message: OutgoingMessage): Regional | undefined {
  const { dltEntityId, dltTemplateId } = message.regulatory ?? {};
  if (dltEntityId === undefined && dltTemplateId === undefined) return undefined;
  return { indiaDlt: { ...(dltEntityId !== undefined && { principalEntityId: dltEntityId }), ...(dltTemplateId !== undefined && { contentTemplateId: dltTemplateId }) } };
}

// Infobip's error bodies: v2 {"requestError": {"serviceException": {"messageId", "text"}}},
// v3 {"errorCode": "E400", "description": "...", "violations": [...]}.
function errorDetail(json: unknown, message: OutgoingMessage, redact: (text: string, message: OutgoingMessage) => string): string | undefined {
  if (!isRecord(json)) return undefined;
  const service = isRecord(json.requestError) && isRecord(json.requestError.serviceException) ? json.requestError.serviceException : undefined;
  const code = service !== undefined ? stringField(service, 'messageId') : stringField(json, 'errorCode');
  const text = service !== undefined ? stringField(service, 'text') : stringField(json, 'description');
  const parts = [code, text === undefined ? undefined : redact(text, message)].filter((part) => part !== undefined && part !== '');
  return parts.length === 0 ? undefined : parts.join(': ');
}

/** The transport an `infobip://` DSN describes; throws an Error naming `variable` when it is unusable. */
export function createInfobipTransport(variable: string, url: URL, deps: { logger: Logger }): InfobipTransport {
  const params = readDsnParams(variable, url, PARAMS, INFOBIP_DSN_EXAMPLE);
  const apiKey = decode(url.username);
  if (apiKey === '' || url.password !== '') {
    throw new Error(`${variable}: the infobip DSN needs the API key as its user part (and no password), e.g. ${INFOBIP_DSN_EXAMPLE}`);
  }
  if (url.host === '' || url.hostname === 'default') {
    throw new Error(`${variable}: the infobip DSN needs your account's API host (shown in the Infobip portal), e.g. ${INFOBIP_DSN_EXAMPLE}`);
  }
  const warn = (text: string): void => deps.logger.warn({ variable, transport: 'infobip' }, text);
  const scheme = optionalParam(params, 'scheme') ?? 'https';
  if (scheme !== 'https' && scheme !== 'http') throw new Error(`${variable}: DSN parameter scheme must be https or http`);
  if (scheme === 'http' && !isLoopback(url.hostname)) warn('scheme=http: PINs and the API key cross the network unencrypted');
  const apiText = optionalParam(params, 'api') ?? '3';
  if (apiText !== '2' && apiText !== '3') throw new Error(`${variable}: DSN parameter api must be 3 (POST /sms/3/messages) or 2 (POST /sms/2/text/advanced)`);
  const callbackToken = optionalParam(params, 'callback_token');
  let notifyUrl: string | undefined;
  if (params.has('notify_url')) {
    if (callbackToken === undefined) {
      throw new Error(`${variable}: Infobip does not sign delivery reports; with notify_url also set callback_token (a long random string, e.g. from: openssl rand -hex 32), which is added to the notify URL as ?token=...`);
    }
    notifyUrl = withCallbackToken(readHttpUrl(variable, 'notify_url', params.get('notify_url') as string, warn), callbackToken);
  }
  const from = optionalParam(params, 'from');
  return new InfobipTransport({
    apiKey,
    baseUrl: `${scheme}://${url.host}`,
    api: apiText === '2' ? 2 : 3,
    ...(from !== undefined && { from }),
    ...(notifyUrl !== undefined && { notifyUrl }),
    ...(callbackToken !== undefined && { callbackToken }),
    timeoutMs: readTimeout(variable, params.get('timeout'), PROVIDER_TIMEOUT_MS),
    repeat: readRepeat(variable, params.get('repeat')),
  });
}
