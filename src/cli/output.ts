// How commands write their results: JSON on stdout for --json, aligned plain text otherwise. Notes
// meant for a person (counts, "nothing found", what happened besides the result) go to stderr, so
// that stdout holds only the result and `X=$(twofa ...)` captures exactly it.

export function writeJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function writeLine(text = ''): void {
  process.stdout.write(`${text}\n`);
}

export function note(text: string): void {
  process.stderr.write(`${text}\n`);
}

/** `label  value` lines with the labels padded to one width; undefined and null values are left out. */
export function writeFields(fields: [string, string | number | boolean | null | undefined][]): void {
  const shown = fields.filter((f): f is [string, string | number | boolean] => f[1] !== undefined && f[1] !== null);
  const width = Math.max(...shown.map(([label]) => label.length));
  for (const [label, value] of shown) {
    const text = typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value);
    writeLine(`${label.padEnd(width)}  ${text.replace(/\n/g, `\n${' '.repeat(width + 2)}`)}`);
  }
}

/** A table with a header row; cells are single-line (newlines become spaces) and padded to the widest. */
export function writeTable(header: string[], rows: string[][]): void {
  const clean = rows.map((row) => row.map((cell) => cell.replace(/\s*\n\s*/g, ' ')));
  const widths = header.map((h, i) => Math.max(h.length, ...clean.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  writeLine(line(header));
  for (const row of clean) writeLine(line(row));
}

export function truncate(text: string, max: number): string {
  const single = text.replace(/\s*\n\s*/g, ' ');
  return single.length <= max ? single : `${single.slice(0, max - 1)}…`;
}
