// Reads an SMSC delivery receipt (a deliver_sm whose esm_class has 0x04). SMPP 3.4 gives the facts two
// ways: the TLVs receipted_message_id and message_state (preferred: typed and unambiguous), and the
// short_message text of Appendix B, "id:IIII sub:SSS dlvrd:DDD submit date:YYMMDDhhmm done
// date:YYMMDDhhmm stat:DDDDDDD err:E text:...", whose exact format is vendor specific. The text
// pattern can therefore be replaced per provider (the DSN's dlr_regex).
import type { DeliverSm } from './smpp-session.js';

export type ReceiptStatus = 'delivered' | 'undelivered' | 'pending';

export type ParsedReceipt =
  | { ok: true; messageId: string; status: ReceiptStatus; state: string; error?: string }
  | { ok: false; reason: string; messageId?: string };

/** esm_class bit of an SMSC delivery receipt. */
export const ESM_CLASS_DELIVERY_RECEIPT = 0x04;

// message_state values (SMPP 3.4 section 5.2.28; 0 and 9 from 5.0), named as the receipt text names them.
const MESSAGE_STATES: Record<number, string> = {
  0: 'SCHEDULED',
  1: 'ENROUTE',
  2: 'DELIVRD',
  3: 'EXPIRED',
  4: 'DELETED',
  5: 'UNDELIV',
  6: 'ACCEPTD',
  7: 'UNKNOWN',
  8: 'REJECTD',
  9: 'SKIPPED',
};

// Spellings seen in the wild besides Appendix B's seven-letter ones.
const STATE_ALIASES: Record<string, string> = {
  DELIVERED: 'DELIVRD',
  UNDELIVERABLE: 'UNDELIV',
  UNDELIVERED: 'UNDELIV',
  REJECTED: 'REJECTD',
  ACCEPTED: 'ACCEPTD',
};

const FINAL_STATUS: Record<string, ReceiptStatus> = {
  DELIVRD: 'delivered',
  UNDELIV: 'undelivered',
  REJECTD: 'undelivered',
  EXPIRED: 'undelivered',
  DELETED: 'undelivered',
  UNKNOWN: 'undelivered',
  // Not final: the message is still on its way (or, for ACCEPTD, was handled manually by the
  // operator); a final receipt may follow.
  ENROUTE: 'pending',
  ACCEPTD: 'pending',
  SCHEDULED: 'pending',
  SKIPPED: 'pending',
};

const ID_FIELD = /(?:^|\s)id:(\S+)/i;
const STAT_FIELD = /(?:^|\s)stat:(\S+)/i;
const ERR_FIELD = /(?:^|\s)err:(\S+)/i;
// Everything from "text:" on is the start of the original message: never searched for fields.
const TEXT_FIELD = /(?:^|\s)text:/i;

/**
 * Checks a custom receipt pattern: it must compile and have the named groups `id` and `stat`
 * (`err` is optional). Returns the error to show, or the compiled pattern.
 */
export function compileReceiptPattern(source: string): RegExp | string {
  let pattern: RegExp;
  try {
    pattern = new RegExp(source, 'i');
  } catch (err) {
    return `is not a valid regular expression (${(err as Error).message})`;
  }
  if (!source.includes('(?<id>') || !source.includes('(?<stat>')) {
    return 'must have the named groups (?<id>...) and (?<stat>...), and may have (?<err>...)';
  }
  return pattern;
}

export function parseDeliveryReceipt(pdu: DeliverSm, pattern?: RegExp): ParsedReceipt {
  const fields = textFields(pdu.text, pattern);
  const messageId = nonEmpty(pdu.receiptedMessageId) ?? fields.id;
  if (messageId === undefined) return { ok: false, reason: 'no receipted_message_id and no id: in the text' };

  let state: string | undefined;
  if (pdu.messageState !== undefined) state = MESSAGE_STATES[pdu.messageState];
  if (state === undefined && fields.stat !== undefined) {
    const upper = fields.stat.toUpperCase();
    state = STATE_ALIASES[upper] ?? upper;
  }
  const status = state === undefined ? undefined : FINAL_STATUS[state];
  if (state === undefined || status === undefined) {
    return { ok: false, reason: 'no recognisable message_state or stat:', messageId };
  }
  if (status !== 'undelivered') return { ok: true, messageId, status, state };
  return { ok: true, messageId, status, state, error: describeError(state, fields.err, pdu.networkErrorCode) };
}

function textFields(text: string | undefined, pattern: RegExp | undefined): { id?: string; stat?: string; err?: string } {
  if (text === undefined) return {};
  if (pattern !== undefined) {
    const groups = pattern.exec(text)?.groups;
    return { id: nonEmpty(groups?.id), stat: nonEmpty(groups?.stat), err: nonEmpty(groups?.err) };
  }
  const cut = TEXT_FIELD.exec(text);
  const head = cut === null ? text : text.slice(0, cut.index);
  return { id: ID_FIELD.exec(head)?.[1], stat: STAT_FIELD.exec(head)?.[1], err: ERR_FIELD.exec(head)?.[1] };
}

function describeError(state: string, err: string | undefined, networkErrorCode: Buffer | undefined): string {
  if (err !== undefined && !/^0+$/.test(err)) return `${state} err:${err}`;
  if (networkErrorCode !== undefined && networkErrorCode.length === 3) {
    return `${state} network_error_code:${networkErrorCode.readUInt8(0)}/${networkErrorCode.readUInt16BE(1)}`;
  }
  return state;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
