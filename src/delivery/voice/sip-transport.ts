// `sip://USER:PASSWORD@HOST:PORT?from=...`: voice PINs as real phone calls placed over a SIP trunk
// (or a PBX), with the speech made here by espeak-ng and sent as RTP. No SIP or media server is
// needed on this side.
//
//   sip://USER:PASSWORD@sip.example.net:5060?from=%2B15005550006
//
// USER and PASSWORD (percent-encoded) answer the server's digest challenges (401/407) and USER is
// the caller id when `from` is not given; both may be left out for a trunk that authenticates by
// IP address. PORT defaults to 5060. Query parameters:
//
//   from=            user part of our From URI: the caller id the trunk shows        default: USER
//   transport=       udp or tcp                                                       default udp
//   timeout=         how long to let the phone ring before giving up (CANCEL)         default 30s
//   max_duration=    longest time on the line once answered, replays included         default 25s
//   repeat=          how many times the message is read in one call (1-5)             default 2
//   dtmf_wait=       after the last reading, how long to wait for the template's      default 5s
//                    repeatDTMF keys (only when the template has repeatDTMF)
//   prefix=          put before the destination's international digits in the        default +
//                    Request-URI (`+41...`); `prefix=` for bare digits, `prefix=00` ...
//   public_ip=       address to advertise in Via, Contact and SDP instead of the      default: the local
//                    local one (this host behind a NAT with forwarded ports)          address towards HOST
//   rtp_ports=       UDP port range for the audio, e.g. 20000-20999 (for firewalls)  default: any free port
//   no_answer_retries= how many times one message that rang unanswered is tried again default 1
//
// Durations take ms, s or m (30s, 500ms, 1m); the DSN is refused past 10 minutes of timeout +
// max_duration together. A call may outlast TWOFA_DELIVERY_LEASE: the worker renews the lease of a
// message while its delivery runs.
//
// Outcomes: answered → ok, providerMessageId = the Call-ID. `busy` (486, 600, 603) is final: the
// callee is on another call or declined it, and ringing again within seconds helps nobody; they can
// ask for a resend. `no-answer` (408, 480, 487, or still ringing at the timeout) is worth another try
// within the PIN's lifetime, at most `no_answer_retries` times per message (counted in memory), so
// an unanswered phone does not ring eight times. `failed: <code or reason>`: 5xx, no response and
// an unreachable server are retried; other 4xx/6xx and rejected credentials are final.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { randomInt } from 'node:crypto';
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { maskDestination } from '../../domain/destinations.js';
import { parseDuration } from '../../domain/durations.js';
import type { DeliveryResult, OutgoingMessage, Transport } from '../transport.js';
import { SipCall, type CallOutcome } from './sip-call.js';
import { openSipConnection, SipConnectionError, type SipConnection, type SipProtocol } from './sip-connection.js';
import { PromptCache, renderReading } from './speech-audio.js';
import { composeSpokenMessage, DEFAULT_REPEAT, MAX_REPEAT, READING_GAP_MS, type SpokenMessage } from './spoken-text.js';
import { EspeakTts, TtsError, type Tts } from './tts.js';

export const SIP_DSN_EXAMPLE = 'sip://USER:PASSWORD@sip.example.net:5060?from=%2B15005550006';
const PARAMS = ['from', 'transport', 'timeout', 'max_duration', 'repeat', 'dtmf_wait', 'prefix', 'public_ip', 'rtp_ports', 'no_answer_retries'] as const;
const DEFAULT_PORT = 5060;
const DEFAULT_RING_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_DURATION_MS = 25_000;
const DEFAULT_DTMF_WAIT_MS = 5_000;
const DEFAULT_NO_ANSWER_RETRIES = 1;
const MAX_TOTAL_MS = 10 * 60_000;
/** Messages whose no-answer count is remembered; the oldest are forgotten first. */
const NO_ANSWER_MEMORY = 10_000;

export interface SipTransportOptions {
  host: string;
  port: number;
  protocol: SipProtocol;
  username?: string;
  password?: string;
  from?: string;
  ringTimeoutMs?: number;
  maxDurationMs?: number;
  repeat?: number;
  dtmfWaitMs?: number;
  prefix?: string;
  publicAddress?: string;
  rtpPorts?: { min: number; max: number };
  noAnswerRetries?: number;
  /** Speech engine; espeak-ng + sox by default. */
  tts?: Tts;
  logger: Logger;
}

