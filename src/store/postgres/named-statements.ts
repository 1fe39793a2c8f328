// The statements of the hot paths, prepared by name on each PostgreSQL connection: the first run on a
// connection parses and prepares the statement, every later one only binds and executes it. Sent
// unnamed (as Kysely does), PostgreSQL parses, analyses and plans a statement on every run, which for
// the rate-limit CTEs cost twice their execution (pg_stat_statements, bench/NOTES.md).
//
// A statement is registered by its text (`named(text)`); the pool's connections (open-postgres.ts's
// NamingClient) send a registered text under its name, anything else as before. This module loads no
// driver, so that dialect-neutral code (prepared-query.ts) can register statements.
// The name is a digest of the text, so it is the same on every connection and never names two texts.
// Only statements with explicit column lists may be registered: a prepared `select *` or `returning *`
// fails ("cached plan must not change result type") once a migration adds a column while the
// connection is open.
import { createHash } from 'node:crypto';

const names = new Map<string, string>();

/** Registers `text` as a statement to prepare by name; returns it unchanged. */
export function named(text: string): string {
  if (!names.has(text)) names.set(text, `twofa_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`);
  return text;
}

/** The name a registered statement is prepared under, or undefined for any other text. */
export function nameOf(text: string): string | undefined {
  return names.get(text);
}
