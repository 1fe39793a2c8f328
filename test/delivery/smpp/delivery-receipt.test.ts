import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileReceiptPattern, parseDeliveryReceipt } from '../../../src/delivery/smpp/delivery-receipt.js';
import { MultipartReceipts } from '../../../src/delivery/smpp/multipart-receipts.js';
import type { DeliverSm } from '../../../src/delivery/smpp/smpp-session.js';

function receipt(fields: Partial<DeliverSm>): DeliverSm {
  return { esmClass: 4, dataCoding: 0, sourceAddr: '41793026727', destinationAddr: 'ACME', ...fields };
}

describe('delivery receipt parsing', () => {
  it('prefers the TLVs over the text', () => {
    const parsed = parseDeliveryReceipt(receipt({ receiptedMessageId: 'A1', messageState: 2, text: 'id:B2 stat:UNDELIV err:001' }));
    assert.deepEqual(parsed, { ok: true, messageId: 'A1', status: 'delivered', state: 'DELIVRD' });
  });

  it('reads every final state of the Appendix B text', () => {
    const expected: Record<string, string> = {
      DELIVRD: 'delivered',
      UNDELIV: 'undelivered',
      REJECTD: 'undelivered',
      EXPIRED: 'undelivered',
      DELETED: 'undelivered',
      UNKNOWN: 'undelivered',
      ENROUTE: 'pending',
      ACCEPTD: 'pending',
    };
    for (const [stat, status] of Object.entries(expected)) {
      const text = `id:0123abc sub:001 dlvrd:001 submit date:2401011200 done date:2401011201 stat:${stat} err:000 text:Code 123456`;
      const parsed = parseDeliveryReceipt(receipt({ text }));
      assert.ok(parsed.ok);
      assert.equal(parsed.messageId, '0123abc');
      assert.equal(parsed.status, status, stat);
    }
  });

  it('names the error of an undelivered message from err:, else network_error_code', () => {
    const text = parseDeliveryReceipt(receipt({ text: 'id:1 sub:001 dlvrd:000 submit date:x done date:y stat:UNDELIV err:0ab' }));
    assert.ok(text.ok && text.error === 'UNDELIV err:0ab');
    const tlv = parseDeliveryReceipt(receipt({ receiptedMessageId: '1', messageState: 5, networkErrorCode: Buffer.from([3, 0x00, 0x22]) }));
    assert.ok(tlv.ok && tlv.error === 'UNDELIV network_error_code:3/34');
    const bare = parseDeliveryReceipt(receipt({ receiptedMessageId: '1', messageState: 8 }));
    assert.ok(bare.ok && bare.error === 'REJECTD');
  });

  it('never takes fields from the quoted message text', () => {
    const parsed = parseDeliveryReceipt(receipt({ text: 'id:77 sub:001 dlvrd:000 stat:UNDELIV err:1 text:id:99 stat:DELIVRD' }));
    assert.ok(parsed.ok && parsed.messageId === '77' && parsed.status === 'undelivered');
    const hidden = parseDeliveryReceipt(receipt({ text: 'hello text: id:99 stat:DELIVRD' }));
    assert.equal(hidden.ok, false);
  });

  it('reports what is missing from a malformed receipt', () => {
    assert.deepEqual(parseDeliveryReceipt(receipt({ text: 'garbage' })), { ok: false, reason: 'no receipted_message_id and no id: in the text' });
    assert.deepEqual(parseDeliveryReceipt(receipt({ text: 'id:5 stat:SOMETHING' })), { ok: false, reason: 'no recognisable message_state or stat:', messageId: '5' });
    assert.equal(parseDeliveryReceipt(receipt({})).ok, false);
  });

  it('accepts a custom pattern with id and stat groups, and refuses one without', () => {
    const pattern = compileReceiptPattern('msgid=(?<id>\\w+) status=(?<stat>\\w+)( code=(?<err>\\d+))?');
    assert.ok(pattern instanceof RegExp);
    const parsed = parseDeliveryReceipt(receipt({ text: 'msgid=X9 status=undeliverable code=12' }), pattern);
    assert.deepEqual(parsed, { ok: true, messageId: 'X9', status: 'undelivered', state: 'UNDELIV', error: 'UNDELIV err:12' });
    assert.match(compileReceiptPattern('id:(\\S+)') as string, /named groups/);
    assert.match(compileReceiptPattern('(?<id>') as string, /not a valid regular expression/);
  });
});

describe('multipart receipts', () => {
  it('reports delivered once every part is delivered, under the last part id', () => {
    const receipts = new MultipartReceipts();
    const message = receipts.begin();
    receipts.addPart(message, 'p1');
    receipts.addPart(message, 'p2');
    assert.deepEqual(receipts.complete(message, 'p2'), { kind: 'absorbed' });
    assert.deepEqual(receipts.receipt('p2', 'delivered'), { kind: 'absorbed' });
    assert.deepEqual(receipts.receipt('p1', 'delivered'), { kind: 'report', providerMessageId: 'p2', status: 'delivered' });
    assert.deepEqual(receipts.receipt('p1', 'delivered'), { kind: 'absorbed' }, 'a duplicate receipt reports nothing');
    assert.deepEqual(receipts.receipt('other', 'delivered'), { kind: 'untracked' });
  });

  it('reports undelivered at the first failed part, even one that overtook the last submit_sm_resp', () => {
    const receipts = new MultipartReceipts();
    const message = receipts.begin();
    receipts.addPart(message, 'p1');
    assert.deepEqual(receipts.receipt('p1', 'undelivered', 'EXPIRED'), { kind: 'absorbed' });
    receipts.addPart(message, 'p2');
    assert.deepEqual(receipts.complete(message, 'p2'), { kind: 'report', providerMessageId: 'p2', status: 'undelivered', error: 'EXPIRED' });
    assert.deepEqual(receipts.receipt('p2', 'delivered'), { kind: 'absorbed' });
  });

  it('ignores the receipts of an abandoned send and forgets the oldest and expired parts', () => {
    let now = 0;
    const receipts = new MultipartReceipts({ maxParts: 3, ttlMs: 1_000, clock: () => now });
    const abandoned = receipts.begin();
    receipts.addPart(abandoned, 'a1');
    receipts.abandon(abandoned);
    assert.deepEqual(receipts.receipt('a1', 'delivered'), { kind: 'absorbed' });

    for (const id of ['b1', 'b2', 'b3']) receipts.addPart(receipts.begin(), id);
    assert.equal(receipts.size, 3);
    assert.deepEqual(receipts.receipt('a1', 'delivered'), { kind: 'untracked' }, 'evicted as the oldest');
    now = 2_000;
    assert.deepEqual(receipts.receipt('b3', 'delivered'), { kind: 'untracked' }, 'expired');
  });
});