export class SipTransport implements Transport {
  readonly name = 'sip';
  private readonly tts: Tts;
  private readonly cache = new PromptCache();
  private readonly active = new Set<SipCall>();
  private readonly noAnswers = new Map<string, number>();
  private closed = false;

  constructor(private readonly options: SipTransportOptions) {
    this.tts = options.tts ?? new EspeakTts();
  }

  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    if (message.channel !== 'voice') return refuse(`the sip transport places voice calls only, not ${message.channel}`);
    if (message.voice === undefined) return refuse('the voice message carries no voice content');
    if (this.closed) return { ok: false, retryable: true, error: 'the sip transport is shutting down' };
    const digits = message.to.startsWith('+') ? message.to.slice(1) : message.to;
    if (!/^\d{6,15}$/.test(digits)) return refuse('the destination is not an international phone number');
    const log = this.options.logger.child({ transport: 'sip', pinId: message.pinId, to: maskDestination(digits) });

    let spoken: SpokenMessage;
    try {
      spoken = composeSpokenMessage(message.voice, { repeat: this.options.repeat ?? DEFAULT_REPEAT });
    } catch (err) {
      return refuse(`the voice message cannot be spoken: ${(err as Error).message}`);
    }
    let reading: Buffer;
    try {
      reading = await renderReading(spoken, this.tts, this.cache);
    } catch (err) {
      const permanent = err instanceof TtsError && err.permanent;
      log.error({ err: (err as Error).message }, 'speech synthesis failed');
      return { ok: false, retryable: !permanent, error: `failed: speech synthesis: ${(err as Error).message}` };
    }

