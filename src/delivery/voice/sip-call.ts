// One outgoing call, as a SIP user agent client (RFC 3261): INVITE with an SDP offer, provisional
// responses, digest challenges, the final answer; once answered, ACK, the message played as RTP,
// key presses watched for the replay sequence, and BYE. Over UDP, requests are retransmitted on
// RFC 3261's timers (T1 = 500 ms doubling; INVITE until a provisional response, other requests up
// to T2 = 4 s apart) and given up after 64*T1.
//
// How a call ends, and what the transport makes of it:
//   answered (2xx)                              -> answered: the message was played (perhaps cut
//                                                  short by the callee hanging up)
//   486 Busy Here, 600 Busy Everywhere, 603 Decline -> busy
//   408, 480, 487, or still ringing at the ring timeout (we CANCEL) -> no-answer
//   401/407 we cannot answer (no or wrong credentials) -> failed, permanent
//   other 4xx/6xx                               -> failed, permanent
//   5xx, no response at all, connection lost    -> failed, worth another try
import { randomBytes, randomInt } from 'node:crypto';
import type { Socket as UdpSocket } from 'node:dgram';
import type { Logger } from 'pino';
import { digestAuthorization, parseChallenges, type DigestCredentials } from './digest-auth.js';
import { DtmfSequence, keyFromInfo, TelephoneEventReceiver } from './dtmf.js';
import { encodeG711 } from './g711.js';
import { decodeRtp, RtpSender } from './rtp.js';
import { buildOffer, parseAnswer, TELEPHONE_EVENT_PAYLOAD, type SdpAnswer, type SdpAnswerResult } from './sdp.js';
import type { SipConnection } from './sip-connection.js';
import { headerParam, headerUri, SipHeaders, type SipMessage, type SipRequest, type SipResponse } from './sip-message.js';

const T1_MS = 500;
const T2_MS = 4000;
const TRANSACTION_TIMEOUT_MS = 64 * T1_MS;
/** How long to wait for the 487 after a CANCEL, and for the answer to our BYE. */
const CANCEL_WAIT_MS = 4000;
const BYE_WAIT_MS = 4000;
/** Silence before the first reading: lets the callee's media path settle after the answer. */
export const LEAD_IN_MS = 400;
/** Silence after the last reading, before hanging up, so jitter buffers play the last syllable. */
export const TAIL_MS = 500;
const MAX_AUTH_ATTEMPTS = 2;
const ALLOW = 'INVITE, ACK, CANCEL, BYE, OPTIONS, INFO';
export const USER_AGENT = 'twofa';

export type CallOutcome =
  | {
      kind: 'answered';
      callId: string;
      readings: number;
      replays: number;
      framesSent: number;
      /** RTP packets that came back from the callee: none at all hints at a NAT or firewall problem. */
      packetsReceived: number;
      hungUpBy: 'us' | 'callee';
    }
  | { kind: 'busy'; status: number }
  | { kind: 'no-answer'; status: number | null }
  | { kind: 'failed'; reason: string; retryable: boolean };

export interface CallPlan {
  connection: SipConnection;
  /** Host (and port) for the Request-URI and From/To domains: the DSN's host. */
  domain: string;
  /** User part of the callee's URI, e.g. `+41793026727`. */
  calleeUser: string;
  /** User part of our From URI (the caller id). */
  callerUser: string;
  credentials?: DigestCredentials;
  /** Address advertised in Via, Contact and SDP (a NAT's public address, or the local one). */
  advertisedAddress: string;
  rtpSocket: UdpSocket;
  /** How long to let it ring before giving up (CANCEL). */
  ringTimeoutMs: number;
  /** Longest time on the line once answered, replays included. */
  maxDurationMs: number;
  /** One reading of the message, 8 kHz 16-bit mono PCM. */
  reading: Buffer;
  repeat: number;
  gapMs: number;
  /** Keys that replay the message; null for none. */
  repeatDtmf: string | null;
  /** After the last reading, how long to wait for the replay keys. */
  dtmfWaitMs: number;
  logger: Logger;
}

interface Dialog {
  remoteTag: string;
  remoteTarget: string;
  /** Record-Route of the 2xx, reversed: the Route headers of our in-dialog requests. */
  routeSet: string[];
  toHeader: string;
}

