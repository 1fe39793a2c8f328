// `whatsapp://ACCESS_TOKEN@PHONE_NUMBER_ID?template=NAME&language=en_US&app_secret=SECRET`: PINs as
// WhatsApp authentication-template messages through Meta's WhatsApp Cloud API (Graph API). One JSON
// POST per message to {base_url}/{version}/{PHONE_NUMBER_ID}/messages, Bearer token. An
// authentication template's text is Meta's own ("<code> is your verification code"): only the code
// travels, as the body parameter and as the parameter of the copy-code (or one-tap) button, which
// Meta requires to carry the same code. Meta answers 200 with `messages[0].id` (a `wamid.`), which
// its status webhooks carry (whatsapp-callback.ts).
import type { Logger } from 'pino';
import type { DeliveryResult, OutgoingMessage, Transport } from '../../transport.js';
import { bindCallback, type BoundProviderCallback, type CallbackCapable } from '../provider-callback.js';
import { baseUrlText, decode, optionalParam, PROVIDER_TIMEOUT_MS, readDsnParams, readHttpUrl, readTimeout } from '../provider-dsn.js';
import { httpFailure, isRecord, isRetryableStatus, parseJson, postToProvider, stringField } from '../provider-http.js';
import { isThrottlingStatus } from '../../http-post.js';
import { redactProviderText } from '../redact-provider-text.js';
import { whatsappCallback } from './whatsapp-callback.js';

export const GRAPH_API_BASE_URL = 'https://graph.facebook.com';
/** A current Graph API version; `version=` in the DSN pins another. */
export const GRAPH_API_VERSION = 'v21.0';
export const WHATSAPP_DSN_EXAMPLE = 'whatsapp://ACCESS_TOKEN@PHONE_NUMBER_ID?template=verify_code&language=en_US&app_secret=APP_SECRET';
const PARAMS = ['template', 'language', 'app_secret', 'verify_token', 'version', 'base_url', 'timeout'] as const;

// Graph API error codes that mean "not now": 1 and 2 (temporary API errors), 4 and 80007 (rate
// limits), 130429 (throughput reached), 131056 (too many messages to one number).
const RETRYABLE_CODES = new Set(['1', '2', '4', '80007', '130429', '131056']);

export interface WhatsappTransportOptions {
  accessToken: string;
  phoneNumberId: string;
  template: string;
  language: string;
  appSecret: string;
  verifyToken?: string;
  version?: string;
  baseUrl?: string;
  timeoutMs?: number;
}

