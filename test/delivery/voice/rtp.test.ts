// The paced RTP sender (src/delivery/voice/rtp.ts) on its own: what goes on the wire when its
// timers run late, as they do on a busy event loop.
import assert from 'node:assert/strict';
import type { Socket } from 'node:dgram';
import { describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { decodeRtp, RtpSender, SAMPLES_PER_FRAME } from '../../../src/delivery/voice/rtp.js';

/** A socket that keeps what is sent on it. */
function recordingSocket(): { socket: Socket; payloads: number[] } {
  const payloads: number[] = [];
  const socket = { send: (packet: Buffer) => { payloads.push(decodeRtp(packet)!.payload[0]!); } } as unknown as Socket;
  return { socket, payloads };
}

const frames = (count: number, byte: number) => Buffer.alloc(count * SAMPLES_PER_FRAME, byte);

describe('RtpSender', () => {
  it('a late timer sends the next play() where the last one ended, with no silence padded between them', async () => {
    const { socket, payloads } = recordingSocket();
    // Real time, plus a stall the test adds.
    const startedAt = performance.now();
    let stalledMs = 0;
    const sender = new RtpSender(socket, { address: '127.0.0.1', port: 9 }, 8, 'PCMA', () => performance.now() - startedAt + stalledMs);
    const silence = 0xd5; // PCMA's silence byte
    sender.start(); // one silence frame at once
    const first = sender.play(frames(2, 0x11));
    // The event loop stalls for 100 ms: five frames are due at the next tick.
    stalledMs = 100;
    await first;
    const second = sender.play(frames(2, 0x22));
    await second;
    sender.stop();
    assert.deepEqual(payloads, [silence, 0x11, 0x11, 0x22, 0x22], 'the second reading follows the first at once');
  });
});
