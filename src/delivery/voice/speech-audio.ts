// Assembles the audio of one reading of a voice message from clips: the template's text pieces
// and one clip per PIN character, joined by silences of chosen length. The PIN never reaches the
// speech engine as a whole, and every clip is one that does not depend on the PIN (a text piece, or
// "seven" on its own), so clips can be cached; audio holding the PIN exists only in the buffer
// returned here, for the one call that plays it.
import { PIN_BOUNDARY_PAUSE_MS, PIN_CHARACTER_PAUSE_MS, type SpokenMessage } from './spoken-text.js';
import { BYTES_PER_SAMPLE, TTS_SAMPLE_RATE, type Tts } from './tts.js';

const DEFAULT_CACHE_BYTES = 8 * 1024 * 1024;
/** Samples quieter than this (of 32767) at either end of a clip count as silence and are trimmed. */
const SILENCE_THRESHOLD = 400;
/** Kept at each end after trimming, so consonants are not clipped. */
const TRIM_MARGIN_MS = 30;

/**
 * Clips of speech without the PIN in them, least recently used dropped first once `maxBytes` is
 * exceeded. Concurrent requests for the same clip share one synthesis.
 */
export class PromptCache {
  private readonly clips = new Map<string, Promise<Buffer>>();
  private readonly sizes = new Map<string, number>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly maxBytes = DEFAULT_CACHE_BYTES) {}

  get size(): number {
    return this.clips.size;
  }

  /** The clip under `key`, made by `render` on a miss; a failed render is not kept. */
  async get(key: string, render: () => Promise<Buffer>): Promise<Buffer> {
    const cached = this.clips.get(key);
    if (cached !== undefined) {
      this.hits++;
      // Re-inserting moves the key to the end: Map order is the recency order.
      this.clips.delete(key);
      this.clips.set(key, cached);
      return cached;
    }
    this.misses++;
    const pending = render();
    this.clips.set(key, pending);
    try {
      const clip = await pending;
      if (this.clips.get(key) === pending) {
        this.sizes.set(key, clip.length);
        this.bytes += clip.length;
        this.evict();
      }
      return clip;
    } catch (err) {
      if (this.clips.get(key) === pending) this.clips.delete(key);
      throw err;
    }
  }

  private evict(): void {
    for (const key of this.clips.keys()) {
      if (this.bytes <= this.maxBytes) break;
      const size = this.sizes.get(key);
      if (size === undefined) continue; // still rendering
      this.clips.delete(key);
      this.sizes.delete(key);
      this.bytes -= size;
    }
  }
}

/**
 * One reading of the message as 8 kHz 16-bit mono PCM. Pauses shrink as the speech rate rises, so
 * a faster template is faster throughout. The caller owns the buffer (it holds the PIN) and should
 * zero it once played.
 */
export async function renderReading(message: SpokenMessage, tts: Tts, cache: PromptCache): Promise<Buffer> {
  const options = { voice: message.espeakVoice, wordsPerMinute: message.wordsPerMinute };
  const clip = (kind: 'text' | 'char', text: string): Promise<Buffer> =>
    cache.get(`${options.voice}|${options.wordsPerMinute}|${kind}|${text}`, async () => trimSilence(await tts.synthesize(text, options)));
  const pause = (ms: number): Buffer => silence(ms / message.speechRate);

  const parts: Buffer[] = [];
  for (const [index, segment] of message.segments.entries()) {
    if (segment.kind === 'text') {
      parts.push(await clip('text', segment.text));
      continue;
    }
    if (index > 0) parts.push(pause(PIN_BOUNDARY_PAUSE_MS));
    for (const [at, character] of segment.characters.entries()) {
      if (at > 0) parts.push(pause(PIN_CHARACTER_PAUSE_MS));
      parts.push(await clip('char', character));
    }
    if (index < message.segments.length - 1) parts.push(pause(PIN_BOUNDARY_PAUSE_MS));
  }
  return Buffer.concat(parts);
}

/** `ms` of silence as 8 kHz 16-bit PCM. */
export function silence(ms: number): Buffer {
  return Buffer.alloc(Math.round((ms * TTS_SAMPLE_RATE) / 1000) * BYTES_PER_SAMPLE);
}

/** The clip without the near-silence espeak-ng puts before and after speech. */
export function trimSilence(pcm: Buffer): Buffer {
  const samples = Math.floor(pcm.length / BYTES_PER_SAMPLE);
  let first = 0;
  while (first < samples && Math.abs(pcm.readInt16LE(first * BYTES_PER_SAMPLE)) < SILENCE_THRESHOLD) first++;
  if (first === samples) return pcm.subarray(0, 0);
  let last = samples - 1;
  while (last > first && Math.abs(pcm.readInt16LE(last * BYTES_PER_SAMPLE)) < SILENCE_THRESHOLD) last--;
  const margin = Math.round((TRIM_MARGIN_MS * TTS_SAMPLE_RATE) / 1000);
  const start = Math.max(0, first - margin);
  const end = Math.min(samples, last + 1 + margin);
  return pcm.subarray(start * BYTES_PER_SAMPLE, end * BYTES_PER_SAMPLE);
}
