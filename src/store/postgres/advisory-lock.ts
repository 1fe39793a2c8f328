// Keys of PostgreSQL advisory locks, computed here rather than by the server (hashtextextended), so
// that the same statements run on PostgreSQL-compatible databases that lack that function. Two names
// that collide on 64 bits would only serialise each other's requests: never a wrong answer.
import { createHash } from 'node:crypto';

/** The signed 64-bit advisory-lock key of `name`, as a decimal string (pass it as `$1::bigint`). */
export function advisoryLockKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString();
}
