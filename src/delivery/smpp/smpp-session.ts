// One long-lived SMPP 3.4 transceiver bind to an SMSC, wrapped around the untyped `smpp` package.
// This file is the only one that knows the package: everything above it sees our typed PDUs and
// promises, so the codec can be replaced (or written in-house) without touching the transport.
//
// What the session guarantees:
// - A submit is written at most once. If the bind is lost after a submit_sm was written, that submit
//   fails as `connection-lost` and is never written again on the next bind: only the caller knows
//   whether resending is acceptable. Submits still waiting for a window slot were never written, so
//   they wait for the next bind (within their own timeout).
// - A submit never waits longer than its timeout, whether it waits for a bind, a window slot or the
//   SMSC's answer.
// - At most `window` submit_sm are outstanding; further submits queue in arrival order.
// - The bind is kept alive with enquire_link when nothing arrived for `enquireLinkIntervalMs`; an
//   unanswered enquire_link drops the connection. Any drop is followed by reconnect attempts with
//   exponential backoff and jitter; a submit arriving while disconnected brings the next attempt
//   forward (at most one attempt per `reconnectMinMs`).
// - Every deliver_sm is answered with deliver_sm_resp (ESME_ROK) after the handler ran.
// - The bind never keeps the process alive by itself: the socket is unref'd while nothing is pending,
//   so a CLI command that forgot close() can still exit. close() unbinds cleanly.
import { randomInt } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import type { Logger } from 'pino';
import smpp from 'smpp';
import {
  describeCommandStatus,
  ESME_RINVPASWD,
  ESME_RINVSYSID,
  ESME_RINVSYSTYP,
} from './smpp-command-status.js';

export const DEFAULT_ENQUIRE_LINK_INTERVAL_MS = 30_000;
export const DEFAULT_RESPONSE_TIMEOUT_MS = 10_000;
export const DEFAULT_WINDOW = 10;
export const DEFAULT_RECONNECT_MIN_MS = 1_000;
export const DEFAULT_RECONNECT_MAX_MS = 60_000;

/** SMPP 3.4 in bind_*.interface_version (the package would announce 5.0). */
const INTERFACE_VERSION_3_4 = 0x34;
const ESME_RINVCMDID = 0x03;
/** A bind that lasted this long counts as healthy: the next drop starts the backoff from scratch. */
const STABLE_BIND_MS = 30_000;
const UNBIND_WAIT_MAX_MS = 5_000;
const SOCKET_END_WAIT_MS = 1_000;

/** Bind refusals that mean the DSN's credentials are wrong: retrying the same message cannot help. */
const CREDENTIAL_STATUSES = new Set([ESME_RINVPASWD, ESME_RINVSYSID, ESME_RINVSYSTYP]);

export interface SmppSessionOptions {
  host: string;
  port: number;
  /** smpps://: true for Node's defaults (system CAs, servername = host), or explicit TLS options. */
  tls?: boolean | ConnectionOptions;
  systemId: string;
  password: string;
  systemType?: string;
  /** Send enquire_link when nothing arrived for this long. Default 30 s. */
  enquireLinkIntervalMs?: number;
  /** Connect + bind, enquire_link and unbind must be answered within this; the default submit timeout. Default 10 s. */
  responseTimeoutMs?: number;
  /** Most submit_sm awaiting their submit_sm_resp at once. Default 10. */
  window?: number;
  /** Backoff between reconnect attempts: from this (default 1 s) doubling up to reconnectMaxMs (default 60 s). */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  logger: Logger;
  /** Called for every deliver_sm (receipts and mobile-originated messages); the session acknowledges it afterwards. */
  onDeliverSm?: (pdu: DeliverSm) => void;
}