export class WhatsappTransport implements Transport, CallbackCapable {
  readonly name = 'whatsapp';
  readonly callback: BoundProviderCallback;
  private readonly endpoint: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: WhatsappTransportOptions) {
    const base = options.baseUrl ?? GRAPH_API_BASE_URL;
    this.endpoint = `${base}/${options.version ?? GRAPH_API_VERSION}/${encodeURIComponent(options.phoneNumberId)}/messages`;
    this.timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
    this.callback = bindCallback(whatsappCallback, {
      appSecret: options.appSecret,
      ...(options.verifyToken !== undefined && { verifyToken: options.verifyToken }),
    });
  }

  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    if (message.channel === 'voice' || message.channel === 'email') return refuse(`the whatsapp transport sends codes to phone numbers only, not by ${message.channel}`);
    if (message.code === undefined || message.code === '') return refuse('the message carries no code');
    const to = message.to.startsWith('+') ? message.to.slice(1) : message.to;
    if (!/^\d{6,15}$/.test(to)) return refuse('the destination is not an international phone number');

    const answer = await postToProvider('whatsapp', {
      url: this.endpoint,
      headers: { authorization: `Bearer ${this.options.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(authenticationTemplateMessage(to, this.options.template, this.options.language, message.code)),
      timeoutMs: this.timeoutMs,
    });
    if (answer.kind === 'unreachable') return { ok: false, retryable: true, error: answer.error };

    const json = parseJson(answer.body);
    const body = isRecord(json) ? json : {};
    if (answer.status >= 200 && answer.status < 300) {
      const messages = body.messages;
      const first = Array.isArray(messages) && isRecord(messages[0]) ? messages[0] : undefined;
      const id = first === undefined ? undefined : stringField(first, 'id');
      if (id === undefined || id === '') return { ok: false, retryable: true, error: `whatsapp answered HTTP ${answer.status} without a message id` };
      return { ok: true, providerMessageId: id };
    }
    // Graph API errors: {"error": {"message": "...", "type": "OAuthException", "code": 190, "error_subcode": ..., "fbtrace_id": "..."}}.
    const error = isRecord(body.error) ? body.error : {};
    const code = stringField(error, 'code');
    const reason = stringField(error, 'message');
    const detail = [code !== undefined ? `error ${code}` : undefined, reason !== undefined ? redactProviderText(reason, message) : undefined]
      .filter((part) => part !== undefined && part !== '')
      .join(': ');
    const retryable = isRetryableStatus(answer.status) || (code !== undefined && RETRYABLE_CODES.has(code));
    // 130429: the number's throughput is reached, a limit of the transport (131056, one recipient's pair rate, is not).
    return httpFailure('whatsapp', answer, detail, retryable, isThrottlingStatus(answer.status) || code === '130429');
  }
}

/**
 * The Cloud API message for an authentication template: the code fills the body's one parameter
 * and the URL button's (copy code and one-tap buttons are URL buttons once the template exists).
 */
export function authenticationTemplateMessage(to: string, template: string, language: string, code: string): Record<string, unknown> {
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to,
    type: 'template',
    template: {
      name: template,
      language: { code: language },
      components: [
        { type: 'body', parameters: [{ type: 'text', text: code }] },
        { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: code }] },
      ],
    },
  };
}

function refuse(error: string): DeliveryResult {
  return { ok: false, retryable: false, error };
}

/** The transport a `whatsapp://` DSN describes; throws an Error naming `variable` when it is unusable. */
export function createWhatsappTransport(variable: string, url: URL, deps: { logger: Logger }): WhatsappTransport {
  const params = readDsnParams(variable, url, PARAMS, WHATSAPP_DSN_EXAMPLE);
  const accessToken = decode(url.username);
  const phoneNumberId = url.hostname;
  if (accessToken === '' || url.password !== '') {
    throw new Error(`${variable}: the whatsapp DSN needs the access token (a system user's permanent token) as the user part, e.g. ${WHATSAPP_DSN_EXAMPLE}`);
  }
  if (!/^\d{5,20}$/.test(phoneNumberId)) {
    throw new Error(`${variable}: the whatsapp DSN host must be the phone number ID (digits, from WhatsApp Manager > API setup), e.g. ${WHATSAPP_DSN_EXAMPLE}`);
  }
  const template = optionalParam(params, 'template');
  if (template === undefined || !/^[a-z0-9_]{1,512}$/.test(template)) {
    throw new Error(`${variable}: the whatsapp DSN needs template=NAME, an approved authentication template (lower case, digits and _), e.g. ${WHATSAPP_DSN_EXAMPLE}`);
  }
  const language = optionalParam(params, 'language') ?? 'en_US';
  if (!/^[a-z]{2,3}(_[A-Za-z]{2,4})?$/.test(language)) throw new Error(`${variable}: DSN parameter language must be a template language code such as en_US, pt_BR or de`);
  const appSecret = optionalParam(params, 'app_secret');
  if (appSecret === undefined) {
    throw new Error(`${variable}: the whatsapp DSN needs app_secret=SECRET (the Meta app's secret, which signs status webhooks), e.g. ${WHATSAPP_DSN_EXAMPLE}`);
  }
  const version = optionalParam(params, 'version');
  if (version !== undefined && !/^v\d{1,3}\.\d{1,2}$/.test(version)) throw new Error(`${variable}: DSN parameter version must be a Graph API version such as ${GRAPH_API_VERSION}`);
  const warn = (text: string): void => deps.logger.warn({ variable, transport: 'whatsapp' }, text);
  const baseUrl = params.has('base_url') ? baseUrlText(readHttpUrl(variable, 'base_url', params.get('base_url') as string, warn)) : undefined;
  const verifyToken = optionalParam(params, 'verify_token');
  return new WhatsappTransport({
    accessToken, phoneNumberId, template, language, appSecret,
    ...(verifyToken !== undefined && { verifyToken }),
    ...(version !== undefined && { version }),
    ...(baseUrl !== undefined && { baseUrl }),
    timeoutMs: readTimeout(variable, params.get('timeout'), PROVIDER_TIMEOUT_MS),
  });
}
