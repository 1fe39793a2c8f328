// TOTP (RFC 6238 over RFC 4226's HOTP), as Twilio's `totp` factors compute it: a Base32 seed, an HMAC
// of `alg` over the time step's counter, `code_length` digits, accepted within `skew` steps of now.
// Pure: the seed comes in decrypted, the time as a number; nothing here logs.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOTP_ALGORITHMS = ['sha1', 'sha256', 'sha512'] as const;
export type TotpAlgorithm = (typeof TOTP_ALGORITHMS)[number];

export interface TotpConfig {
  alg: TotpAlgorithm;
  /** Seconds per code. */
  time_step: number;
  code_length: number;
  /** Steps accepted on each side of the current one (clock drift, a code typed as it changes). */
  skew: number;
}

/** Twilio's ranges and its defaults (used where neither the factor nor the Service's Totp.* says). */
export const TOTP_LIMITS = {
  time_step: { min: 20, max: 60 },
  code_length: { min: 3, max: 8 },
  skew: { min: 0, max: 2 },
} as const;
export const TOTP_DEFAULTS: TotpConfig = { alg: 'sha1', time_step: 30, code_length: 6, skew: 1 };

/** 160 random bits, as Twilio's generated seeds (32 Base32 characters). */
export const TOTP_SECRET_BYTES = 20;
/** A seed the caller brings (Binding.Secret) must carry at least 80 bits (RFC 4226 §4: 128 recommended). */
export const TOTP_SECRET_MIN_BYTES = 10;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** The bytes of a Base32 text (case and `=` padding ignored), or undefined when it is not Base32. */
export function base32Decode(text: string): Buffer | undefined {
  const clean = text.replace(/=+$/, '').toUpperCase();
  if (clean.length === 0 || !/^[A-Z2-7]+$/.test(clean)) return undefined;
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    value = (value << 5) | BASE32.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new seed from `crypto`, Base32. */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(TOTP_SECRET_BYTES));
}

/** The time step `at` (epoch ms) falls in. */
export function timeStepAt(at: number, config: Pick<TotpConfig, 'time_step'>): number {
  return Math.floor(at / 1000 / config.time_step);
}

/** The code of one time step (HOTP of the step's counter, dynamically truncated). */
export function totpCode(seed: Buffer, step: number, config: Pick<TotpConfig, 'alg' | 'code_length'>): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac(config.alg, seed).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** config.code_length).padStart(config.code_length, '0');
}

/**
 * The time step whose code `candidate` is, within `skew` steps of now, or undefined. Every step of
 * the window is compared, in constant time, so the answer's timing says nothing about which matched.
 * The caller refuses a step at or before the last one the factor accepted (replay).
 */
export function matchingStep(seed: Buffer, candidate: string, at: number, config: TotpConfig): number | undefined {
  if (candidate.length !== config.code_length || !/^[0-9]+$/.test(candidate)) return undefined;
  const now = timeStepAt(at, config);
  const given = Buffer.from(candidate, 'utf8');
  let found: number | undefined;
  for (let step = now - config.skew; step <= now + config.skew; step += 1) {
    const same = timingSafeEqual(Buffer.from(totpCode(seed, step, config), 'utf8'), given);
    // The latest matching step: replay protection then refuses every earlier one too.
    if (same) found = step;
  }
  return found;
}

/**
 * The Key URI authenticator apps scan (Google Authenticator's format, as Twilio answers it):
 * `otpauth://totp/<issuer>:<account>?secret=...&issuer=...&algorithm=SHA1&digits=6&period=30`.
 */
export function otpauthUri(secret: string, issuer: string, account: string, config: TotpConfig): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = `secret=${secret}&issuer=${encodeURIComponent(issuer)}&algorithm=${config.alg.toUpperCase()}&digits=${config.code_length}&period=${config.time_step}`;
  return `otpauth://totp/${label}?${query}`;
}
