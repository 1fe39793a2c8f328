// A local stand-in for Meta's WhatsApp Cloud API (Graph API), written from Meta's documentation of
// sending authentication-template messages and of the messages webhook. It checks what the real
// service checks before accepting a message: the Bearer access token (401, OAuthException 190), the
// phone number ID in the path (404, code 100), and the template message itself (400): the
// messaging_product, an international `to`, an approved template in its language, and for an
// authentication template exactly one body parameter and one URL-button parameter (the copy-code or
// one-tap button) carrying the same code. Accepted messages are recorded with their `wamid.` id; a
// test then has the peer post signed status webhooks (sent, delivered, read, failed) to twofa.
import { createHmac, randomBytes } from 'node:crypto';
import { jsonObject, JsonPeer, postCallback, type PeerAnswer, type PeerRequest } from './json-peer.js';

export interface GraphApiPeerOptions {
  accessToken: string;
  phoneNumberId: string;
  appSecret: string;
  /** Approved authentication templates: name -> language code. */
  templates: Record<string, string>;
}

export interface SentWhatsappMessage {
  id: string;
  to: string;
  template: string;
  language: string;
  /** The code, as the body parameter carried it (the button's is checked to be the same). */
  code: string;
}

export class GraphApiPeer extends JsonPeer {
  readonly messages: SentWhatsappMessage[] = [];
  /** When set, every send is answered with this Graph error instead (a test plays an outage or a ban). */
  failure: { status: number; code: number; message: string } | undefined;

  constructor(readonly options: GraphApiPeerOptions) {
    super();
  }

  /** The DSN of a transport talking to this peer; `overrides` replace the token or the phone number ID. */
  dsn(overrides: { accessToken?: string; phoneNumberId?: string; template?: string; verifyToken?: string } = {}): string {
    const token = encodeURIComponent(overrides.accessToken ?? this.options.accessToken);
    const [template, language] = Object.entries(this.options.templates)[0] ?? ['', ''];
    const query = new URLSearchParams({ template: overrides.template ?? template, language, app_secret: this.options.appSecret, base_url: this.baseUrl });
    if (overrides.verifyToken !== undefined) query.set('verify_token', overrides.verifyToken);
    return `whatsapp://${token}@${overrides.phoneNumberId ?? this.options.phoneNumberId}?${query.toString()}`;
  }

  protected handle(request: PeerRequest): PeerAnswer {
    const match = /^\/(v\d+\.\d+)\/([^/]+)\/messages$/.exec(request.path);
    if (request.method !== 'POST' || match === null) return graphError(400, 100, 'Unknown path components');
    if (request.headers.authorization !== `Bearer ${this.options.accessToken}`) {
      return graphError(401, 190, 'Invalid OAuth access token - Cannot parse access token');
    }
    if (match[2] !== this.options.phoneNumberId) {
      return graphError(404, 100, `Unsupported post request. Object with ID '${match[2]}' does not exist`);
    }
    if (!String(request.headers['content-type']).startsWith('application/json')) return graphError(400, 100, 'Param messaging_product is required');
    const body = jsonObject(request.body);
    if (body === undefined) return graphError(400, 100, 'Invalid JSON');
    const checked = checkTemplateMessage(body, this.options.templates);
    if (typeof checked === 'string') return graphError(400, 132000, checked);
    if (this.failure !== undefined) return graphError(this.failure.status, this.failure.code, this.failure.message);
    const id = `wamid.${randomBytes(24).toString('base64url')}`;
    this.messages.push({ id, ...checked });
    return { status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: checked.to, wa_id: checked.to }], messages: [{ id }] } };
  }

  /**
   * Posts a status webhook for a message to `url`, signed with the app secret as Meta signs it, or
   * with `sign: false` unsigned, or with `secret` another secret; twofa's HTTP status is returned.
   */
  async sendStatus(url: string, messageId: string, status: 'sent' | 'delivered' | 'read' | 'failed', options: { sign?: boolean; secret?: string } = {}): Promise<number> {
    const sent = this.messages.find((m) => m.id === messageId);
    const statusObject: Record<string, unknown> = { id: messageId, status, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: sent?.to ?? '' };
    if (status === 'failed') statusObject.errors = [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable', error_data: { details: 'Message Undeliverable.' } }];
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{
        id: '102290129340398',
        changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: this.options.phoneNumberId }, statuses: [statusObject] } }],
      }],
    });
    const headers: Record<string, string> = {};
    if (options.sign !== false) headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', options.secret ?? this.options.appSecret).update(body).digest('hex')}`;
    return postCallback(url, body, headers);
  }
}

function graphError(status: number, code: number, message: string): PeerAnswer {
  return { status, body: { error: { message, type: 'OAuthException', code, fbtrace_id: randomBytes(8).toString('base64url') } } };
}

/** What the Cloud API requires of an authentication-template message; a string says what is wrong. */
function checkTemplateMessage(body: Record<string, unknown>, templates: Record<string, string>): Omit<SentWhatsappMessage, 'id'> | string {
  if (body.messaging_product !== 'whatsapp') return 'messaging_product must be whatsapp';
  if (typeof body.to !== 'string' || !/^\+?\d{6,15}$/.test(body.to)) return 'to must be a phone number';
  if (body.type !== 'template') return 'type must be template';
  const template = body.template as Record<string, unknown> | undefined;
  if (typeof template !== 'object' || template === null) return 'template is required';
  const name = template.name;
  const language = (template.language as { code?: unknown } | undefined)?.code;
  if (typeof name !== 'string' || templates[name] === undefined) return `template name (${String(name)}) does not exist`;
  if (language !== templates[name]) return `template name (${name}) does not exist in ${String(language)}`;
  const components = template.components;
  if (!Array.isArray(components)) return 'components are required for an authentication template';
  const bodyComponent = components.find((c) => (c as { type?: unknown }).type === 'body') as { parameters?: unknown } | undefined;
  const button = components.find((c) => (c as { type?: unknown }).type === 'button') as { sub_type?: unknown; index?: unknown; parameters?: unknown } | undefined;
  const bodyCode = singleTextParameter(bodyComponent?.parameters);
  if (bodyCode === undefined) return 'Number of parameters does not match the expected number of params (body: 1)';
  if (button === undefined || button.sub_type !== 'url' || String(button.index) !== '0') return 'an authentication template needs its url button at index 0';
  const buttonCode = singleTextParameter(button.parameters);
  if (buttonCode === undefined) return 'Number of parameters does not match the expected number of params (button: 1)';
  if (buttonCode !== bodyCode) return 'the button must carry the code of the body';
  if (bodyCode.length > 15) return 'verification codes are at most 15 characters';
  return { to: body.to.replace(/^\+/, ''), template: name, language, code: bodyCode };
}

function singleTextParameter(parameters: unknown): string | undefined {
  if (!Array.isArray(parameters) || parameters.length !== 1) return undefined;
  const [parameter] = parameters as { type?: unknown; text?: unknown }[];
  return parameter?.type === 'text' && typeof parameter.text === 'string' && parameter.text !== '' ? parameter.text : undefined;
}