export interface SubmitSm {
  serviceType?: string;
  sourceAddrTon: number;
  sourceAddrNpi: number;
  sourceAddr: string;
  destAddrTon: number;
  destAddrNpi: number;
  destinationAddr: string;
  esmClass: number;
  registeredDelivery: number;
  dataCoding: number;
  /** Octets as they go on the wire (UDH included when esmClass has 0x40), at most 254. */
  shortMessage: Buffer;
  /** Optional parameters the SMSC defines itself (vendor-specific tags, 0x1400-0x3FFF), each an octet string. */
  tlvs?: { tag: number; value: Buffer }[];
}

export interface SubmitSmResp {
  commandStatus: number;
  /** The SMSC's id for the message; empty when it refused it. */
  messageId: string;
}

export interface DeliverSm {
  esmClass: number;
  dataCoding: number;
  sourceAddr: string;
  destinationAddr: string;
  /** short_message (or message_payload) decoded per data_coding, UDH removed. */
  text?: string;
  receiptedMessageId?: string;
  messageState?: number;
  /** network_error_code TLV: network type, then a 2-octet error code. */
  networkErrorCode?: Buffer;
}

export type SmppFailure =
  /** No answer (or no bind, or no window slot) within the timeout. */
  | 'timeout'
  /** The connection went away after the PDU was written: the SMSC may or may not have it. */
  | 'connection-lost'
  /** Could not connect, or the connection closed before the bind completed. */
  | 'unreachable'
  /** The SMSC answered bind_transceiver with an error status. */
  | 'bind-refused'
  /** close() was called. */
  | 'closed';

export class SmppSessionError extends Error {
  constructor(
    readonly reason: SmppFailure,
    message: string,
    /** Whether the same submit may succeed later; false only for credentials the SMSC refused. */
    readonly retryable: boolean,
    /** Whether the submit_sm was written to the socket (and so may have reached the SMSC). */
    readonly written = false,
    readonly commandStatus?: number,
  ) {
    super(message);
    this.name = 'SmppSessionError';
  }
}

export type SmppSessionState = 'idle' | 'connecting' | 'bound' | 'waiting' | 'closing' | 'closed';

interface Pending {
  pdu: SubmitSm;
  timeoutMs: number;
  timer: NodeJS.Timeout;
  phase: 'queued' | 'written' | 'done';
  connId: number;
  resolve: (resp: SubmitSmResp) => void;
  reject: (err: SmppSessionError) => void;
}

export class SmppSession {
  private readonly host: string;
  private readonly port: number;
  private readonly tls: ConnectionOptions | undefined;
  private readonly systemId: string;
  private readonly password: string;
  private readonly systemType: string;
  private readonly enquireLinkIntervalMs: number;
  private readonly responseTimeoutMs: number;
  private readonly window: number;
  private readonly reconnectMinMs: number;
  private readonly reconnectMaxMs: number;
  private readonly logger: Logger;
  private readonly onDeliverSm: ((pdu: DeliverSm) => void) | undefined;

  private currentState: SmppSessionState = 'idle';
  private conn: smpp.Session | undefined;
  /** Bumped for every connection, so that events of an abandoned one are recognised and ignored. */
  private connId = 0;
  private readonly queue: Pending[] = [];
  private readonly inFlight = new Set<Pending>();
  private inFlightDrained: (() => void)[] = [];

  private attemptTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private nextAttemptAt = 0;
  private lastAttemptStartedAt = Number.NEGATIVE_INFINITY;
  /** Consecutive failed attempts (or short-lived binds): the backoff exponent. */
  private failures = 0;
  private lastError: SmppSessionError | undefined;
  private boundAt = 0;

  private enquireTimer: NodeJS.Timeout | undefined;
  private enquireAnswerTimer: NodeJS.Timeout | undefined;
  private lastReceivedAt = 0;
  private closing: Promise<void> | undefined;

