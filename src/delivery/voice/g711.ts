// G.711 companding of 16-bit linear PCM: µ-law (PCMU, RTP payload type 0) and A-law (PCMA, payload
// type 8), the two codecs every SIP trunk speaks. One byte per sample, so a 20 ms frame at 8 kHz is
// 160 bytes.

export type G711Codec = 'PCMU' | 'PCMA';

const MULAW_BIAS = 0x84;
const MULAW_CLIP = 32635;

function linearToMuLaw(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  let magnitude = Math.min(Math.abs(sample), MULAW_CLIP) + MULAW_BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  magnitude = sign | (exponent << 4) | mantissa;
  return ~magnitude & 0xff;
}

function muLawToLinear(byte: number): number {
  const value = ~byte & 0xff;
  const sign = value & 0x80;
  const exponent = (value >> 4) & 0x07;
  const mantissa = value & 0x0f;
  const magnitude = (((mantissa << 3) + MULAW_BIAS) << exponent) - MULAW_BIAS;
  return sign !== 0 ? -magnitude : magnitude;
}

function linearToALaw(sample: number): number {
  const sign = sample >= 0 ? 0x80 : 0;
  // A-law works on 13-bit magnitudes.
  let magnitude = Math.min(sample >= 0 ? sample : -sample - 1, 32767) >> 3;
  let encoded: number;
  if (magnitude < 32) {
    encoded = magnitude >> 1;
  } else {
    let exponent = 1;
    while (magnitude >= 64 && exponent < 7) {
      magnitude >>= 1;
      exponent++;
    }
    encoded = (exponent << 4) | ((magnitude >> 1) & 0x0f);
  }
  return (sign | encoded) ^ 0x55;
}

function aLawToLinear(byte: number): number {
  const value = byte ^ 0x55;
  const exponent = (value >> 4) & 0x07;
  const mantissa = value & 0x0f;
  let magnitude = exponent === 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1);
  magnitude = Math.min(magnitude, 32767);
  return (value & 0x80) !== 0 ? magnitude : -magnitude;
}

/** 16-bit little-endian PCM companded to one byte per sample. */
export function encodeG711(codec: G711Codec, pcm: Buffer): Buffer {
  const samples = Math.floor(pcm.length / 2);
  const out = Buffer.allocUnsafe(samples);
  const encode = codec === 'PCMU' ? linearToMuLaw : linearToALaw;
  for (let i = 0; i < samples; i++) out[i] = encode(pcm.readInt16LE(i * 2));
  return out;
}

/** The reverse of encodeG711 (to check audio in tests, or to mix). */
export function decodeG711(codec: G711Codec, bytes: Buffer): Buffer {
  const out = Buffer.allocUnsafe(bytes.length * 2);
  const decode = codec === 'PCMU' ? muLawToLinear : aLawToLinear;
  for (let i = 0; i < bytes.length; i++) out.writeInt16LE(decode(bytes[i] as number), i * 2);
  return out;
}

/** The byte a codec uses for silence (the encoding of sample 0). */
export function g711Silence(codec: G711Codec): number {
  return codec === 'PCMU' ? 0xff : 0xd5;
}