    try {
      const outcome = await this.call(message, digits, spoken, reading, log);
      return this.result(message, outcome, log);
    } finally {
      // The reading holds the PIN; it is not left in memory longer than the call.
      reading.fill(0);
    }
  }

  private async call(message: OutgoingMessage, digits: string, spoken: SpokenMessage, reading: Buffer, log: Logger): Promise<CallOutcome> {
    const { options } = this;
    let connection: SipConnection;
    try {
      connection = await openSipConnection({ host: options.host, port: options.port, protocol: options.protocol }, Math.min(options.ringTimeoutMs ?? DEFAULT_RING_TIMEOUT_MS, 10_000));
    } catch (err) {
      const reason = err instanceof SipConnectionError ? err.message : `cannot reach the SIP server: ${(err as Error).message}`;
      return { kind: 'failed', reason, retryable: true };
    }
    let rtpSocket: UdpSocket | undefined;
    let call: SipCall | undefined;
    try {
      rtpSocket = await bindRtpSocket(connection.localAddress, options.rtpPorts);
      const host = isIP(options.host) === 6 ? `[${options.host}]` : options.host;
      call = new SipCall({
        connection,
        domain: options.port === DEFAULT_PORT ? host : `${host}:${options.port}`,
        calleeUser: `${options.prefix ?? '+'}${digits}`,
        callerUser: options.from ?? options.username ?? 'twofa',
        ...(options.username !== undefined && { credentials: { username: options.username, password: options.password ?? '' } }),
        advertisedAddress: options.publicAddress ?? connection.localAddress,
        rtpSocket,
        ringTimeoutMs: options.ringTimeoutMs ?? DEFAULT_RING_TIMEOUT_MS,
        maxDurationMs: options.maxDurationMs ?? DEFAULT_MAX_DURATION_MS,
        reading,
        repeat: spoken.repeat,
        gapMs: READING_GAP_MS,
        repeatDtmf: spoken.repeatDtmf,
        dtmfWaitMs: options.dtmfWaitMs ?? DEFAULT_DTMF_WAIT_MS,
        logger: log,
      });
      this.active.add(call);
      log.debug({ callId: call.callId, deliveryId: message.deliveryId }, 'placing voice call');
      return await call.run();
    } catch (err) {
      return { kind: 'failed', reason: `call setup failed: ${(err as Error).message}`, retryable: true };
    } finally {
      if (call !== undefined) this.active.delete(call);
      connection.close();
      rtpSocket?.close();
    }
  }

  private result(message: OutgoingMessage, outcome: CallOutcome, log: Logger): DeliveryResult {
    const key = message.deliveryId ?? `${message.pinId}|${message.to}`;
    switch (outcome.kind) {
      case 'answered':
        this.noAnswers.delete(key);
        log.info({ callId: outcome.callId, readings: outcome.readings, replays: outcome.replays, frames: outcome.framesSent, framesReceived: outcome.packetsReceived, hungUpBy: outcome.hungUpBy }, 'voice call answered and played');
        return { ok: true, providerMessageId: outcome.callId };
      case 'busy':
        log.info({ status: outcome.status }, 'voice call: busy');
        return { ok: false, retryable: false, error: 'busy', byRecipient: true };
      case 'no-answer': {
        const count = (this.noAnswers.get(key) ?? 0) + 1;
        this.noAnswers.delete(key);
        this.noAnswers.set(key, count);
        if (this.noAnswers.size > NO_ANSWER_MEMORY) this.noAnswers.delete(this.noAnswers.keys().next().value as string);
        const retryable = count <= (this.options.noAnswerRetries ?? DEFAULT_NO_ANSWER_RETRIES);
        log.info({ status: outcome.status, attempt: count, retryable }, 'voice call: no answer');
        return { ok: false, retryable, error: 'no-answer', byRecipient: true };
      }
      case 'failed':
        log.warn({ reason: outcome.reason, retryable: outcome.retryable }, 'voice call failed');
        return { ok: false, retryable: outcome.retryable, error: `failed: ${outcome.reason}` };
    }
  }

  /** Hangs up calls in progress (CANCEL or BYE) and waits briefly for them to end. */
  async close(): Promise<void> {
    this.closed = true;
    const calls = [...this.active];
    for (const call of calls) call.abort();
    const deadline = Date.now() + 6000;
    while (this.active.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function refuse(error: string): DeliveryResult {
  return { ok: false, retryable: false, error };
}

/** A UDP socket for the call's audio: any free port, or a random even one in `range`. */
export async function bindRtpSocket(address: string, range?: { min: number; max: number }): Promise<UdpSocket> {
  const type = isIP(address) === 6 ? 'udp6' : 'udp4';
  const attempt = (port: number): Promise<UdpSocket | null> =>
    new Promise((resolve) => {
      const socket = createSocket(type);
      socket.once('error', () => {
        socket.close();
        resolve(null);
      });
      socket.bind({ address, port }, () => {
        socket.removeAllListeners('error');
        // A stray ICMP error must not crash the process.
        socket.on('error', () => undefined);
        resolve(socket);
      });
    });
  if (range === undefined) {
    const socket = await attempt(0);
    if (socket === null) throw new Error(`cannot bind a UDP port for RTP on ${address}`);
    return socket;
  }
  for (let i = 0; i < 20; i++) {
    const port = randomInt(range.min, range.max + 1) & ~1;
    const socket = await attempt(port < range.min ? port + 2 : port);
    if (socket !== null) return socket;
  }
  throw new Error(`no free UDP port for RTP in ${range.min}-${range.max}`);
}

/** The transport a `sip://` DSN describes; throws an Error naming `variable` when it is unusable. */
export function createSipTransport(variable: string, url: URL, deps: { logger: Logger; tts?: Tts }): SipTransport {
  const params = readParams(variable, url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '') throw new Error(`${variable}: the sip DSN needs the SIP server's host, e.g. ${SIP_DSN_EXAMPLE}`);
  const port = url.port === '' ? DEFAULT_PORT : Number(url.port);
  const username = url.username === '' ? undefined : decode(url.username);
  const password = url.password === '' ? undefined : decode(url.password);
  if (password !== undefined && username === undefined) throw new Error(`${variable}: the sip DSN has a password but no user`);

  const transport = params.get('transport') ?? 'udp';
  if (transport !== 'udp' && transport !== 'tcp') throw new Error(`${variable}: transport must be udp or tcp (TLS is not supported yet)`);
  const ringTimeoutMs = duration(variable, params, 'timeout', DEFAULT_RING_TIMEOUT_MS, 1000, 5 * 60_000);
  const maxDurationMs = duration(variable, params, 'max_duration', DEFAULT_MAX_DURATION_MS, 1000, 5 * 60_000);
  const dtmfWaitMs = duration(variable, params, 'dtmf_wait', DEFAULT_DTMF_WAIT_MS, 0, 60_000);
  if (ringTimeoutMs + maxDurationMs > MAX_TOTAL_MS) throw new Error(`${variable}: timeout + max_duration must not exceed 10 minutes`);
  const repeat = integer(variable, params, 'repeat', DEFAULT_REPEAT, 1, MAX_REPEAT);
  const noAnswerRetries = integer(variable, params, 'no_answer_retries', DEFAULT_NO_ANSWER_RETRIES, 0, 10);
  const from = params.get('from');
  if (from !== undefined && !/^[A-Za-z0-9+\-_.!~*'()&=$,;?/]{1,64}$/.test(from)) throw new Error(`${variable}: from must be a SIP user part such as +15005550006`);
  const prefix = params.get('prefix');
  if (prefix !== undefined && !/^[+0-9*#]{0,8}$/.test(prefix)) throw new Error(`${variable}: prefix may hold only +, digits, * and #, e.g. prefix=%2B or prefix=00`);
  const publicAddress = params.get('public_ip');
  if (publicAddress !== undefined && isIP(publicAddress) === 0) throw new Error(`${variable}: public_ip must be an IP address`);
  const rtpPorts = params.has('rtp_ports') ? portRange(variable, params.get('rtp_ports') as string) : undefined;

  return new SipTransport({
    host,
    port,
    protocol: transport,
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
    ...(from !== undefined && { from }),
    ringTimeoutMs,
    maxDurationMs,
    repeat,
    dtmfWaitMs,
    ...(prefix !== undefined && { prefix }),
    ...(publicAddress !== undefined && { publicAddress }),
    ...(rtpPorts !== undefined && { rtpPorts }),
    noAnswerRetries,
    ...(deps.tts !== undefined && { tts: deps.tts }),
    logger: deps.logger,
  });
}

// Split by hand, as the provider DSNs do: URLSearchParams would read the `+` of `from=+1500...` as a space.
function readParams(variable: string, url: URL): Map<string, string> {
  const params = new Map<string, string>();
  for (const part of url.search.replace(/^\?/, '').split('&')) {
    if (part === '') continue;
    const at = part.indexOf('=');
    const name = decode(at === -1 ? part : part.slice(0, at));
    const value = at === -1 ? '' : decode(part.slice(at + 1));
    if (!(PARAMS as readonly string[]).includes(name)) {
      throw new Error(`${variable}: unknown DSN parameter "${name}" (supported: ${PARAMS.join(', ')}), e.g. ${SIP_DSN_EXAMPLE}`);
    }
    if (params.has(name)) throw new Error(`${variable}: DSN parameter "${name}" is given twice`);
    params.set(name, value);
  }
  return params;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function duration(variable: string, params: Map<string, string>, name: string, fallback: number, min: number, max: number): number {
  const text = params.get(name);
  if (text === undefined || text === '') return fallback;
  const ms = text === '0' ? 0 : /^[1-9]\d{0,5}$/.test(text) ? Number(text) * 1000 : parseDuration(text);
  if (ms === null || ms < min || ms > max) throw new Error(`${variable}: DSN parameter ${name} must be a duration from ${min / 1000} s to ${max / 1000} s, e.g. ${name}=${fallback / 1000}s`);
  return ms;
}

function integer(variable: string, params: Map<string, string>, name: string, fallback: number, min: number, max: number): number {
  const text = params.get(name);
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) throw new Error(`${variable}: DSN parameter ${name} must be a whole number from ${min} to ${max}`);
  return value;
}

function portRange(variable: string, text: string): { min: number; max: number } {
  const match = /^(\d{4,5})-(\d{4,5})$/.exec(text);
  const min = Number(match?.[1]);
  const max = Number(match?.[2]);
  if (match === null || min < 1024 || max > 65535 || max - min < 1) {
    throw new Error(`${variable}: rtp_ports must be a range of at least two ports between 1024 and 65535, e.g. rtp_ports=20000-20999`);
  }
  return { min, max };
}
