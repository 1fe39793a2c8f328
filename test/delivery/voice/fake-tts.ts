// A speech engine for tests: loud square-wave "speech" of a known length (300 ms for a text
// clip, 100 ms for one character), so frame counts are exact; it records what it was asked to say.
import type { Tts, TtsOptions } from '../../../src/delivery/voice/tts.js';

export const TEXT_CLIP_MS = 300;
export const CHARACTER_CLIP_MS = 100;

export class FakeTts implements Tts {
  readonly requests: Array<{ text: string } & TtsOptions> = [];

  async synthesize(text: string, options: TtsOptions): Promise<Buffer> {
    this.requests.push({ text, ...options });
    const samples = ((text.length === 1 ? CHARACTER_CLIP_MS : TEXT_CLIP_MS) * 8000) / 1000;
    const pcm = Buffer.alloc(samples * 2);
    for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.floor(i / 20) % 2 === 0 ? 8000 : -8000, i * 2);
    return pcm;
  }
}