  constructor(options: SmppSessionOptions) {
    this.host = options.host;
    this.port = options.port;
    this.tls = options.tls === true ? {} : options.tls === false ? undefined : options.tls;
    this.systemId = options.systemId;
    this.password = options.password;
    this.systemType = options.systemType ?? '';
    this.enquireLinkIntervalMs = options.enquireLinkIntervalMs ?? DEFAULT_ENQUIRE_LINK_INTERVAL_MS;
    this.responseTimeoutMs = options.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS;
    this.window = options.window ?? DEFAULT_WINDOW;
    this.reconnectMinMs = options.reconnectMinMs ?? DEFAULT_RECONNECT_MIN_MS;
    this.reconnectMaxMs = Math.max(options.reconnectMaxMs ?? DEFAULT_RECONNECT_MAX_MS, this.reconnectMinMs);
    this.logger = options.logger;
    this.onDeliverSm = options.onDeliverSm;
  }

  get state(): SmppSessionState {
    return this.currentState;
  }

  /** Submits awaiting their submit_sm_resp. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Opens the bind now rather than at the first submit (so queued receipts arrive and bad credentials show at startup). */
  start(): void {
    if (this.currentState === 'idle') this.connect();
  }

  /**
   * Sends one submit_sm. Resolves with the SMSC's answer whatever its command_status (judging it is
   * the caller's business); rejects with SmppSessionError when there is no answer.
   */
  submit(pdu: SubmitSm, options: { timeoutMs?: number } = {}): Promise<SubmitSmResp> {
    if (this.currentState === 'closing' || this.currentState === 'closed') {
      return Promise.reject(new SmppSessionError('closed', 'the SMPP session is closed', true));
    }
    const timeoutMs = Math.max(1, options.timeoutMs ?? this.responseTimeoutMs);
    return new Promise<SubmitSmResp>((resolve, reject) => {
      const pending: Pending = {
        pdu,
        timeoutMs,
        phase: 'queued',
        connId: 0,
        resolve,
        reject,
        timer: setTimeout(() => this.expire(pending), timeoutMs),
      };
      this.queue.push(pending);
      this.demandConnection();
      this.pump();
      this.updateRef();
    });
  }