/** A client transaction: retransmits over UDP, matches its responses, times out. */
class ClientTransaction {
  private retransmitTimer: NodeJS.Timeout | undefined;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private interval = T1_MS;
  provisional = false;
  final: SipResponse | undefined;

  constructor(
    private readonly connection: SipConnection,
    readonly request: SipRequest,
    private readonly onResponse: (response: SipResponse) => void,
    private readonly onTimeout: () => void,
  ) {}

  start(): void {
    this.connection.send(this.request);
    if (!this.connection.reliable) this.scheduleRetransmit();
    this.timeoutTimer = setTimeout(() => {
      this.stop();
      if (this.final === undefined && !(this.request.method === 'INVITE' && this.provisional)) this.onTimeout();
    }, TRANSACTION_TIMEOUT_MS);
  }

  private scheduleRetransmit(): void {
    this.retransmitTimer = setTimeout(() => {
      if (this.final !== undefined) return;
      this.connection.send(this.request);
      this.interval = this.request.method === 'INVITE' ? this.interval * 2 : Math.min(this.interval * 2, T2_MS);
      this.scheduleRetransmit();
    }, this.interval);
  }

  receive(response: SipResponse): void {
    if (response.status < 200) {
      this.provisional = true;
      if (this.request.method === 'INVITE') {
        // A provisional answer ends INVITE retransmission (RFC 3261 17.1.1.2); the ring timer takes over.
        clearTimeout(this.retransmitTimer);
        clearTimeout(this.timeoutTimer);
      } else if (!this.connection.reliable) {
        this.interval = T2_MS;
      }
    } else if (this.final === undefined) {
      this.final = response;
      this.stop();
    }
    this.onResponse(response);
  }

  stop(): void {
    clearTimeout(this.retransmitTimer);
    clearTimeout(this.timeoutTimer);
  }
}

export class SipCall {
  readonly callId: string;
  private readonly fromTag = randomBytes(6).toString('hex');
  private cseq = randomInt(1, 10_000);
  private readonly transactions = new Map<string, ClientTransaction>();
  private invite: ClientTransaction | undefined;
  private authAttempts = 0;
  private dialog: Dialog | undefined;
  private readonly sdpOffer: string;
  private readonly requestUri: string;
  private settleRinging: ((result: RingResult) => void) | undefined;
  private ringTimer: NodeJS.Timeout | undefined;
  private cancelled = false;
  private cancelSent = false;
  /** Where key presses signalled by SIP INFO go, once the call is answered. */
  private onInfoKey: ((key: string) => void) | undefined;
  private readonly media = { ended: false, hungUpBy: 'us' as 'us' | 'callee', replayRequested: false, wake: () => {} };
  private sender: RtpSender | undefined;
  private aborted = false;

  constructor(private readonly plan: CallPlan) {
    this.callId = `${randomBytes(16).toString('hex')}@twofa`;
    this.requestUri = `sip:${plan.calleeUser}@${plan.domain}${plan.connection.protocol === 'tcp' ? ';transport=tcp' : ''}`;
    this.sdpOffer = buildOffer({
      address: plan.advertisedAddress,
      port: plan.rtpSocket.address().port,
      sessionId: String(randomInt(1, 2 ** 47)),
    });
  }

  /** Places the call and sees it through. Never throws. */
  async run(): Promise<CallOutcome> {
    try {
      return await this.place();
    } finally {
      // Retransmission timers must not outlive the call (its sockets close next).
      clearTimeout(this.ringTimer);
      for (const transaction of this.transactions.values()) transaction.stop();
    }
  }

  private async place(): Promise<CallOutcome> {
    const { connection } = this.plan;
    connection.onMessage = (message) => this.onMessage(message);
    const ring = new Promise<RingResult>((resolve) => (this.settleRinging = resolve));
    connection.onError = (error, fatal) => {
      this.plan.logger.debug({ err: error.message }, 'SIP connection problem');
      if (!fatal) return;
      if (this.dialog === undefined) this.settle({ kind: 'failed', reason: `connection lost: ${error.message}`, retryable: true });
      else this.endMedia('callee');
    };

    this.sendInvite(undefined);
    this.ringTimer = setTimeout(() => this.onRingTimeout(), this.plan.ringTimeoutMs);
    const result = await ring;
    clearTimeout(this.ringTimer);
    if (result.kind !== 'answered') return result;
    if (!result.sdp.ok) {
      await this.hangUp(this.dialog as Dialog);
      return { kind: 'failed', reason: `unusable SDP answer: ${result.sdp.error}`, retryable: false };
    }
    return this.talk(result.sdp.answer);
  }

