// Recognising PostgreSQL URLs without loading node-postgres (slow to load; SQLite nodes never need it).
import { describeDsn } from '../../domain/dsn-masking.js';

/** Whether a URL names PostgreSQL (the two schemes libpq accepts). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** The URL without its password (also a `?password=` parameter), for messages. */
export function redactPostgresUrl(url: string): string {
  return describeDsn(url);
}