  /** Stops reconnecting, fails queued submits, lets written ones finish (within the timeout), unbinds and disconnects. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  // --- submits -------------------------------------------------------------------------------

  private pump(): void {
    while (this.currentState === 'bound' && this.inFlight.size < this.window && this.queue.length > 0) {
      const pending = this.queue.shift() as Pending;
      if (!this.write(pending)) break;
    }
    this.updateRef();
  }

  private write(pending: Pending): boolean {
    const conn = this.conn as smpp.Session;
    const connId = this.connId;
    pending.phase = 'written';
    pending.connId = connId;
    this.inFlight.add(pending);
    const written = conn.send(new smpp.PDU('submit_sm', submitFields(pending.pdu)), (resp) => {
      // An answer after the timeout (or for an abandoned connection) is too late: the caller has moved on.
      if (pending.phase !== 'written' || pending.connId !== connId) return;
      this.finish(pending);
      const messageId = typeof resp.message_id === 'string' ? resp.message_id : '';
      pending.resolve({ commandStatus: resp.command_status, messageId });
      this.pump();
    });
    if (!written) {
      // Nothing went out: the submit may safely wait for the next bind.
      this.inFlight.delete(pending);
      pending.phase = 'queued';
      this.queue.unshift(pending);
      this.dropped(connId, 'the socket is no longer writable');
      return false;
    }
    return true;
  }

  private finish(pending: Pending): void {
    clearTimeout(pending.timer);
    pending.phase = 'done';
    if (this.inFlight.delete(pending) && this.inFlight.size === 0) {
      const waiters = this.inFlightDrained;
      this.inFlightDrained = [];
      for (const waiter of waiters) waiter();
    }
  }

  private expire(pending: Pending): void {
    const seconds = formatSeconds(pending.timeoutMs);
    if (pending.phase === 'queued') {
      const at = this.queue.indexOf(pending);
      if (at !== -1) this.queue.splice(at, 1);
      pending.phase = 'done';
      const why =
        this.currentState === 'bound'
          ? `no free slot in the submit window (${this.window}) within ${seconds}`
          // Worded as the bind attempt's own timeout says it: whichever timer fires first, the sender
          // learns the same thing (no bind in time).
          : `no bind within ${seconds}: not bound to the SMSC${this.lastError ? ` (last error: ${this.lastError.message})` : ''}`;
      pending.reject(new SmppSessionError('timeout', why, true));
    } else if (pending.phase === 'written') {
      this.finish(pending);
      pending.reject(new SmppSessionError('timeout', `the SMSC did not answer submit_sm within ${seconds}`, true, true));
      // A silent SMSC may be a dead link: find out now rather than at the next idle check.
      this.sendEnquireLink();
      this.pump();
    }
    this.updateRef();
  }

  private rejectQueued(err: SmppSessionError): void {
    for (const pending of this.queue.splice(0)) {
      clearTimeout(pending.timer);
      pending.phase = 'done';
      pending.reject(err);
    }
  }

  private rejectInFlight(err: SmppSessionError): void {
    for (const pending of [...this.inFlight]) {
      this.finish(pending);
      pending.reject(err);
    }
  }

  // --- connection lifecycle -----------------------------------------------------------------

  private connect(): void {
    this.clearReconnectTimer();
    this.currentState = 'connecting';
    const connId = ++this.connId;
    this.lastAttemptStartedAt = Date.now();
    let conn: smpp.Session;
    try {
      conn = smpp.connect({ host: this.host, port: this.port, ...(this.tls && { ...this.tls, tls: true }) });
    } catch (err) {
      // e.g. TLS options Node refuses outright: reported like any other failed attempt.
      this.attemptFailed(connId, new SmppSessionError('unreachable', `cannot connect to the SMSC at ${this.host}:${this.port}: ${(err as Error).message}`, true));
      return;
    }
    this.conn = conn;
    this.updateRef();

    this.attemptTimer = setTimeout(() => {
      this.attemptFailed(connId, new SmppSessionError('unreachable', `no bind within ${formatSeconds(this.responseTimeoutMs)} (connect and bind_transceiver)`, true));
    }, this.responseTimeoutMs);
    this.attemptTimer.unref();

    conn.on(this.tls ? 'secureConnect' : 'connect', () => {
      if (connId !== this.connId || this.currentState !== 'connecting') return;
      conn.bind_transceiver(
        {
          system_id: this.systemId,
          password: this.password,
          system_type: this.systemType,
          interface_version: INTERFACE_VERSION_3_4,
        },
        (resp) => this.onBindResponse(connId, resp),
      );
    });
    conn.on('pdu', (pdu: smpp.PDU) => this.onPdu(connId, pdu));
    conn.on('error', (err: Error) => this.onConnectionEnd(connId, describeSocketError(err)));
    conn.on('close', () => this.onConnectionEnd(connId, 'the connection was closed'));
  }

  private onBindResponse(connId: number, resp: smpp.PDU): void {
    if (connId !== this.connId || this.currentState !== 'connecting') return;
    const status = resp.command_status;
    if (status !== 0) {
      const credentials = CREDENTIAL_STATUSES.has(status);
      const hint = credentials ? ': check system_id, password and system_type in the DSN' : '';
      this.attemptFailed(
        connId,
        new SmppSessionError('bind-refused', `the SMSC refused bind_transceiver with ${describeCommandStatus(status)}${hint}`, !credentials, false, status),
      );
      return;
    }
    clearTimeout(this.attemptTimer);
    this.currentState = 'bound';
    this.boundAt = Date.now();
    this.lastReceivedAt = this.boundAt;
    this.lastError = undefined;
    this.logger.info({ smsc: `${this.host}:${this.port}`, systemId: this.systemId, tls: this.tls !== undefined }, 'SMPP bound (transceiver)');
    this.armEnquireLink(this.enquireLinkIntervalMs);
    this.pump();
  }

  private onConnectionEnd(connId: number, reason: string): void {
    if (connId !== this.connId) return;
    if (this.currentState === 'connecting') {
      this.attemptFailed(connId, new SmppSessionError('unreachable', `cannot reach the SMSC at ${this.host}:${this.port}: ${reason}`, true));
    } else if (this.currentState === 'bound') {
      this.dropped(connId, reason);
    } else if (this.currentState === 'closing') {
      this.rejectInFlight(new SmppSessionError('connection-lost', `the connection was lost while closing: ${reason}`, true, true));
    }
  }

  private attemptFailed(connId: number, err: SmppSessionError): void {
    if (connId !== this.connId || this.currentState !== 'connecting') return;
    clearTimeout(this.attemptTimer);
    this.abandonConnection(false);
    this.failures += 1;
    this.lastError = err;
    // Nothing was written on this connection, so nothing is lost by failing fast: the caller retries later.
    this.rejectQueued(err);
    const delay = this.backoff();
    this.logger.warn({ smsc: `${this.host}:${this.port}`, err: err.message, retryInMs: delay }, 'SMPP connect/bind failed');
    this.scheduleReconnect(delay);
  }

  /** A working bind went away: written submits fail (the SMSC may have them), queued ones wait for the next bind. */
  private dropped(connId: number, reason: string, graceful = false): void {
    if (connId !== this.connId || this.currentState !== 'bound') return;
    this.abandonConnection(graceful);
    const lostSubmits = this.inFlight.size;
    const err = new SmppSessionError('connection-lost', `the SMPP connection was lost after submit_sm was sent (${reason}); the SMSC may or may not have accepted it`, true, true);
    this.rejectInFlight(err);
    this.failures = Date.now() - this.boundAt >= STABLE_BIND_MS ? 0 : this.failures + 1;
    this.lastError = new SmppSessionError('connection-lost', `the SMPP connection was lost (${reason})`, true);
    // After a healthy bind the first reconnect comes at once (within a jittered second); a flapping one backs off.
    const delay = this.failures === 0 ? randomInt(0, this.reconnectMinMs + 1) : this.backoff();
    this.logger.warn({ smsc: `${this.host}:${this.port}`, reason, lostSubmits, retryInMs: delay }, 'SMPP bind lost');
    this.scheduleReconnect(delay);
    this.pump();
  }