  /** Ends the call early (the service shuts down): CANCEL while ringing, BYE once answered. */
  abort(): void {
    this.aborted = true;
    if (this.dialog === undefined) this.onRingTimeout();
    else this.endMedia('us');
  }

  // --- ringing --------------------------------------------------------------------------------

  private nextBranch(): string {
    return `z9hG4bK${randomBytes(10).toString('hex')}`;
  }

  private via(branch: string): string {
    const { connection, advertisedAddress } = this.plan;
    const host = advertisedAddress.includes(':') ? `[${advertisedAddress}]` : advertisedAddress;
    return `SIP/2.0/${connection.protocol.toUpperCase()} ${host}:${connection.localPort};branch=${branch};rport`;
  }

  private contact(): string {
    const { connection, advertisedAddress } = this.plan;
    const host = advertisedAddress.includes(':') ? `[${advertisedAddress}]` : advertisedAddress;
    return `<sip:twofa@${host}:${connection.localPort}${connection.protocol === 'tcp' ? ';transport=tcp' : ''}>`;
  }

  private fromHeader(): string {
    return `<sip:${this.plan.callerUser}@${this.plan.domain}>;tag=${this.fromTag}`;
  }

  private sendInvite(challengeResponse: SipResponse | undefined): void {
    const branch = this.nextBranch();
    this.cseq++;
    const headers = new SipHeaders()
      .append('Via', this.via(branch))
      .append('Max-Forwards', '70')
      .append('From', this.fromHeader())
      .append('To', `<${this.requestUri}>`)
      .append('Call-ID', this.callId)
      .append('CSeq', `${this.cseq} INVITE`)
      .append('Contact', this.contact())
      .append('Allow', ALLOW)
      .append('User-Agent', USER_AGENT)
      .append('Content-Type', 'application/sdp');
    const body = Buffer.from(this.sdpOffer, 'utf8');
    if (challengeResponse !== undefined && this.plan.credentials !== undefined) {
      const proxy = challengeResponse.status === 407;
      const challenge = parseChallenges(challengeResponse.headers.getAll(proxy ? 'Proxy-Authenticate' : 'WWW-Authenticate'))[0];
      if (challenge !== undefined) {
        headers.append(proxy ? 'Proxy-Authorization' : 'Authorization', digestAuthorization(challenge, this.plan.credentials, { method: 'INVITE', uri: this.requestUri, body }));
      }
    }
    const request: SipRequest = { kind: 'request', method: 'INVITE', uri: this.requestUri, headers, body };
    const transaction = new ClientTransaction(
      this.plan.connection,
      request,
      (response) => this.onInviteResponse(transaction, response),
      () => this.settle({ kind: 'failed', reason: 'no response from the SIP server', retryable: true }),
    );
    this.transactions.set(`${branch}|INVITE`, transaction);
    this.invite = transaction;
    transaction.start();
  }

  private onInviteResponse(transaction: ClientTransaction, response: SipResponse): void {
    const { status } = response;
    if (status < 200) {
      this.plan.logger.debug({ callId: this.callId, status }, 'SIP provisional response');
      // The ring timer fired before any provisional response: CANCEL is allowed only now.
      if (this.cancelled && !this.cancelSent) this.sendCancel(transaction);
      return;
    }
    if (status < 300) {
      this.onAnswered(response);
      return;
    }
    // A non-2xx final response is acknowledged within its transaction (same branch), and again for
    // every retransmission of it.
    this.sendNon2xxAck(transaction, response);
    if (transaction !== this.invite || transaction.final !== response) return;

    if ((status === 401 || status === 407) && this.canAuthenticate(response)) {
      this.authAttempts++;
      this.sendInvite(response);
      return;
    }
    this.settle(classifyFailure(response, this.cancelled, this.plan.credentials !== undefined));
  }

  private canAuthenticate(response: SipResponse): boolean {
    if (this.plan.credentials === undefined || this.authAttempts >= MAX_AUTH_ATTEMPTS) return false;
    const proxy = response.status === 407;
    const challenge = parseChallenges(response.headers.getAll(proxy ? 'Proxy-Authenticate' : 'WWW-Authenticate'))[0];
    if (challenge === undefined) return false;
    // A second challenge after our answer means the password is wrong, unless the nonce went stale.
    return this.authAttempts === 0 || challenge.stale;
  }

