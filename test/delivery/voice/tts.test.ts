// espeak-ng + sox behind the Tts port: telephone audio comes out, the requested pace is honoured,
// a missing engine says what to install; and the assembly of a reading from cached clips, which
// never hands the PIN to the engine as a whole.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PromptCache, renderReading, trimSilence } from '../../../src/delivery/voice/speech-audio.js';
import { composeSpokenMessage } from '../../../src/delivery/voice/spoken-text.js';
import { EspeakTts, pcmDurationMs, TtsError } from '../../../src/delivery/voice/tts.js';
import type { VoiceContent } from '../../../src/delivery/transport.js';
import { CHARACTER_CLIP_MS, FakeTts, TEXT_CLIP_MS } from './fake-tts.js';
import { espeakInstalled } from './sipp.js';

function voice(overrides: Partial<VoiceContent> = {}): VoiceContent {
  return { pin: '4829', language: 'en', speechRate: null, voiceName: null, repeatDtmf: null, template: 'Your code is {{pin}}', placeholders: {}, ...overrides };
}

function rms(pcm: Buffer): number {
  let sum = 0;
  for (let at = 0; at + 1 < pcm.length; at += 2) sum += pcm.readInt16LE(at) ** 2;
  return Math.sqrt(sum / (pcm.length / 2));
}

describe('espeak-ng text-to-speech', { skip: espeakInstalled ? false : 'espeak-ng or sox is not installed (apt-get install espeak-ng sox)' }, () => {
  const tts = new EspeakTts();

  it('produces 8 kHz 16-bit mono speech', async () => {
    const pcm = await tts.synthesize('Your verification code is 4, 8, 2, 9.', { voice: 'en', wordsPerMinute: 175 });
    const ms = pcmDurationMs(pcm);
    assert.equal(pcm.length % 2, 0);
    // About 2.5 s at 175 words per minute; a different sample rate would be off by a factor.
    assert.ok(ms > 1500 && ms < 5000, `${ms} ms`);
    assert.ok(rms(pcm) > 500, 'the audio is not silent');
  });

  it('honours the requested rate: twice the words per minute, a much shorter clip', async () => {
    const text = 'Your verification code is 4, 8, 2, 9.';
    const normal = pcmDurationMs(await tts.synthesize(text, { voice: 'en', wordsPerMinute: 175 }));
    const fast = pcmDurationMs(await tts.synthesize(text, { voice: 'en', wordsPerMinute: 350 }));
    const slow = pcmDurationMs(await tts.synthesize(text, { voice: 'en', wordsPerMinute: 88 }));
    assert.ok(fast < normal * 0.75, `350 wpm: ${fast} ms, 175 wpm: ${normal} ms`);
    assert.ok(slow > normal * 1.4, `88 wpm: ${slow} ms, 175 wpm: ${normal} ms`);
  });

  it("reads a template's speechRate: the whole message is shorter at 2.0 than at 1.0", async () => {
    const cache = new PromptCache();
    const normal = pcmDurationMs(await renderReading(composeSpokenMessage(voice({ speechRate: 1 })), tts, cache));
    const fast = pcmDurationMs(await renderReading(composeSpokenMessage(voice({ speechRate: 2 })), tts, cache));
    assert.ok(fast < normal * 0.7, `speechRate 2: ${fast} ms, speechRate 1: ${normal} ms`);
  });

  it('speaks the languages of the templates (German, Portuguese, Mandarin)', async () => {
    for (const language of ['de', 'pt_br', 'zh_cn']) {
      const pcm = await renderReading(composeSpokenMessage(voice({ language, template: '{{pin}}' })), tts, new PromptCache());
      assert.ok(pcmDurationMs(pcm) > 1000 && rms(pcm) > 300, language);
    }
  });

  it('refuses a voice espeak-ng does not have, for good', async () => {
    await assert.rejects(tts.synthesize('hello', { voice: 'xx-nope', wordsPerMinute: 175 }), (err: TtsError) => {
      assert.ok(err instanceof TtsError);
      assert.equal(err.permanent, true);
      assert.match(err.message, /espeak-ng failed.*voice does not exist/);
      return true;
    });
  });
});

