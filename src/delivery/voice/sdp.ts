// The SDP (RFC 4566) of our offer and the parts of the answer we need (RFC 3264): one audio stream
// offering PCMU (0) and PCMA (8) plus RFC 4733 telephone events (101) so the callee's key presses
// reach us; the answer tells where to send RTP, which codec the callee chose, and which payload
// type it uses for telephone events.
import type { G711Codec } from './g711.js';

export const PCMU_PAYLOAD = 0;
export const PCMA_PAYLOAD = 8;
export const TELEPHONE_EVENT_PAYLOAD = 101;

export interface SdpOffer {
  /** The address the callee sends RTP to (ours, or the public one a NAT maps to us). */
  address: string;
  port: number;
  /** o= session id and version: any number, the same for the whole call. */
  sessionId: string;
}

export function buildOffer(offer: SdpOffer): string {
  const family = offer.address.includes(':') ? 'IP6' : 'IP4';
  return [
    'v=0',
    `o=twofa ${offer.sessionId} ${offer.sessionId} IN ${family} ${offer.address}`,
    's=twofa',
    `c=IN ${family} ${offer.address}`,
    't=0 0',
    `m=audio ${offer.port} RTP/AVP ${PCMU_PAYLOAD} ${PCMA_PAYLOAD} ${TELEPHONE_EVENT_PAYLOAD}`,
    `a=rtpmap:${PCMU_PAYLOAD} PCMU/8000`,
    `a=rtpmap:${PCMA_PAYLOAD} PCMA/8000`,
    `a=rtpmap:${TELEPHONE_EVENT_PAYLOAD} telephone-event/8000`,
    `a=fmtp:${TELEPHONE_EVENT_PAYLOAD} 0-15`,
    'a=ptime:20',
    'a=sendrecv',
    '',
  ].join('\r\n');
}

export interface SdpAnswer {
  address: string;
  port: number;
  codec: G711Codec;
  payloadType: number;
  /** The callee's payload type for telephone events, or null when it does not send them. */
  telephoneEventPayload: number | null;
}

export type SdpAnswerResult = { ok: true; answer: SdpAnswer } | { ok: false; error: string };

/** The first audio stream of an answer, checked against what we offered. */
export function parseAnswer(sdp: string): SdpAnswerResult {
  const lines = sdp.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
  let sessionAddress: string | undefined;
  let media: { port: number; formats: string[]; address?: string; rtpmap: Map<number, string> } | undefined;
  let seenAudio = false;
  for (const line of lines) {
    const type = line.charAt(0);
    const value = line.slice(2);
    if (type === 'm') {
      if (seenAudio) break; // only the first audio stream matters
      const [kind, port, , ...formats] = value.split(/\s+/);
      if (kind !== 'audio') {
        media = undefined;
        continue;
      }
      seenAudio = true;
      media = { port: Number(port), formats, rtpmap: new Map() };
    } else if (type === 'c') {
      const address = /^IN\s+IP[46]\s+([^\s/]+)/.exec(value)?.[1];
      if (address === undefined) continue;
      if (media === undefined && !seenAudio) sessionAddress = address;
      else if (media !== undefined) media.address = address;
    } else if (type === 'a' && media !== undefined) {
      const rtpmap = /^rtpmap:(\d+)\s+([^/\s]+)\/(\d+)/i.exec(value);
      if (rtpmap) media.rtpmap.set(Number(rtpmap[1]), `${(rtpmap[2] as string).toLowerCase()}/${rtpmap[3]}`);
    }
  }
  if (media === undefined) return { ok: false, error: 'the answer has no audio stream' };
  if (!Number.isInteger(media.port) || media.port < 0 || media.port > 65535) return { ok: false, error: 'the answer has an invalid audio port' };
  if (media.port === 0) return { ok: false, error: 'the callee refused the audio stream' };
  const address = media.address ?? sessionAddress;
  if (address === undefined) return { ok: false, error: 'the answer has no connection address' };

  let chosen: { codec: G711Codec; payloadType: number } | undefined;
  let telephoneEventPayload: number | null = null;
  for (const format of media.formats) {
    const payloadType = Number(format);
    if (!Number.isInteger(payloadType)) continue;
    const mapped = media.rtpmap.get(payloadType);
    const codec = mapped === 'pcmu/8000' || (mapped === undefined && payloadType === PCMU_PAYLOAD) ? 'PCMU'
      : mapped === 'pcma/8000' || (mapped === undefined && payloadType === PCMA_PAYLOAD) ? 'PCMA'
        : undefined;
    if (codec !== undefined && chosen === undefined) chosen = { codec, payloadType };
    if (mapped === 'telephone-event/8000' && telephoneEventPayload === null) telephoneEventPayload = payloadType;
  }
  if (chosen === undefined) return { ok: false, error: 'the callee accepts neither PCMU nor PCMA' };
  return { ok: true, answer: { address, port: media.port, ...chosen, telephoneEventPayload } };
}