  private sendNon2xxAck(transaction: ClientTransaction, response: SipResponse): void {
    const invite = transaction.request;
    const headers = new SipHeaders()
      .append('Via', invite.headers.get('Via') as string)
      .append('Max-Forwards', '70')
      .append('From', invite.headers.get('From') as string)
      .append('To', response.headers.get('To') ?? (invite.headers.get('To') as string))
      .append('Call-ID', this.callId)
      .append('CSeq', `${cseqNumber(invite)} ACK`)
      .append('User-Agent', USER_AGENT);
    this.plan.connection.send({ kind: 'request', method: 'ACK', uri: invite.uri, headers, body: Buffer.alloc(0) });
  }

  private onRingTimeout(): void {
    if (this.dialog !== undefined || this.cancelled) return;
    this.cancelled = true;
    const invite = this.invite;
    if (invite === undefined || invite.final !== undefined) return;
    if (!invite.provisional) {
      // CANCEL may only follow a provisional response; with none, the server never answered at all.
      invite.stop();
      this.settle(this.aborted ? { kind: 'failed', reason: 'call aborted: the service is shutting down', retryable: true } : { kind: 'failed', reason: 'no response from the SIP server', retryable: true });
      return;
    }
    this.sendCancel(invite);
    // The 487 (or a last-moment 2xx) settles the call; a server that sends neither is given up on.
    setTimeout(() => this.settle({ kind: 'no-answer', status: null }), CANCEL_WAIT_MS).unref();
  }

  private sendCancel(invite: ClientTransaction): void {
    this.cancelSent = true;
    const request = invite.request;
    const headers = new SipHeaders()
      .append('Via', request.headers.get('Via') as string)
      .append('Max-Forwards', '70')
      .append('From', request.headers.get('From') as string)
      .append('To', request.headers.get('To') as string)
      .append('Call-ID', this.callId)
      .append('CSeq', `${cseqNumber(request)} CANCEL`)
      .append('User-Agent', USER_AGENT);
    const cancel: SipRequest = { kind: 'request', method: 'CANCEL', uri: request.uri, headers, body: Buffer.alloc(0) };
    const branch = headerParam(request.headers.get('Via'), 'branch') as string;
    const transaction = new ClientTransaction(this.plan.connection, cancel, () => undefined, () => undefined);
    this.transactions.set(`${branch}|CANCEL`, transaction);
    transaction.start();
  }

  private onAnswered(response: SipResponse): void {
    const remoteTag = headerParam(response.headers.get('To'), 'tag') ?? '';
    if (this.dialog === undefined) {
      this.dialog = {
        remoteTag,
        remoteTarget: headerUri(response.headers.get('Contact')) ?? this.requestUri,
        routeSet: response.headers.getAll('Record-Route').reverse(),
        toHeader: response.headers.get('To') ?? `<${this.requestUri}>`,
      };
      this.sendAck(this.dialog, response);
      if (this.settleRinging === undefined) {
        // Answered after we gave up on it (past the CANCEL): hang up at once.
        this.sendInDialog(this.dialog, 'BYE');
        return;
      }
      this.settle({ kind: 'answered', sdp: parseAnswer(response.body.toString('utf8')) });
      return;
    }
    if (remoteTag === this.dialog.remoteTag) {
      // A retransmitted 2xx: our ACK was lost.
      this.sendAck(this.dialog, response);
      return;
    }
    // A second callee answered a forked INVITE: acknowledge and hang up on it (RFC 3261 13.2.2.4).
    const other: Dialog = { remoteTag, remoteTarget: headerUri(response.headers.get('Contact')) ?? this.requestUri, routeSet: response.headers.getAll('Record-Route').reverse(), toHeader: response.headers.get('To') ?? '' };
    this.sendAck(other, response);
    this.sendInDialog(other, 'BYE');
  }

  private inDialogHeaders(dialog: Dialog, branch: string, cseq: string): SipHeaders {
    const headers = new SipHeaders().append('Via', this.via(branch)).append('Max-Forwards', '70');
    for (const route of dialog.routeSet) headers.append('Route', route);
    return headers
      .append('From', this.fromHeader())
      .append('To', dialog.toHeader)
      .append('Call-ID', this.callId)
      .append('CSeq', cseq)
      .append('User-Agent', USER_AGENT);
  }

