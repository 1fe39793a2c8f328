// The sip:// transport against a real SIP peer: Debian's sipp on loopback plays the callee, with its
// built-in `uas` scenario and the scenarios under scenarios/ (answer with the audio pointed at a
// socket of this test, digest challenge, busy, never answered). RTP is counted where it arrives.
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeG711 } from '../../../src/delivery/voice/g711.js';
import { decodeRtp, type RtpPacket } from '../../../src/delivery/voice/rtp.js';
import { encodeTelephoneEvent } from '../../../src/delivery/voice/dtmf.js';
import { LEAD_IN_MS, TAIL_MS } from '../../../src/delivery/voice/sip-call.js';
import { createSipTransport } from '../../../src/delivery/voice/sip-transport.js';
import { PromptCache, renderReading } from '../../../src/delivery/voice/speech-audio.js';
import { composeSpokenMessage, READING_GAP_MS } from '../../../src/delivery/voice/spoken-text.js';
import { EspeakTts } from '../../../src/delivery/voice/tts.js';
import type { OutgoingMessage } from '../../../src/delivery/transport.js';
import { captureLogger } from '../smpp/capture-logger.js';
import { FakeTts } from './fake-tts.js';
import { espeakInstalled, freePort, sippInstalled, startSipp, type Sipp } from './sipp.js';

const PIN = '4829';
const NUMBER = '41793026727';
const FRAME_SAMPLES = 160;

function voiceMessage(overrides: Partial<NonNullable<OutgoingMessage['voice']>> = {}, deliveryId = 'd-1'): OutgoingMessage {
  return {
    channel: 'voice',
    to: NUMBER,
    text: `Your code is ${PIN}`,
    pinId: 'B1A2C3D4E5F60718293A4B5C6D7E8F90',
    applicationId: 'APP',
    messageId: 'MSG',
    accountId: 'acct-1',
    deliveryId,
    voice: { pin: PIN, language: 'en', speechRate: null, voiceName: null, repeatDtmf: null, template: 'Your code is {{pin}}', placeholders: {}, ...overrides },
  };
}

/** Frames of one reading of "Your code is {{pin}}" (4 characters) made by FakeTts at normal pace. */
function fakeReadingFrames(): number {
  // text 300 ms, pause 250 ms, 4 characters of 100 ms with 3 pauses of 350 ms
  return ((300 + 250 + 4 * 100 + 3 * 350) * 8) / FRAME_SAMPLES;
}

/** A UDP socket standing in for the callee's media endpoint: it records every RTP packet. */
class MediaSink {
  readonly packets: Array<{ packet: RtpPacket; at: number; from: RemoteInfo }> = [];
  private socket: Socket | undefined;
  port = 0;

  async start(): Promise<void> {
    this.port = await freePort();
    this.socket = createSocket('udp4');
    this.socket.on('message', (data, from) => {
      const packet = decodeRtp(data);
      if (packet !== null) this.packets.push({ packet, at: performance.now(), from });
    });
    await new Promise<void>((resolve) => this.socket?.bind(this.port, '127.0.0.1', () => resolve()));
  }

  /** Sends one key press as RFC 4733 events (start, update, three end packets) to the sender of the RTP. */
  pressKey(key: string, timestamp: number, sequence: number, payloadType = 101): number {
    const source = this.packets[0]?.from;
    if (source === undefined || this.socket === undefined) throw new Error('no RTP received yet');
    const packets = [
      { end: false, duration: 160 },
      { end: false, duration: 320 },
      { end: true, duration: 480 },
      { end: true, duration: 480 },
      { end: true, duration: 480 },
    ];
    for (const [i, step] of packets.entries()) {
      const payload = encodeTelephoneEvent({ key, end: step.end, volume: 10, duration: step.duration });
      const header = Buffer.alloc(12);
      header[0] = 0x80;
      header[1] = (i === 0 ? 0x80 : 0) | payloadType;
      header.writeUInt16BE((sequence + i) & 0xffff, 2);
      header.writeUInt32BE(timestamp >>> 0, 4);
      header.writeUInt32BE(0x5eed, 8);
      this.socket.send(Buffer.concat([header, payload]), source.port, source.address);
    }
    return sequence + packets.length;
  }

  stop(): void {
    this.socket?.close();
  }
}

function isLoud(pcm: Buffer): boolean {
  for (let at = 0; at + 1 < pcm.length; at += 2) if (Math.abs(pcm.readInt16LE(at)) > 4000) return true;
  return false;
}

