// Turns an SMS text into short_message octets: GSM 03.38 default alphabet (one septet per octet,
// unpacked, as SMPP carries it; data_coding 0) when every character has a GSM code, UCS-2 (UTF-16BE;
// data_coding 8) otherwise. The choice and the part count are smsTextInfo's, so what the API
// reports and what goes to the SMSC cannot disagree.
import { smsTextInfo } from '../../domain/template-rendering.js';

export const DATA_CODING_GSM7 = 0x00;
export const DATA_CODING_UCS2 = 0x08;
/** esm_class bit: short_message starts with a User Data Header. */
export const ESM_CLASS_UDHI = 0x40;
/** The concatenation header numbers parts with one octet. */
export const MAX_PARTS = 255;

const ESC = 0x1b;
// GSM 03.38 default alphabet, indexed by septet; 0x1B (escape) is a placeholder, never looked up.
const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
// Extension table: sent as ESC + this septet.
const GSM_EXTENSION: Record<string, number> = {
  '\f': 0x0a,
  '^': 0x14,
  '{': 0x28,
  '}': 0x29,
  '\\': 0x2f,
  '[': 0x3c,
  '~': 0x3d,
  ']': 0x3e,
  '|': 0x40,
  '€': 0x65,
};
const GSM_CODES = new Map<string, number>();
for (let i = 0; i < GSM_BASIC.length; i++) {
  if (i !== ESC) GSM_CODES.set(GSM_BASIC[i] as string, i);
}

// Octets per part: 160 septets / 140 octets alone; with the 6-octet concatenation UDH, 153 septets
// (the UDH takes 7 septets once the SMSC packs it) / 134 octets (67 UTF-16 code units).
const GSM_SINGLE = 160;
const GSM_PART = 153;
const UCS2_SINGLE = 140;
const UCS2_PART = 134;

export interface EncodedSms {
  encoding: 'GSM-7' | 'UCS-2';
  dataCoding: number;
  /** Each part's payload, without UDH; one part means no UDH is needed. */
  parts: Buffer[];
}

export function encodeSmsText(text: string): EncodedSms {
  const info = smsTextInfo(text);
  const gsm = info.encoding === 'GSM-7';
  // Encode character by character (code point, so a surrogate pair stays one unit) and cut between
  // characters only: an escape pair or a surrogate pair never straddles two parts.
  const chars = [...text].map((ch) => (gsm ? gsmOctets(ch) : Buffer.from(ch, 'utf16le').swap16()));
  const total = chars.reduce((sum, octets) => sum + octets.length, 0);
  const single = gsm ? GSM_SINGLE : UCS2_SINGLE;
  const partSize = gsm ? GSM_PART : UCS2_PART;

  const parts: Buffer[] = [];
  if (total <= single) {
    parts.push(Buffer.concat(chars));
  } else {
    let current: Buffer[] = [];
    let used = 0;
    for (const octets of chars) {
      if (used + octets.length > partSize) {
        parts.push(Buffer.concat(current));
        current = [];
        used = 0;
      }
      current.push(octets);
      used += octets.length;
    }
    parts.push(Buffer.concat(current));
  }
  if (parts.length !== info.segments) {
    // Both follow the same rule; a difference is a bug in one of them, not bad input.
    throw new Error(`SMS segmentation disagrees with smsTextInfo (${parts.length} vs ${info.segments} parts)`);
  }
  return { encoding: info.encoding, dataCoding: gsm ? DATA_CODING_GSM7 : DATA_CODING_UCS2, parts };
}

function gsmOctets(ch: string): Buffer {
  const basic = GSM_CODES.get(ch);
  if (basic !== undefined) return Buffer.from([basic]);
  const extension = GSM_EXTENSION[ch];
  if (extension !== undefined) return Buffer.from([ESC, extension]);
  throw new Error(`character U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase()} has no GSM 03.38 code`);
}

/** The 6-octet concatenation UDH (IEI 0x00, 8-bit reference): 05 00 03 ref total seq. */
export function concatenationUdh(reference: number, total: number, sequence: number): Buffer {
  return Buffer.from([0x05, 0x00, 0x03, reference & 0xff, total, sequence]);
}