describe('a missing speech engine', () => {
  it('names the Debian package to install', async () => {
    const tts = new EspeakTts({ espeakPath: '/nonexistent/espeak-ng' });
    await assert.rejects(tts.synthesize('hello', { voice: 'en', wordsPerMinute: 175 }), (err: TtsError) => {
      assert.ok(err instanceof TtsError);
      assert.equal(err.permanent, true);
      assert.match(err.message, /^espeak-ng is not installed .*apt-get install espeak-ng/);
      return true;
    });
    const noSox = new EspeakTts({ soxPath: '/nonexistent/sox' });
    await assert.rejects(noSox.synthesize('hello', { voice: 'en', wordsPerMinute: 175 }), /sox is not installed .*apt-get install sox/);
  });

  it('checks the voice name and rate before starting anything', async () => {
    const tts = new EspeakTts({ espeakPath: '/nonexistent/espeak-ng' });
    await assert.rejects(tts.synthesize('x', { voice: 'en; rm -rf /', wordsPerMinute: 175 }), /invalid espeak-ng voice/);
    await assert.rejects(tts.synthesize('x', { voice: 'en', wordsPerMinute: 5 }), /words per minute/);
  });
});

describe('a reading assembled from clips', () => {
  it('speaks the PIN one character per clip, caches clips (never the whole PIN) and reuses them', async () => {
    const tts = new FakeTts();
    const cache = new PromptCache();
    const first = await renderReading(composeSpokenMessage(voice({ pin: '4829' })), tts, cache);
    // 300 ms text, 250 ms pause, 4 × 100 ms characters with 3 × 350 ms pauses.
    assert.equal(pcmDurationMs(first), TEXT_CLIP_MS + 250 + 4 * CHARACTER_CLIP_MS + 3 * 350);
    assert.deepEqual(tts.requests.map((r) => r.text), ['Your code is', '4', '8', '2', '9']);
    await renderReading(composeSpokenMessage(voice({ pin: '4871' })), tts, cache);
    assert.deepEqual(tts.requests.slice(5).map((r) => r.text), ['7', '1'], 'only the clips not cached yet');
    assert.ok(tts.requests.every((r) => r.text.length === 1 || !/\d{2}/.test(r.text)), 'no run of PIN digits reached the engine');
  });

  it('shortens the pauses with the speech rate and keys the cache by voice and pace', async () => {
    const tts = new FakeTts();
    const cache = new PromptCache();
    const fast = await renderReading(composeSpokenMessage(voice({ speechRate: 2 })), tts, cache);
    assert.equal(pcmDurationMs(fast), TEXT_CLIP_MS + 125 + 4 * CHARACTER_CLIP_MS + 3 * 175);
    await renderReading(composeSpokenMessage(voice({ speechRate: 1, language: 'de' })), tts, cache);
    assert.equal(tts.requests.length, 10);
    assert.deepEqual([...new Set(tts.requests.map((r) => `${r.voice}@${r.wordsPerMinute}`))], ['en@350', 'de@175']);
  });

  it('drops the least recently used clips past its size, and does not keep failures', async () => {
    const cache = new PromptCache(10);
    await cache.get('a', async () => Buffer.alloc(6));
    await cache.get('b', async () => Buffer.alloc(6));
    assert.equal(cache.size, 1);
    await assert.rejects(cache.get('c', async () => Promise.reject(new Error('boom'))), /boom/);
    assert.equal(cache.size, 1);
  });

  it('trims near-silence at both ends of a clip, keeping a margin', () => {
    const pcm = Buffer.alloc(8000 * 2);
    for (let i = 4000; i < 4800; i++) pcm.writeInt16LE(10_000, i * 2);
    const trimmed = trimSilence(pcm);
    assert.equal(trimmed.length / 2, 800 + 2 * 240);
    assert.equal(trimSilence(Buffer.alloc(100)).length, 0);
  });
});
