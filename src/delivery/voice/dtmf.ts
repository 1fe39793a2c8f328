// Keys the callee presses, as RFC 4733 telephone events in the RTP stream (the usual way), or as
// SIP INFO bodies (application/dtmf-relay, application/dtmf) that some trunks send instead. A key
// press spans several RTP packets sharing one timestamp (updates, then three copies of the end
// packet); it is reported once, on the first packet of its timestamp.

/** RFC 4733 event codes 0-15. */
const EVENT_KEYS = '0123456789*#ABCD';

export interface TelephoneEvent {
  /** 0-9, *, #, A-D. */
  key: string;
  end: boolean;
  volume: number;
  /** In timestamp units (8 kHz samples). */
  duration: number;
}

/** A telephone-event payload (4 bytes), or null when it is not a DTMF event. */
export function decodeTelephoneEvent(payload: Buffer): TelephoneEvent | null {
  if (payload.length < 4) return null;
  const key = EVENT_KEYS[payload[0] as number];
  if (key === undefined) return null;
  const flags = payload[1] as number;
  return { key, end: (flags & 0x80) !== 0, volume: flags & 0x3f, duration: payload.readUInt16BE(2) };
}

export function encodeTelephoneEvent(event: TelephoneEvent): Buffer {
  const code = EVENT_KEYS.indexOf(event.key.toUpperCase());
  if (code === -1 || event.key.length !== 1) throw new Error(`not a DTMF key: ${event.key}`);
  const payload = Buffer.alloc(4);
  payload[0] = code;
  payload[1] = (event.end ? 0x80 : 0) | (event.volume & 0x3f);
  payload.writeUInt16BE(event.duration & 0xffff, 2);
  return payload;
}

/** Turns the telephone-event packets of one stream into key presses, each reported once. */
export class TelephoneEventReceiver {
  private lastTimestamp: number | undefined;

  /** The key of a new press, or null for a continuation, retransmission or a non-event. */
  receive(timestamp: number, payload: Buffer): string | null {
    const event = decodeTelephoneEvent(payload);
    if (event === null || timestamp === this.lastTimestamp) return null;
    this.lastTimestamp = timestamp;
    return event.key;
  }
}

/** The key in a SIP INFO body, or null. */
export function keyFromInfo(contentType: string | undefined, body: string): string | null {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  let candidate: string | undefined;
  if (type === 'application/dtmf-relay') candidate = /^\s*Signal\s*=\s*(\S+)/im.exec(body)?.[1];
  else if (type === 'application/dtmf') candidate = body.trim().split(/\s/)[0];
  if (candidate === undefined || candidate === '') return null;
  // Some equipment sends the event code instead of the key for * and #.
  if (candidate === '10') return '*';
  if (candidate === '11') return '#';
  if (candidate.length !== 1) return null;
  const key = candidate.toUpperCase();
  return EVENT_KEYS.includes(key) ? key : null;
}

/**
 * Watches the keys pressed for one sequence (`1#`): reports true when the latest keys spell it, then
 * starts over. Holds at most as many keys as the sequence has.
 */
export class DtmfSequence {
  private pressed = '';

  constructor(private readonly sequence: string) {}

  press(key: string): boolean {
    if (this.sequence === '') return false;
    this.pressed = (this.pressed + key.toUpperCase()).slice(-this.sequence.length);
    if (this.pressed !== this.sequence.toUpperCase()) return false;
    this.pressed = '';
    return true;
  }
}
