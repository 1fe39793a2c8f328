// Recognising PostgreSQL URLs without loading node-postgres (slow to load; SQLite nodes never need it).

/** Whether a URL names PostgreSQL (the two schemes libpq accepts). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** The URL without its password, for messages. */
export function redactPostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://…';
  }
}
