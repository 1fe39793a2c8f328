// RTP (RFC 3550) for one call: the fixed 12-byte header, and a paced sender that plays G.711 audio
// in 20 ms frames of 160 samples. Sequence number, timestamp and SSRC start at random values from
// node:crypto (RFC 3550 5.1 asks for unpredictable starts). Frames are scheduled against the clock
// at which the stream started, not chained 20 ms timers, so timer lateness does not accumulate into
// drift; a sender that fell far behind (a stalled event loop) restarts its schedule instead of
// bursting the backlog at the callee's jitter buffer.
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { g711Silence, type G711Codec } from './g711.js';

export const RTP_VERSION = 2;
export const RTP_HEADER_BYTES = 12;
export const FRAME_MS = 20;
/** Samples (and G.711 bytes) per 20 ms frame at 8 kHz. */
export const SAMPLES_PER_FRAME = 160;
/** How late the sender may fall before it restarts its schedule rather than catch up. */
const MAX_LAG_MS = 200;

export interface RtpHeader {
  payloadType: number;
  marker: boolean;
  sequence: number;
  timestamp: number;
  ssrc: number;
}

export interface RtpPacket {
  header: RtpHeader;
  payload: Buffer;
}

export function encodeRtp(header: RtpHeader, payload: Buffer): Buffer {
  const packet = Buffer.allocUnsafe(RTP_HEADER_BYTES + payload.length);
  packet[0] = RTP_VERSION << 6;
  packet[1] = (header.marker ? 0x80 : 0) | (header.payloadType & 0x7f);
  packet.writeUInt16BE(header.sequence & 0xffff, 2);
  packet.writeUInt32BE(header.timestamp >>> 0, 4);
  packet.writeUInt32BE(header.ssrc >>> 0, 8);
  payload.copy(packet, RTP_HEADER_BYTES);
  return packet;
}

/** The packet, or null when it is not RTP version 2 (or is truncated). Skips CSRCs and extensions. */
export function decodeRtp(packet: Buffer): RtpPacket | null {
  if (packet.length < RTP_HEADER_BYTES || packet[0] === undefined || packet[0] >> 6 !== RTP_VERSION) return null;
  const first = packet[0];
  const second = packet[1] as number;
  let offset = RTP_HEADER_BYTES + (first & 0x0f) * 4;
  if ((first & 0x10) !== 0) {
    if (packet.length < offset + 4) return null;
    offset += 4 + packet.readUInt16BE(offset + 2) * 4;
  }
  let end = packet.length;
  if ((first & 0x20) !== 0) end -= packet[packet.length - 1] as number;
  if (offset > end) return null;
  return {
    header: {
      payloadType: second & 0x7f,
      marker: (second & 0x80) !== 0,
      sequence: packet.readUInt16BE(2),
      timestamp: packet.readUInt32BE(4),
      ssrc: packet.readUInt32BE(8),
    },
    payload: packet.subarray(offset, end),
  };
}

export interface RtpDestination {
  address: string;
  port: number;
}

/**
 * Sends one outgoing stream: `play()` queues G.711 audio, and between (or after) plays the sender
 * keeps the stream going with silence frames, as a phone does, until stop().
 */
export class RtpSender {
  readonly ssrc: number;
  private sequence: number;
  private timestamp: number;
  private marker = true;
  private startedAt = 0;
  private framesSinceStart = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private current: { audio: Buffer; offset: number; done: () => void } | undefined;
  private readonly silenceFrame: Buffer;
  /** Frames written since start, audio and silence alike. */
  framesSent = 0;

  constructor(
    private readonly socket: Socket,
    private readonly destination: RtpDestination,
    private readonly payloadType: number,
    codec: G711Codec,
    private readonly clock: () => number = () => performance.now(),
  ) {
    const random = randomBytes(10);
    this.ssrc = random.readUInt32BE(0);
    this.sequence = random.readUInt16BE(4);
    this.timestamp = random.readUInt32BE(6);
    this.silenceFrame = Buffer.alloc(SAMPLES_PER_FRAME, g711Silence(codec));
  }

  /** Starts the stream (silence until something is played). */
  start(): void {
    this.startedAt = this.clock();
    this.framesSinceStart = 0;
    this.tick();
  }

  /**
   * Plays G.711 audio from its beginning; resolves when its last frame is sent, or at once when a
   * later play() or stop() interrupts it.
   */
  play(audio: Buffer): Promise<void> {
    this.current?.done();
    return new Promise<void>((resolve) => {
      if (this.stopped) return resolve();
      this.current = { audio, offset: 0, done: resolve };
    });
  }

  /** Plays `ms` of silence (the stream goes on either way; this only waits). */
  pause(ms: number): Promise<void> {
    return this.play(Buffer.alloc(Math.round(ms / FRAME_MS) * SAMPLES_PER_FRAME, this.silenceFrame[0]));
  }

  /** Ends the current play() at once (its promise resolves); the stream goes on with silence. */
  interrupt(): void {
    const current = this.current;
    this.current = undefined;
    current?.done();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.current?.done();
    this.current = undefined;
  }

  private tick(): void {
    if (this.stopped) return;
    const now = this.clock();
    let due = Math.floor((now - this.startedAt) / FRAME_MS) + 1 - this.framesSinceStart;
    if (due * FRAME_MS > MAX_LAG_MS) {
      this.startedAt = now;
      this.framesSinceStart = 0;
      due = 1;
    }
    // A frame that ends a play() stops this round: the caller queues what follows (the next reading,
    // a pause) in the promise's continuation, before the next timer, so a late timer sends the rest of
    // what is due from that and not as silence padded between the two.
    for (let i = 0; i < due; i++) if (this.sendFrame()) break;
    const next = this.startedAt + this.framesSinceStart * FRAME_MS;
    this.timer = setTimeout(() => this.tick(), Math.max(0, next - this.clock()));
  }

  /** Sends the next frame; true when it was the last of the current play(). */
  private sendFrame(): boolean {
    let payload = this.silenceFrame;
    const current = this.current;
    let ended = false;
    if (current !== undefined) {
      const end = current.offset + SAMPLES_PER_FRAME;
      payload = current.audio.subarray(current.offset, end);
      if (payload.length < SAMPLES_PER_FRAME) payload = Buffer.concat([payload, this.silenceFrame.subarray(payload.length)]);
      current.offset = end;
      if (end >= current.audio.length) {
        this.current = undefined;
        current.done();
        ended = true;
      }
    }
    const packet = encodeRtp({ payloadType: this.payloadType, marker: this.marker, sequence: this.sequence, timestamp: this.timestamp, ssrc: this.ssrc }, payload);
    this.marker = false;
    this.sequence = (this.sequence + 1) & 0xffff;
    this.timestamp = (this.timestamp + SAMPLES_PER_FRAME) >>> 0;
    this.framesSinceStart++;
    this.framesSent++;
    // A lost datagram is lost either way; the callback keeps a send error off the socket's 'error'.
    try {
      this.socket.send(packet, this.destination.port, this.destination.address, () => undefined);
    } catch {
      this.stop(); // the socket is closed: the call is over
    }
    return ended;
  }
}