function dsn(sipp: Sipp, query: string, credentials = ''): URL {
  return new URL(`sip://${credentials}127.0.0.1:${sipp.port}?from=%2B15005550006&${query}`);
}

function answeredEntry(log: ReturnType<typeof captureLogger>): Record<string, unknown> {
  const entry = log.entries().find((e) => e.msg === 'voice call answered and played');
  assert.ok(entry, `no "answered" log line in:\n${log.lines.join('')}`);
  return entry;
}

describe('sip:// transport against sipp', { skip: sippInstalled ? false : 'sipp is not installed (apt-get install sip-tester)' }, () => {
  const running: Sipp[] = [];
  const logs: ReturnType<typeof captureLogger>[] = [];
  const start = async (...args: Parameters<typeof startSipp>): Promise<Sipp> => {
    const sipp = await startSipp(...args);
    running.push(sipp);
    return sipp;
  };
  const newLog = (): ReturnType<typeof captureLogger> => {
    const log = captureLogger();
    logs.push(log);
    return log;
  };
  after(() => {
    for (const sipp of running) sipp.stop();
  });

  it('completes INVITE/180/200/ACK/BYE with the built-in uas and streams espeak-ng audio that sipp echoes back', { skip: espeakInstalled ? false : 'espeak-ng or sox missing' }, async () => {
    const sipp = await start({ scenario: { builtin: 'uas' }, extra: ['-rtp_echo'] });
    const log = newLog();
    const transport = createSipTransport('TWOFA_VOICE_DSN', dsn(sipp, 'repeat=1', 'alice:secret@'), { logger: log.logger });
    const result = await transport.send(voiceMessage());
    assert.ok(result.ok, JSON.stringify(result));
    assert.match(result.providerMessageId ?? '', /^[0-9a-f]{32}@twofa$/);
    assert.equal(await sipp.exited, 0, `sipp failed:\n${sipp.output()}`);

    // What espeak-ng makes of the message decides how many 20 ms frames one reading takes.
    const reading = await renderReading(composeSpokenMessage(voiceMessage().voice!, { repeat: 1 }), new EspeakTts(), new PromptCache());
    const expected = LEAD_IN_MS / 20 + Math.ceil(reading.length / 2 / FRAME_SAMPLES) + TAIL_MS / 20;
    const entry = answeredEntry(log);
    assert.ok(Math.abs(Number(entry.frames) - expected) <= 3, `sent ${String(entry.frames)} frames, expected about ${expected}`);
    // sipp -rtp_echo returns every packet it received: nearly all must have come back.
    assert.ok(Number(entry.framesReceived) >= Number(entry.frames) - 5, `sipp echoed ${String(entry.framesReceived)} of ${String(entry.frames)} frames`);
  });

  it('sends the audio to the address in the answer, PCMA as the callee chose, in 20 ms RTP frames, read twice', async () => {
    const sink = new MediaSink();
    await sink.start();
    try {
      const sipp = await start({ scenario: 'answer-media.xml', variables: { media_host: '127.0.0.1', media_port: String(sink.port) } });
      const log = newLog();
      const tts = new FakeTts();
      const transport = createSipTransport('TWOFA_VOICE_DSN', dsn(sipp, 'repeat=2'), { logger: log.logger, tts });
      const result = await transport.send(voiceMessage());
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(await sipp.exited, 0, `sipp failed:\n${sipp.output()}`);

      const reading = fakeReadingFrames();
      const expected = LEAD_IN_MS / 20 + reading + READING_GAP_MS / 20 + reading + TAIL_MS / 20;
      const packets = sink.packets.map((p) => p.packet);
      assert.ok(Math.abs(packets.length - expected) <= 3, `received ${packets.length} frames, expected about ${expected}`);
      const first = packets[0]!;
      assert.equal(first.header.marker, true);
      for (const [i, packet] of packets.entries()) {
        assert.equal(packet.header.payloadType, 8, 'PCMA, the only codec the callee accepted');
        assert.equal(packet.payload.length, FRAME_SAMPLES);
        assert.equal(packet.header.ssrc, first.header.ssrc);
        assert.equal(packet.header.sequence, (first.header.sequence + i) & 0xffff);
        assert.equal(packet.header.timestamp, (first.header.timestamp + i * FRAME_SAMPLES) >>> 0);
        if (i > 0) assert.equal(packet.header.marker, false);
      }
      // Two readings of sound, silence around them.
      const loud = packets.filter((p) => isLoud(decodeG711('PCMA', p.payload))).length;
      const speech = (2 * (300 + 4 * 100)) / 20;
      assert.ok(loud >= speech - 2 && loud <= speech + 8, `${loud} frames carry speech, expected about ${speech}`);
      // Paced in real time: 20 ms apart on average.
      const span = sink.packets.at(-1)!.at - sink.packets[0]!.at;
      assert.ok(Math.abs(span - (packets.length - 1) * 20) < 400, `${packets.length} frames took ${Math.round(span)} ms`);
      // The engine was asked for the template's words and single characters, never the PIN as a whole.
      assert.deepEqual([...new Set(tts.requests.map((r) => r.text))].sort(), ['2', '4', '8', '9', 'Your code is']);
    } finally {
      sink.stop();
    }
  });

  it('plays the message again when the callee presses the repeatDTMF keys (RFC 4733)', async () => {
    const sink = new MediaSink();
    await sink.start();
    try {
      const sipp = await start({ scenario: 'answer-media.xml', variables: { media_host: '127.0.0.1', media_port: String(sink.port) } });
      const log = newLog();
      const transport = createSipTransport('TWOFA_VOICE_DSN', dsn(sipp, 'repeat=1&dtmf_wait=2s'), { logger: log.logger, tts: new FakeTts() });
      const reading = fakeReadingFrames();
      // Once the first reading is over, press 2 (ignored), then 1 and #.
      const pressed = new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          if (sink.packets.length < LEAD_IN_MS / 20 + reading + 10) return;
          clearInterval(timer);
          let sequence = 1000;
          sequence = sink.pressKey('2', 16_000, sequence);
          sequence = sink.pressKey('1', 16_800, sequence);
          sink.pressKey('#', 17_600, sequence);
          resolve();
        }, 20);
      });
      const result = await transport.send(voiceMessage({ repeatDtmf: '1#' }));
      await pressed;
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(await sipp.exited, 0, `sipp failed:\n${sipp.output()}`);
      const entry = answeredEntry(log);
      assert.equal(entry.replays, 1);
      assert.equal(entry.readings, 2);
      assert.ok(sink.packets.length > LEAD_IN_MS / 20 + 2 * reading, `only ${sink.packets.length} frames for two readings`);
    } finally {
      sink.stop();
    }
  });

  it('answers a 401 digest challenge (MD5, qop=auth) and is let in', async () => {
    const sipp = await start({ scenario: 'digest-auth.xml', extra: ['-rtp_echo'] });
    const log = newLog();
    const transport = createSipTransport('TWOFA_VOICE_DSN', dsn(sipp, 'repeat=1', 'alice:s3cret%3Ap%40ss@'), { logger: log.logger, tts: new FakeTts() });
    const result = await transport.send(voiceMessage());
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(await sipp.exited, 0, `sipp failed:\n${sipp.output()}`);
    assert.ok(Number(answeredEntry(log).framesReceived) > 0, 'sipp echoed the audio');
  });

  it('ends as a permanent failure when the server refuses the credentials', async () => {
    const sipp = await start({ scenario: 'digest-auth.xml' });
    const transport = createSipTransport('TWOFA_VOICE_DSN', dsn(sipp, 'repeat=1', 'alice:wrong@'), { logger: newLog().logger, tts: new FakeTts() });
    const result = await transport.send(voiceMessage());
    assert.deepEqual(result, { ok: false, retryable: false, error: 'failed: 403 Forbidden' });
    assert.equal(await sipp.exited, 0, `sipp failed:\n${sipp.output()}`);
  });

  it('ends as "busy", not retried, when the callee answers 486', async () => {
    const sipp = await start({ scenario: 'busy.xml' });
    const transport = createSipTransport('TWOFA_VOICE_DSN', dsn(sipp, ''), { logger: newLog().logger, tts: new FakeTts() });
    assert.deepEqual(await transport.send(voiceMessage()), { ok: false, retryable: false, error: 'busy', byRecipient: true });
    assert.equal(await sipp.exited, 0, `sipp failed:\n${sipp.output()}`);
  });

  it('cancels a call still ringing at the timeout: "no-answer", retried once per message', async () => {
    const sipp = await start({ scenario: 'no-answer.xml', calls: 2 });
    const transport = createSipTransport('TWOFA_VOICE_DSN', dsn(sipp, 'timeout=1s'), { logger: newLog().logger, tts: new FakeTts() });
    const started = Date.now();
    assert.deepEqual(await transport.send(voiceMessage()), { ok: false, retryable: true, error: 'no-answer', byRecipient: true });
    assert.ok(Date.now() - started < 3000);
    // The outbox tries the same delivery again: this time it is the last.
    assert.deepEqual(await transport.send(voiceMessage()), { ok: false, retryable: false, error: 'no-answer', byRecipient: true });
    assert.equal(await sipp.exited, 0, `sipp failed (CANCEL, 487 and ACK expected):\n${sipp.output()}`);
  });

  it('cancels a ringing call when the transport closes (shutdown), leaving it to be retried', async () => {
    const sipp = await start({ scenario: 'no-answer.xml' });
    const transport = createSipTransport('TWOFA_VOICE_DSN', dsn(sipp, 'timeout=30s'), { logger: newLog().logger, tts: new FakeTts() });
    const started = Date.now();
    const sending = transport.send(voiceMessage({}, 'd-shutdown'));
    await new Promise((resolve) => setTimeout(resolve, 700));
    await transport.close();
    assert.deepEqual(await sending, { ok: false, retryable: true, error: 'no-answer', byRecipient: true });
    assert.ok(Date.now() - started < 5000);
    assert.equal(await sipp.exited, 0, `sipp failed (CANCEL expected):\n${sipp.output()}`);
    assert.deepEqual(await transport.send(voiceMessage()), { ok: false, retryable: true, error: 'the sip transport is shutting down' });
  });

  it('places the call over TCP', async () => {
    const sink = new MediaSink();
    await sink.start();
    try {
      const sipp = await start({ scenario: 'answer-media.xml', transport: 'tcp', variables: { media_host: '127.0.0.1', media_port: String(sink.port) } });
      const transport = createSipTransport('TWOFA_VOICE_DSN', dsn(sipp, 'repeat=1&transport=tcp'), { logger: newLog().logger, tts: new FakeTts() });
      const result = await transport.send(voiceMessage());
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(await sipp.exited, 0, `sipp failed:\n${sipp.output()}`);
      assert.ok(Math.abs(sink.packets.length - (LEAD_IN_MS / 20 + fakeReadingFrames() + TAIL_MS / 20)) <= 3, `${sink.packets.length} frames`);
    } finally {
      sink.stop();
    }
  });

  it('never logs the PIN or the full number', () => {
    // Timestamps and random Call-IDs may contain any four digits by chance: they are left out.
    const all = logs
      .flatMap((log) => log.entries())
      .map(({ time: _time, callId: _callId, providerMessageId: _id, ...rest }) => JSON.stringify(rest))
      .join('\n');
    assert.ok(all.length > 0);
    assert.ok(!all.includes(PIN), 'PIN in the logs');
    assert.ok(!all.includes(NUMBER), 'full number in the logs');
  });
});