  private abandonConnection(graceful: boolean): void {
    this.stopEnquireLink();
    const conn = this.conn;
    this.conn = undefined;
    // Later events of this connection carry a stale id and are ignored.
    this.connId += 1;
    if (!conn) return;
    conn.on('error', () => undefined);
    if (graceful) conn.close();
    else conn.destroy();
  }

  /** Exponential backoff with equal jitter: a random delay in [d/2, d], d doubling per failure. */
  private backoff(): number {
    const exponent = Math.min(Math.max(this.failures - 1, 0), 30);
    const ceiling = Math.min(this.reconnectMaxMs, this.reconnectMinMs * 2 ** exponent);
    return randomInt(Math.floor(ceiling / 2), ceiling + 1);
  }

  private scheduleReconnect(delayMs: number): void {
    this.clearReconnectTimer();
    this.currentState = 'waiting';
    this.nextAttemptAt = Date.now() + delayMs;
    this.reconnectTimer = setTimeout(() => this.connect(), delayMs);
    // A pending submit holds its own (ref'd) timer; reconnecting alone does not keep the process up.
    this.reconnectTimer.unref();
    this.updateRef();
  }

  private clearReconnectTimer(): void {
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
  }

  /** Someone wants to send: connect now if idle, or bring the next attempt forward (rate-limited by reconnectMinMs). */
  private demandConnection(): void {
    if (this.currentState === 'idle') {
      this.connect();
    } else if (this.currentState === 'waiting') {
      const earliest = Math.max(Date.now(), this.lastAttemptStartedAt + this.reconnectMinMs);
      if (earliest < this.nextAttemptAt) this.scheduleReconnect(earliest - Date.now());
    }
  }