  private sendAck(dialog: Dialog, response: SipResponse): void {
    const cseq = /^(\d+)/.exec(response.headers.get('CSeq') ?? '')?.[1] ?? String(this.cseq);
    const headers = this.inDialogHeaders(dialog, this.nextBranch(), `${cseq} ACK`);
    this.plan.connection.send({ kind: 'request', method: 'ACK', uri: dialog.remoteTarget, headers, body: Buffer.alloc(0) });
  }

  private sendInDialog(dialog: Dialog, method: 'BYE', onFinal?: (response: SipResponse | null) => void): void {
    const branch = this.nextBranch();
    this.cseq++;
    const headers = this.inDialogHeaders(dialog, branch, `${this.cseq} ${method}`);
    const request: SipRequest = { kind: 'request', method, uri: dialog.remoteTarget, headers, body: Buffer.alloc(0) };
    const transaction = new ClientTransaction(
      this.plan.connection,
      request,
      (response) => {
        if (response.status >= 200) onFinal?.(response);
      },
      () => onFinal?.(null),
    );
    this.transactions.set(`${branch}|${method}`, transaction);
    transaction.start();
  }

  private settle(result: RingResult): void {
    const settle = this.settleRinging;
    this.settleRinging = undefined;
    settle?.(result);
  }

  // --- talking --------------------------------------------------------------------------------

  private async talk(answer: SdpAnswer): Promise<CallOutcome> {
    const { plan } = this;
    const dialog = this.dialog as Dialog;
    const answeredAt = Date.now();
    const audio = encodeG711(answer.codec, plan.reading);
    const sender = new RtpSender(plan.rtpSocket, { address: answer.address, port: answer.port }, answer.payloadType, answer.codec);
    this.sender = sender;

    const telephoneEvents = new TelephoneEventReceiver();
    const eventPayload = answer.telephoneEventPayload ?? TELEPHONE_EVENT_PAYLOAD;
    const sequence = plan.repeatDtmf === null ? null : new DtmfSequence(plan.repeatDtmf);
    const onKey = (key: string): void => {
      if (sequence?.press(key) === true && !this.media.ended) {
        this.media.replayRequested = true;
        sender.interrupt();
        this.media.wake();
      }
    };
    this.onInfoKey = onKey;
    let packetsReceived = 0;
    plan.rtpSocket.on('message', (data) => {
      const packet = decodeRtp(data);
      if (packet === null) return;
      packetsReceived++;
      if (packet.header.payloadType !== eventPayload) return;
      const key = telephoneEvents.receive(packet.header.timestamp, packet.payload);
      if (key !== null) onKey(key);
    });
    const deadline = setTimeout(() => this.endMedia('us'), plan.maxDurationMs);

    let readings = 0;
    let replays = 0;
    let remaining = plan.repeat;
    sender.start();
    try {
      await sender.pause(LEAD_IN_MS);
      while (!this.media.ended) {
        if (this.media.replayRequested) {
          this.media.replayRequested = false;
          replays++;
          remaining = 1;
        }
        if (remaining > 0) {
          await sender.play(audio);
          if (this.media.ended || this.media.replayRequested) continue;
          readings++;
          remaining--;
          await sender.pause(remaining > 0 ? plan.gapMs : sequence === null ? TAIL_MS : 0);
          continue;
        }
        if (sequence === null || Date.now() - answeredAt >= plan.maxDurationMs) break;
        // Listen for the replay keys, with silence on the line.
        await this.waitForReplay(plan.dtmfWaitMs);
        if (!this.media.replayRequested) break;
      }
    } finally {
      clearTimeout(deadline);
      sender.stop();
      audio.fill(0);
    }

    const hungUpBy = this.media.hungUpBy;
    if (hungUpBy === 'us') await this.hangUp(dialog);
    return { kind: 'answered', callId: this.callId, readings, replays, framesSent: sender.framesSent, packetsReceived, hungUpBy };
  }

