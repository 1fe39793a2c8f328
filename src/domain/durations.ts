// Infobip expresses every time span as `{timeLength}{timeUnit}` ("15m", "d") and every limit as
// `{attempts}/{timeLength}{timeUnit}` ("3/1d"). These parsers are the single place that format is read.

export type TimeUnit = 'ms' | 's' | 'm' | 'h' | 'd';

const UNIT_MS: Record<TimeUnit, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

export const ONE_DAY_MS = UNIT_MS.d;
export const ONE_YEAR_MS = 365 * ONE_DAY_MS;

// Beyond this a limit stops limiting anything and the counters risk losing meaning.
const MAX_LIMIT_ATTEMPTS = 1_000_000;

// timeLength has no leading zero and is never 0: Infobip's own format has no zero-length spans.
const DURATION_PATTERN = /^([1-9]\d*)?(ms|s|m|h|d)$/;
const RATE_LIMIT_PATTERN = /^([1-9]\d*)\/([1-9]\d*)?(ms|s|m|h|d)$/;

const DURATION_FORMAT_ERROR =
  'must be {timeLength}{timeUnit} with unit ms, s, m, h or d, e.g. 15m';
const LIMIT_FORMAT_ERROR =
  'must be {attempts}/{timeLength}{timeUnit} with unit ms, s, m, h or d, e.g. 3/1d';

function toMilliseconds(lengthText: string | undefined, unit: string): number | null {
  // A digit string that long overflows double precision; it could never pass a cap anyway.
  if (lengthText !== undefined && lengthText.length > 15) return null;
  const length = lengthText === undefined ? 1 : Number(lengthText);
  const ms = length * UNIT_MS[unit as TimeUnit];
  return Number.isSafeInteger(ms) ? ms : null;
}

export function parseDuration(text: string): number | null {
  const match = DURATION_PATTERN.exec(text);
  if (!match) return null;
  return toMilliseconds(match[1], match[2] as string);
}

export interface RateLimit {
  count: number;
  windowMs: number;
}

export function parseRateLimit(text: string): RateLimit | null {
  const match = RATE_LIMIT_PATTERN.exec(text);
  if (!match) return null;
  const countText = match[1] as string;
  if (countText.length > 15) return null;
  const windowMs = toMilliseconds(match[2], match[3] as string);
  if (windowMs === null) return null;
  return { count: Number(countText), windowMs };
}

export function validateTimeToLive(text: string): string | null {
  const ms = parseDuration(text);
  if (ms === null) return DURATION_FORMAT_ERROR;
  if (ms > ONE_YEAR_MS) return 'must not exceed one year';
  return null;
}

export function validateLimit(text: string, maxWindowMs: number): string | null {
  const limit = parseRateLimit(text);
  if (limit === null) return LIMIT_FORMAT_ERROR;
  if (limit.count > MAX_LIMIT_ATTEMPTS) {
    return `attempts must not exceed ${MAX_LIMIT_ATTEMPTS}`;
  }
  if (limit.windowMs > maxWindowMs) return `time period must not exceed ${describeSpan(maxWindowMs)}`;
  return null;
}

// Error messages name the cap the way the Infobip docs do ("one day", "one year").
function describeSpan(ms: number): string {
  if (ms === ONE_YEAR_MS) return 'one year';
  if (ms === ONE_DAY_MS) return 'one day';
  return `${ms}ms`;
}