  // --- incoming PDUs ------------------------------------------------------------------------

  private onPdu(connId: number, pdu: smpp.PDU): void {
    if (connId !== this.connId) return;
    this.lastReceivedAt = Date.now();
    if (pdu.isResponse()) {
      if (pdu.command === 'enquire_link_resp') this.enquireAnswered();
      return; // submit_sm_resp and bind_transceiver_resp reach their callbacks through the package
    }
    const conn = this.conn;
    if (!conn) return;
    switch (pdu.command) {
      case 'deliver_sm':
        this.handleDeliverSm(pdu);
        conn.send(pdu.response({ message_id: '' }));
        return;
      case 'enquire_link':
        conn.send(pdu.response());
        return;
      case 'unbind':
        conn.send(pdu.response());
        this.dropped(connId, 'the SMSC unbound the session', true);
        return;
      case 'alert_notification':
      case 'outbind':
        return; // no response is defined for these
      default:
        // 'unknown' becomes generic_nack; data_sm and other requests get their *_resp with the status.
        conn.send(pdu.response({ command_status: ESME_RINVCMDID }));
    }
  }

  private handleDeliverSm(pdu: smpp.PDU): void {
    if (!this.onDeliverSm) return;
    try {
      this.onDeliverSm(toDeliverSm(pdu));
    } catch (err) {
      // The SMSC would redeliver an unacknowledged deliver_sm forever; a handler bug must not cause that.
      this.logger.error({ err }, 'deliver_sm handler failed; acknowledged anyway');
    }
  }

  // --- enquire_link -------------------------------------------------------------------------

  private armEnquireLink(delayMs: number): void {
    if (this.enquireTimer !== undefined) clearTimeout(this.enquireTimer);
    this.enquireTimer = setTimeout(() => this.enquireLinkDue(), delayMs);
    this.enquireTimer.unref();
  }

  private enquireLinkDue(): void {
    if (this.currentState !== 'bound') return;
    const idle = Date.now() - this.lastReceivedAt;
    if (idle >= this.enquireLinkIntervalMs) {
      this.sendEnquireLink();
      this.armEnquireLink(this.enquireLinkIntervalMs);
    } else {
      this.armEnquireLink(this.enquireLinkIntervalMs - idle);
    }
  }

  private sendEnquireLink(): void {
    const conn = this.conn;
    if (this.currentState !== 'bound' || !conn || this.enquireAnswerTimer !== undefined) return;
    const connId = this.connId;
    this.enquireAnswerTimer = setTimeout(() => {
      this.enquireAnswerTimer = undefined;
      this.dropped(connId, `enquire_link was not answered within ${formatSeconds(this.responseTimeoutMs)}`);
    }, this.responseTimeoutMs);
    this.enquireAnswerTimer.unref();
    if (!conn.enquire_link({})) this.dropped(connId, 'the socket is no longer writable');
  }

  private enquireAnswered(): void {
    if (this.enquireAnswerTimer !== undefined) clearTimeout(this.enquireAnswerTimer);
    this.enquireAnswerTimer = undefined;
  }

  private stopEnquireLink(): void {
    if (this.enquireTimer !== undefined) clearTimeout(this.enquireTimer);
    this.enquireTimer = undefined;
    this.enquireAnswered();
  }

  // --- shutdown -----------------------------------------------------------------------------

