// A pino logger whose JSON lines the test can read, to check what is (and is never) logged.
import { pino, type Logger } from 'pino';

export interface CapturedLog {
  logger: Logger;
  lines: string[];
  /** Parsed entries at or above a pino level number (40 = warn). */
  entries(minLevel?: number): Record<string, unknown>[];
}

export function captureLogger(): CapturedLog {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return {
    logger,
    lines,
    entries: (minLevel = 0) =>
      lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => Number(entry.level) >= minLevel),
  };
}
