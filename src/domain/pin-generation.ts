import { randomBytes as cryptoRandomBytes } from 'node:crypto';

export type PinType = 'NUMERIC' | 'ALPHA' | 'HEX' | 'ALPHANUMERIC';

export const PIN_TYPES: readonly PinType[] = ['NUMERIC', 'ALPHA', 'HEX', 'ALPHANUMERIC'];

const DIGITS = '0123456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export const PIN_ALPHABETS: Record<PinType, string> = {
  NUMERIC: DIGITS,
  ALPHA: LETTERS,
  HEX: `${DIGITS}ABCDEF`,
  ALPHANUMERIC: `${DIGITS}${LETTERS}`,
};

// Below 4 characters a PIN falls to a handful of guesses even with attempt limits; above 16 people
// mistype it and SMS/voice readouts get long, with no security gain worth that cost.
export const PIN_LENGTH_MIN = 4;
export const PIN_LENGTH_MAX = 16;

export type RandomBytesSource = (n: number) => Buffer;

/**
 * Draws each character uniformly from the alphabet of `type`.
 *
 * A byte taken modulo the alphabet size would favour the first `256 % size` characters, so bytes
 * from the incomplete last block are thrown away and redrawn instead.
 */
export function generatePin(
  type: PinType,
  length: number,
  randomBytes: RandomBytesSource = cryptoRandomBytes,
): string {
  const alphabet = PIN_ALPHABETS[type];
  if (alphabet === undefined) throw new RangeError(`unknown PIN type: ${String(type)}`);
  // A caller bug must not be able to mint a trivially guessable PIN.
  if (!Number.isInteger(length) || length < PIN_LENGTH_MIN || length > PIN_LENGTH_MAX) {
    throw new RangeError(
      `PIN length must be an integer from ${PIN_LENGTH_MIN} to ${PIN_LENGTH_MAX}, got ${length}`,
    );
  }
  const size = alphabet.length;
  const acceptBelow = 256 - (256 % size);
  let pin = '';
  while (pin.length < length) {
    // Ask for a little more than needed so one rejected byte rarely costs another round trip.
    const bytes = randomBytes(length - pin.length + 4);
    if (bytes.length === 0) throw new Error('random source returned no bytes');
    for (const byte of bytes) {
      if (byte >= acceptBelow) continue;
      pin += alphabet.charAt(byte % size);
      if (pin.length === length) break;
    }
  }
  return pin;
}

function randomUpperHex(byteCount: number, randomBytes: RandomBytesSource): string {
  const bytes = randomBytes(byteCount);
  if (bytes.length !== byteCount) {
    throw new Error(`random source returned ${bytes.length} bytes, expected ${byteCount}`);
  }
  return bytes.toString('hex').toUpperCase();
}

/** 128 random bits as 32 upper-case hex characters: the shape Infobip uses for pinIds. */
export function generatePinId(randomBytes: RandomBytesSource = cryptoRandomBytes): string {
  return randomUpperHex(16, randomBytes);
}

/** Same shape as a pinId, for applicationIds and messageIds, which Infobip also issues as hex. */
export function generateResourceId(randomBytes: RandomBytesSource = cryptoRandomBytes): string {
  return randomUpperHex(16, randomBytes);
}
