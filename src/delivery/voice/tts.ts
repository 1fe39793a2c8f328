// Text-to-speech behind a port, so the SIP transport does not care which engine speaks (and tests
// can stand in a fake). The one implementation runs espeak-ng as a subprocess and resamples its
// 22.05 kHz WAV to telephone audio with sox:
//
//   espeak-ng -v <voice> -s <wpm> --stdout --stdin | sox -t wav - -t raw -r 8000 -c 1 -e signed-integer -b 16 -L -
//
// The text goes in on stdin, never on the command line, where any local user could read it in the
// process list. Nothing is written to disk.
import { spawn, type ChildProcess } from 'node:child_process';

/** Telephone audio: 8 kHz, mono, signed 16-bit little-endian PCM. */
export const TTS_SAMPLE_RATE = 8000;
export const BYTES_PER_SAMPLE = 2;

export interface TtsOptions {
  /** Engine voice, e.g. `en`, `pt-br`, `cmn` (see spoken-text.ts for the language mapping). */
  voice: string;
  wordsPerMinute: number;
}

export interface Tts {
  /** The text spoken as 8 kHz mono signed 16-bit little-endian PCM. */
  synthesize(text: string, options: TtsOptions): Promise<Buffer>;
}

/** `permanent`: the engine is missing or refuses the voice; trying again will not help. */
export class TtsError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'TtsError';
  }
}

export interface EspeakTtsOptions {
  /** Default `espeak-ng` (from PATH). */
  espeakPath?: string;
  /** Default `sox` (from PATH). */
  soxPath?: string;
  /** The whole synthesis is killed past this; default 15 s. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const STDERR_KEEP = 300;
const PACKAGES: Record<string, string> = { 'espeak-ng': 'espeak-ng', sox: 'sox' };

export class EspeakTts implements Tts {
  private readonly espeakPath: string;
  private readonly soxPath: string;
  private readonly timeoutMs: number;

  constructor(options: EspeakTtsOptions = {}) {
    this.espeakPath = options.espeakPath ?? 'espeak-ng';
    this.soxPath = options.soxPath ?? 'sox';
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  synthesize(text: string, options: TtsOptions): Promise<Buffer> {
    if (!/^[A-Za-z0-9_+-]{1,40}$/.test(options.voice)) return Promise.reject(new TtsError(`invalid espeak-ng voice name "${options.voice}"`, true));
    const wpm = Math.round(options.wordsPerMinute);
    if (!Number.isFinite(wpm) || wpm < 40 || wpm > 500) return Promise.reject(new TtsError(`words per minute out of range: ${options.wordsPerMinute}`, true));

    return new Promise<Buffer>((resolve, reject) => {
      let settled = false;
      const children: ChildProcess[] = [];
      const finish = (error: TtsError | null, audio?: Buffer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error !== null) for (const child of children) child.kill('SIGKILL');
        if (error !== null) reject(error);
        else resolve(audio as Buffer);
      };
      const timer = setTimeout(() => finish(new TtsError(`speech synthesis took longer than ${this.timeoutMs / 1000} s`, false)), this.timeoutMs);

      const espeak = spawn(this.espeakPath, ['-v', options.voice, '-s', String(wpm), '--stdout', '--stdin'], { stdio: ['pipe', 'pipe', 'pipe'] });
      const sox = spawn(this.soxPath, ['-q', '-t', 'wav', '-', '-t', 'raw', '-r', String(TTS_SAMPLE_RATE), '-c', '1', '-e', 'signed-integer', '-b', '16', '-L', '-'], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      children.push(espeak, sox);

      const stderr = { espeak: '', sox: '' };
      espeak.stderr?.on('data', (chunk: Buffer) => (stderr.espeak = (stderr.espeak + chunk.toString('utf8')).slice(-STDERR_KEEP)));
      sox.stderr?.on('data', (chunk: Buffer) => (stderr.sox = (stderr.sox + chunk.toString('utf8')).slice(-STDERR_KEEP)));
      const chunks: Buffer[] = [];
      sox.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));

      for (const [child, name, path] of [[espeak, 'espeak-ng', this.espeakPath], [sox, 'sox', this.soxPath]] as const) {
        child.on('error', (err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') {
            finish(new TtsError(`${name} is not installed (no "${path}" on PATH): install the Debian package ${PACKAGES[name]} (apt-get install ${PACKAGES[name]})`, true));
          } else {
            finish(new TtsError(`${name} could not be started: ${err.message}`, err.code === 'EACCES'));
          }
        });
        // A pipe closed early by a dying peer surfaces as EPIPE here; the exit code tells the story.
        child.stdin?.on('error', () => undefined);
      }
      espeak.stdout?.pipe(sox.stdin as NodeJS.WritableStream);

      // Judged once both have exited: when espeak-ng fails, sox fails too (on an empty input), and
      // espeak-ng's reason is the one worth reporting.
      const codes: { espeak?: number | null; sox?: number | null } = {};
      const judge = (): void => {
        if (codes.espeak === undefined || codes.sox === undefined) return;
        if (codes.espeak !== 0) {
          const permanent = /voice does not exist/i.test(stderr.espeak);
          return finish(new TtsError(`espeak-ng failed (exit ${codes.espeak}): ${oneLine(stderr.espeak) || 'no message'}`, permanent));
        }
        if (codes.sox !== 0) return finish(new TtsError(`sox failed (exit ${codes.sox}): ${oneLine(stderr.sox) || 'no message'}`, false));
        const audio = Buffer.concat(chunks);
        if (audio.length < BYTES_PER_SAMPLE) return finish(new TtsError('espeak-ng produced no audio', false));
        finish(null, audio.length % 2 === 0 ? audio : audio.subarray(0, audio.length - 1));
      };
      espeak.on('close', (code) => {
        codes.espeak = code;
        judge();
      });
      sox.on('close', (code) => {
        codes.sox = code;
        judge();
      });

      espeak.stdin?.end(text, 'utf8');
    });
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Duration of 8 kHz 16-bit mono PCM, in milliseconds. */
export function pcmDurationMs(pcm: Buffer): number {
  return (pcm.length / BYTES_PER_SAMPLE / TTS_SAMPLE_RATE) * 1000;
}
