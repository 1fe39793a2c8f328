// PostgreSQL-compatible databases that would break a guarantee silently are refused at start, with
// the way out. (Those that lack a feature outright fail loudly on their own: an unknown function or
// statement is an error, not a wrong answer.)

/**
 * Why this server cannot be used as configured, or undefined. `version` is `select version()`.
 * CockroachDB has long accepted pg_advisory_xact_lock as a no-op that locks nothing, so the rate
 * limits, counted under it, would admit more than their count under concurrency; counted in Redis
 * they hold.
 */
export function compatibilityProblem(version: string, options: { externalRateLimiter: boolean }): string | undefined {
  if (/cockroachdb/i.test(version) && !options.externalRateLimiter) {
    return 'the database is CockroachDB, whose advisory-lock functions may not lock (see docs/scaling.md): set TWOFA_REDIS_URL so that the rate limits are counted in Redis';
  }
  return undefined;
}
