// A local stand-in for the Telegram Gateway API (core.telegram.org/gateway/api), written from its
// documentation: POST /sendVerificationMessage, /checkSendAbility and /revokeVerificationMessage
// with the API token as a Bearer header, answered {"ok": true, "result": ...} or {"ok": false,
// "error": "..."}. It checks what the Gateway checks: the token (401 ACCESS_TOKEN_INVALID), an
// E.164 phone_number with a Telegram account (PHONE_NUMBER_INVALID otherwise), a code of 4 to 8
// digits, a ttl of 30 to 3600 s, a payload of at most 128 bytes, an http(s) callback_url, and a
// request_id from checkSendAbility for the same number. Delivery reports go to the callback_url a
// message was sent with, signed as the Gateway signs them (X-Request-Timestamp and
// X-Request-Signature: hex HMAC-SHA256 of `timestamp\nbody` keyed with the token's SHA-256).
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { jsonObject, JsonPeer, postCallback, type PeerAnswer, type PeerRequest } from './json-peer.js';

export interface TelegramSentCode {
  requestId: string;
  phoneNumber: string;
  code: string;
  ttl: number | undefined;
  payload: string | undefined;
  callbackUrl: string | undefined;
  senderUsername: string | undefined;
  revoked: boolean;
}

export class TelegramGatewayPeer extends JsonPeer {
  readonly sent: TelegramSentCode[] = [];
  /** request_id -> phone number, of checkSendAbility answers not yet used by a send. */
  private readonly abilities = new Map<string, string>();

  /** `telegramUsers`: the phone numbers (E.164, with +) that have a Telegram account. */
  constructor(readonly token: string, private readonly telegramUsers: ReadonlySet<string>) {
    super();
  }

  /** Requests made to one method, in order. */
  calls(method: string): Record<string, unknown>[] {
    return this.requests.filter((r) => r.path === `/${method}`).map((r) => jsonObject(r.body) ?? {});
  }

  protected handle(request: PeerRequest): PeerAnswer {
    if (request.headers.authorization !== `Bearer ${this.token}`) return refuse(401, 'ACCESS_TOKEN_INVALID');
    const params = jsonObject(request.body);
    if (request.method !== 'POST' || params === undefined) return refuse(400, 'INVALID_REQUEST');
    switch (request.path) {
      case '/checkSendAbility': return this.checkSendAbility(params);
      case '/sendVerificationMessage': return this.sendVerificationMessage(params);
      case '/revokeVerificationMessage': return this.revoke(params);
      default: return refuse(404, 'METHOD_NOT_FOUND');
    }
  }

  private checkSendAbility(params: Record<string, unknown>): PeerAnswer {
    const phone = params.phone_number;
    if (typeof phone !== 'string' || !/^\+\d{6,15}$/.test(phone) || !this.telegramUsers.has(phone)) return refuse(400, 'PHONE_NUMBER_INVALID');
    const requestId = randomBytes(12).toString('hex');
    this.abilities.set(requestId, phone);
    return ok(requestStatus(requestId, phone, undefined));
  }

  private sendVerificationMessage(params: Record<string, unknown>): PeerAnswer {
    const { phone_number: phone, code, ttl, payload, callback_url: callbackUrl, sender_username: sender, request_id: givenId } = params;
    if (typeof phone !== 'string' || !/^\+\d{6,15}$/.test(phone)) return refuse(400, 'PHONE_NUMBER_INVALID');
    if (code !== undefined && (typeof code !== 'string' || !/^\d{4,8}$/.test(code))) return refuse(400, 'CODE_INVALID');
    if (code === undefined) return refuse(400, 'CODE_REQUIRED');
    if (ttl !== undefined && (!Number.isInteger(ttl) || (ttl as number) < 30 || (ttl as number) > 3600)) return refuse(400, 'TTL_INVALID');
    if (payload !== undefined && (typeof payload !== 'string' || Buffer.byteLength(payload) > 128)) return refuse(400, 'PAYLOAD_INVALID');
    if (callbackUrl !== undefined && (typeof callbackUrl !== 'string' || !/^https?:\/\//.test(callbackUrl))) return refuse(400, 'CALLBACK_URL_INVALID');
    if (sender !== undefined && typeof sender !== 'string') return refuse(400, 'SENDER_USERNAME_INVALID');
    if (givenId !== undefined && this.abilities.get(String(givenId)) !== phone) return refuse(400, 'REQUEST_ID_INVALID');
    if (!this.telegramUsers.has(phone)) return refuse(400, 'PHONE_NUMBER_INVALID');
    const requestId = typeof givenId === 'string' ? givenId : randomBytes(12).toString('hex');
    this.abilities.delete(requestId);
    this.sent.push({
      requestId, phoneNumber: phone, code, ttl: ttl as number | undefined, payload: payload as string | undefined,
      callbackUrl: callbackUrl as string | undefined, senderUsername: sender as string | undefined, revoked: false,
    });
    return ok(requestStatus(requestId, phone, payload as string | undefined));
  }

  private revoke(params: Record<string, unknown>): PeerAnswer {
    const sent = this.sent.find((s) => s.requestId === params.request_id);
    if (sent === undefined) return refuse(400, 'REQUEST_ID_INVALID');
    sent.revoked = true;
    return ok(true);
  }

  /**
   * Posts a delivery report for a sent code to the callback_url it was sent with; `sign: false`
   * leaves the signature out, `token` signs with another token, `timestamp` dates it (UNIX s).
   */
  async report(requestId: string, status: 'sent' | 'delivered' | 'read' | 'expired' | 'revoked', options: { sign?: boolean; token?: string; timestamp?: number } = {}): Promise<number> {
    const sent = this.sent.find((s) => s.requestId === requestId);
    if (sent?.callbackUrl === undefined) throw new Error(`no callback_url for request ${requestId}`);
    const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
    const body = JSON.stringify({ ...requestStatus(requestId, sent.phoneNumber, sent.payload), delivery_status: { status, updated_at: Number(timestamp) } });
    const headers: Record<string, string> = { 'x-request-timestamp': timestamp };
    if (options.sign !== false) {
      const key = createHash('sha256').update(options.token ?? this.token).digest();
      headers['x-request-signature'] = createHmac('sha256', key).update(`${timestamp}\n${body}`).digest('hex');
    }
    return postCallback(sent.callbackUrl, body, headers);
  }
}

function requestStatus(requestId: string, phoneNumber: string, payload: string | undefined): Record<string, unknown> {
  return {
    request_id: requestId, phone_number: phoneNumber, request_cost: 0.01, remaining_balance: 99.5,
    delivery_status: { status: 'sent', updated_at: Math.floor(Date.now() / 1000) },
    ...(payload !== undefined && { payload }),
  };
}

function ok(result: unknown): PeerAnswer {
  return { status: 200, body: { ok: true, result } };
}

function refuse(status: number, error: string): PeerAnswer {
  return { status, body: { ok: false, error } };
}