describe('sip:// transport without a callee', () => {
  it('reports a server that never answers as a retryable failure at the ring timeout', async () => {
    const port = await freePort();
    const transport = createSipTransport('TWOFA_VOICE_DSN', new URL(`sip://127.0.0.1:${port}?timeout=1s`), { logger: captureLogger().logger, tts: new FakeTts() });
    assert.deepEqual(await transport.send(voiceMessage()), { ok: false, retryable: true, error: 'failed: no response from the SIP server' });
  });

  it('reports a refused TCP connection as a retryable failure', async () => {
    const port = await freePort();
    const result = await createSipTransport('TWOFA_VOICE_DSN', new URL(`sip://127.0.0.1:${port}?transport=tcp`), { logger: captureLogger().logger, tts: new FakeTts() }).send(voiceMessage());
    assert.ok(!result.ok && result.retryable);
    assert.match(result.error, /^failed: cannot connect to 127\.0\.0\.1:\d+: ECONNREFUSED$/);
  });

  it('refuses what it cannot speak, for good and without a call', async () => {
    const transport = createSipTransport('TWOFA_VOICE_DSN', new URL('sip://127.0.0.1:9'), { logger: captureLogger().logger, tts: new FakeTts() });
    const sms = await transport.send({ ...voiceMessage(), channel: 'sms' });
    assert.ok(!sms.ok && !sms.retryable);
    const { voice: _voice, ...withoutVoice } = voiceMessage();
    const bare = await transport.send(withoutVoice);
    assert.ok(!bare.ok && !bare.retryable);
    const badLanguage = await transport.send(voiceMessage({ language: 'xx' }));
    assert.ok(!badLanguage.ok && !badLanguage.retryable && /language/.test(badLanguage.error));
    const notANumber = await transport.send({ ...voiceMessage(), to: 'john@example.com' });
    assert.ok(!notANumber.ok && !notANumber.retryable);
  });
});
