// Money without floats: amounts are integers of micro-units (a millionth of the currency's unit), read
// from and written as decimal strings. Sums of prices and caps stay exact at any volume a budget holds.

/** Micro-units per unit of a currency. */
export const MICROS_PER_UNIT = 1_000_000;

/** "0.0450" -> 45000; undefined when the text is not a non-negative decimal of at most 6 decimals. */
export function parseMicros(text: string): number | undefined {
  const match = /^([0-9]{1,12})(?:\.([0-9]{1,6}))?$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * MICROS_PER_UNIT + Number((match[2] ?? '').padEnd(6, '0'));
}

/** 45000 -> "0.0450": four decimals at least (the way SMS prices are written), six at most, no float on the way. */
export function formatMicros(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(micros));
  const units = Math.floor(abs / MICROS_PER_UNIT);
  let fraction = String(abs % MICROS_PER_UNIT).padStart(6, '0');
  while (fraction.length > 4 && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  return `${sign}${units}.${fraction}`;
}