  /** Waits up to `ms` (the sender keeps the line going with silence) or until a replay or hang-up. */
  private waitForReplay(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const media = this.media;
      function done(): void {
        clearTimeout(timer);
        media.wake = () => {};
        resolve();
      }
      media.wake = done;
    });
  }

  /** BYE, and its answer awaited for a while (the call counts as over either way). */
  private hangUp(dialog: Dialog): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, BYE_WAIT_MS);
      this.sendInDialog(dialog, 'BYE', (response) => {
        if (response === null || response.status >= 300) this.plan.logger.debug({ callId: this.callId, status: response?.status ?? null }, 'BYE not answered with 2xx');
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private endMedia(by: 'us' | 'callee'): void {
    if (this.media.ended) return;
    this.media.ended = true;
    this.media.hungUpBy = by;
    this.sender?.interrupt();
    this.media.wake();
  }

  // --- incoming -------------------------------------------------------------------------------

  private onMessage(message: SipMessage): void {
    if (message.kind === 'response') {
      const branch = headerParam(message.headers.get('Via'), 'branch');
      const method = /^\d+\s+(\S+)/.exec(message.headers.get('CSeq') ?? '')?.[1]?.toUpperCase();
      const transaction = branch === undefined || method === undefined ? undefined : this.transactions.get(`${branch}|${method}`);
      transaction?.receive(message);
      return;
    }
    this.onRequest(message);
  }

  private onRequest(request: SipRequest): void {
    if (request.method === 'ACK') return; // for a 2xx we sent to a re-INVITE: nothing to do
    if (request.headers.get('Call-ID') !== this.callId) {
      this.respond(request, 481, 'Call/Transaction Does Not Exist');
      return;
    }
    switch (request.method) {
      case 'BYE':
        this.respond(request, 200, 'OK');
        if (this.dialog === undefined) {
          // BYE before the 2xx arrived: the callee answered and hung up at once.
          this.settle({ kind: 'failed', reason: 'the callee hung up before the call was set up', retryable: true });
        } else this.endMedia('callee');
        return;
      case 'OPTIONS':
        this.respond(request, 200, 'OK', (headers) => headers.append('Allow', ALLOW));
        return;
      case 'INFO': {
        const key = keyFromInfo(request.headers.get('Content-Type'), request.body.toString('utf8'));
        this.respond(request, 200, 'OK');
        if (key !== null) this.onInfoKey?.(key);
        return;
      }
      case 'INVITE':
        // A re-INVITE (session refresh, hold): keep the session as it is.
        this.respond(request, 200, 'OK', (headers) => headers.append('Contact', this.contact()).append('Content-Type', 'application/sdp'), Buffer.from(this.sdpOffer, 'utf8'));
        return;
      default:
        this.respond(request, 501, 'Not Implemented', (headers) => headers.append('Allow', ALLOW));
    }
  }

  private respond(request: SipRequest, status: number, reason: string, extra?: (headers: SipHeaders) => void, body = Buffer.alloc(0)): void {
    const headers = new SipHeaders();
    for (const via of request.headers.getAll('Via')) headers.append('Via', via);
    headers.append('From', request.headers.get('From') ?? '');
    let to = request.headers.get('To') ?? '';
    if (headerParam(to, 'tag') === undefined) to += `;tag=${this.fromTag}`;
    headers.append('To', to).append('Call-ID', request.headers.get('Call-ID') ?? '').append('CSeq', request.headers.get('CSeq') ?? '').append('User-Agent', USER_AGENT);
    extra?.(headers);
    this.plan.connection.send({ kind: 'response', status, reason, headers, body });
  }
}

type RingResult = { kind: 'answered'; sdp: SdpAnswerResult } | Exclude<CallOutcome, { kind: 'answered' }>;

function cseqNumber(request: SipRequest): string {
  return /^(\d+)/.exec(request.headers.get('CSeq') ?? '')?.[1] ?? '1';
}

function classifyFailure(response: SipResponse, cancelled: boolean, hadCredentials: boolean): RingResult {
  const { status } = response;
  if (status === 486 || status === 600 || status === 603) return { kind: 'busy', status };
  if (status === 408 || status === 480 || status === 487) {
    // 487 after our own CANCEL is the ring timeout; otherwise the network gave up ringing.
    return { kind: 'no-answer', status: cancelled && status === 487 ? null : status };
  }
  if (status === 401 || status === 407) {
    return { kind: 'failed', reason: hadCredentials ? `${status} (the SIP server refused the DSN's credentials)` : `${status} (the SIP server wants credentials: put user:password in the DSN)`, retryable: false };
  }
  const reason = response.reason.replace(/[^\x20-\x7E]/g, '').slice(0, 60);
  return { kind: 'failed', reason: `${status}${reason === '' ? '' : ` ${reason}`}`, retryable: status >= 500 && status < 600 };
}