  private async shutdown(): Promise<void> {
    const wasBound = this.currentState === 'bound';
    this.currentState = 'closing';
    this.clearReconnectTimer();
    clearTimeout(this.attemptTimer);
    this.stopEnquireLink();
    this.rejectQueued(new SmppSessionError('closed', 'the SMPP session was closed before the message was sent', true));
    const conn = this.conn;
    if (conn && wasBound) {
      // Written submits get their answer (or their timeout) first: unbinding would lose them.
      if (this.inFlight.size > 0) {
        await new Promise<void>((resolve) => this.inFlightDrained.push(resolve));
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(this.responseTimeoutMs, UNBIND_WAIT_MAX_MS));
        const done = (): void => {
          clearTimeout(timer);
          resolve();
        };
        if (!conn.unbind({}, done)) done();
        conn.once('close', done);
      });
    }
    this.rejectInFlight(new SmppSessionError('closed', 'the SMPP session was closed', true, true));
    if (conn && wasBound) await endConnection(conn);
    else conn?.destroy(); // still connecting: there is nothing to say goodbye to
    this.conn = undefined;
    this.connId += 1;
    this.currentState = 'closed';
    if (wasBound) this.logger.info({ smsc: `${this.host}:${this.port}` }, 'SMPP unbound');
  }

  /** Keeps the process alive only while a submit is waiting for something. */
  private updateRef(): void {
    const socket = this.conn?.socket;
    if (!socket) return;
    if (this.queue.length > 0 || this.inFlight.size > 0) socket.ref();
    else socket.unref();
  }
}

/**
 * The package writes only TLVs it knows by name: a vendor tag gets a name of its own, registered once
 * (octet string), so that it is written like the standard ones.
 */
function vendorTlvName(tag: number): string {
  const name = `vendor_tlv_0x${tag.toString(16)}`;
  if (!(name in smpp.tlvs)) smpp.addTLV(name, { id: tag, type: smpp.types.tlv.buffer });
  return name;
}

function submitFields(pdu: SubmitSm): Record<string, unknown> {
  const tlvs = Object.fromEntries((pdu.tlvs ?? []).map((t) => [vendorTlvName(t.tag), t.value]));
  return {
    ...tlvs,
    service_type: pdu.serviceType ?? '',
    source_addr_ton: pdu.sourceAddrTon,
    source_addr_npi: pdu.sourceAddrNpi,
    source_addr: pdu.sourceAddr,
    dest_addr_ton: pdu.destAddrTon,
    dest_addr_npi: pdu.destAddrNpi,
    destination_addr: pdu.destinationAddr,
    esm_class: pdu.esmClass,
    registered_delivery: pdu.registeredDelivery,
    data_coding: pdu.dataCoding,
    // A Buffer passes the package's text encoder untouched: we encode (and segment) ourselves.
    short_message: pdu.shortMessage,
  };
}

function toDeliverSm(pdu: smpp.PDU): DeliverSm {
  const text = messageText(pdu.short_message) ?? messageText(pdu.message_payload);
  const result: DeliverSm = {
    esmClass: numberField(pdu.esm_class),
    dataCoding: numberField(pdu.data_coding),
    sourceAddr: stringField(pdu.source_addr),
    destinationAddr: stringField(pdu.destination_addr),
  };
  if (text !== undefined && text !== '') result.text = text;
  if (typeof pdu.receipted_message_id === 'string') result.receiptedMessageId = pdu.receipted_message_id.replace(/\0+$/, '');
  if (typeof pdu.message_state === 'number') result.messageState = pdu.message_state;
  if (Buffer.isBuffer(pdu.network_error_code)) result.networkErrorCode = pdu.network_error_code;
  return result;
}

function messageText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Buffer.isBuffer(value)) return value.toString('latin1');
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && 'message' in value) return messageText((value as { message: unknown }).message);
  return undefined;
}

function numberField(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

function stringField(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function describeSocketError(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  return typeof code === 'string' ? `${code} (${err.message})` : err.message;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function endConnection(conn: smpp.Session): Promise<void> {
  return new Promise((resolve) => {
    if (conn.socket.destroyed) {
      resolve();
      return;
    }
    const timer = setTimeout(() => {
      conn.destroy();
      resolve();
    }, SOCKET_END_WAIT_MS);
    conn.socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    conn.on('error', () => undefined);
    conn.close();
  });
}
