// Prelude's verification ids over the engine's PIN ids, one to one, so nothing is stored to find the
// PIN an id names: `vrf_` and the PIN id's 128 bits in 26 lower-case Crockford base32 characters,
// the shape of Prelude's own ids (`vrf_01jc0t6fwwfgfsq1md24mhyztj`).
const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const PREFIX = 'vrf_';
const PIN_ID = /^[0-9A-F]{32}$/;
/** 26 characters of 5 bits hold 130: the first carries 3 (0 to 7), as a ULID's does. */
const ID = /^vrf_[0-7][0-9a-hjkmnp-tv-z]{25}$/;

export function preludeVerificationId(pinId: string): string {
  if (!PIN_ID.test(pinId)) throw new Error('a PIN id is 32 upper-case hex characters');
  let value = BigInt(`0x${pinId}`);
  let out = '';
  for (let i = 0; i < 26; i++) {
    out = CROCKFORD[Number(value & 31n)]! + out;
    value >>= 5n;
  }
  return `${PREFIX}${out}`;
}

/** The PIN id a Prelude verification id names, or undefined when it is not one. */
export function pinIdOfPreludeId(id: string): string | undefined {
  if (!ID.test(id)) return undefined;
  let value = 0n;
  for (const character of id.slice(PREFIX.length)) value = (value << 5n) | BigInt(CROCKFORD.indexOf(character));
  return value.toString(16).toUpperCase().padStart(32, '0');
}
