// Deterministic identities shared by the load generator, the seeders and the peer: the i-th phone
// number and the PIN (OTP) seeded for it, so that requests can name a PIN and its right or wrong code
// without the load generator ever reading a server's memory.

/** A valid Swiss mobile number (079 range), international digits without "+": 41790000000 + i. */
export function phoneOf(i: number): string {
  return `4179${String(i % 10_000_000).padStart(7, '0')}`;
}

/** The 6-digit PIN seeded for the i-th PIN of a pool (any fixed function of i will do). */
export function pinOf(i: number): string {
  return String((i * 7919 + 123_457) % 1_000_000).padStart(6, '0');
}

/** A 6-digit code that is never the right one for the i-th PIN. */
export function wrongPinOf(i: number): string {
  const right = pinOf(i);
  const last = (Number(right.at(-1)) + 1) % 10;
  return `${right.slice(0, -1)}${last}`;
}
