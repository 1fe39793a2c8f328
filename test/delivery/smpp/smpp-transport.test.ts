// The SMPP transport against a real SMSC on loopback (the `smpp` package's server, see smsc-peer.ts):
// what goes out in submit_sm, how receipts come back, and how faults end a send.
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import type { DeliveryReceipt, OutgoingMessage } from '../../../src/delivery/transport.js';
import { createSmppTransport, type SmppTransport } from '../../../src/delivery/smpp/smpp-transport.js';
import { captureLogger, type CapturedLog } from './capture-logger.js';
import { SmscPeer } from './smsc-peer.js';

const PIN = '482915';
const PHONE = '41793026727';

function message(overrides: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return {
    channel: 'sms',
    to: PHONE,
    from: 'ACME',
    text: `Your code is ${PIN}`,
    pinId: '9C817C6F8AF3D48F9FE553282AFA2B67',
    applicationId: 'APP1',
    messageId: 'MSG1',
    accountId: 'acct-1',
    ...overrides,
  };
}

interface Harness {
  peer: SmscPeer;
  transport: SmppTransport;
  receipts: DeliveryReceipt[];
  log: CapturedLog;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startPeer(options: Parameters<typeof SmscPeer.start>[0] = {}): Promise<SmscPeer> {
  const peer = await SmscPeer.start(options);
  cleanups.push(() => peer.stop());
  return peer;
}

function openTransport(url: URL, log = captureLogger()): { transport: SmppTransport; receipts: DeliveryReceipt[]; log: CapturedLog } {
  const receipts: DeliveryReceipt[] = [];
  const transport = createSmppTransport('TWOFA_SMS_DSN', url, {
    logger: log.logger,
    onReceipt: (receipt) => receipts.push(receipt),
    clock: () => 1_700_000_000_000,
    reconnectMinMs: 50,
    reconnectMaxMs: 400,
  }) as SmppTransport;
  cleanups.push(() => transport.close());
  return { transport, receipts, log };
}

async function setup(query = 'timeout=2s', peerOptions = {}): Promise<Harness> {
  const peer = await startPeer(peerOptions);
  return { peer, ...openTransport(peer.dsn(query)) };
}

function assertNothingSecretLogged(log: CapturedLog): void {
  const all = log.lines.join('\n');
  assert.ok(!all.includes(PIN), 'the PIN must never be logged');
  assert.ok(!all.includes(PHONE), 'the full phone number must never be logged');
  assert.ok(!all.includes('secret'), 'the bind password must never be logged');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SMPP transport: submit_sm', () => {
  it('binds with the DSN credentials and sends one GSM message with the right addresses and flags', async () => {
    const { peer, transport, log } = await setup('system_type=OTP&service_type=VMA&timeout=2s');
    const result = await transport.send(message());
    assert.deepEqual(result, { ok: true, providerMessageId: 'msg-1' });

    assert.deepEqual(peer.binds, [{ systemId: 'twofa', password: 'secret', systemType: 'OTP', interfaceVersion: 0x34, accepted: true }]);
    assert.equal(peer.submits.length, 1);
    const submit = peer.submits[0]!;
    assert.equal(submit.serviceType, 'VMA');
    assert.equal(submit.sourceAddr, 'ACME');
    assert.equal(submit.sourceAddrTon, 5);
    assert.equal(submit.sourceAddrNpi, 0);
    assert.equal(submit.destinationAddr, PHONE);
    assert.equal(submit.destAddrTon, 1);
    assert.equal(submit.destAddrNpi, 1);
    assert.equal(submit.dataCoding, 0);
    assert.equal(submit.esmClass, 0);
    assert.equal(submit.registeredDelivery, 1);
    assert.equal(submit.text, `Your code is ${PIN}`);
    assert.deepEqual(submit.udh, []);
    assertNothingSecretLogged(log);
  });

  it('chooses the source TON/NPI from the sender shape unless the DSN sets them', async () => {
    const { peer, transport } = await setup();
    const senders: (string | undefined)[] = ['+41791234567', '41791234567', '12345678', 'Bank 24', undefined];
    for (const from of senders) {
      const result = await transport.send(message({ from }));
      assert.equal(result.ok, true, `sender ${from}`);
    }
    assert.deepEqual(
      peer.submits.map((s) => [s.sourceAddr, s.sourceAddrTon, s.sourceAddrNpi]),
      [
        ['41791234567', 1, 1],
        ['41791234567', 1, 1],
        ['12345678', 0, 1],
        ['Bank 24', 5, 0],
        ['', 0, 0],
      ],
    );

    const overridden = await setup('source_ton=3&source_npi=0&dest_ton=0&dest_npi=1&registered_delivery=0');
    assert.equal((await overridden.transport.send(message({ from: '1234' }))).ok, true);
    const submit = overridden.peer.submits[0]!;
    assert.deepEqual([submit.sourceAddrTon, submit.sourceAddrNpi, submit.destAddrTon, submit.destAddrNpi, submit.registeredDelivery], [3, 0, 0, 1, 0]);
  });

  it('refuses, without contacting the SMSC, what no SMSC could send', async () => {
    const { peer, transport } = await setup();
    const cases: [Partial<OutgoingMessage>, RegExp][] = [
      [{ from: 'MuchTooLongSender' }, /at most 11 printable ASCII/],
      [{ from: 'Bäckerei' }, /printable ASCII/],
      [{ text: '' }, /empty/],
      [{ to: '41-79-302' }, /not an international phone number/],
    ];
    for (const [overrides, error] of cases) {
      const result = await transport.send(message(overrides));
      assert.equal(result.ok, false);
      assert.ok(!result.ok && !result.retryable && error.test(result.error), JSON.stringify(result));
    }
    assert.equal(peer.submits.length, 0);
  });

  it('keeps € and other extension characters in GSM 7-bit and switches to UCS-2 for Cyrillic or emoji', async () => {
    const { peer, transport } = await setup();
    const texts = [`Code ${PIN} [5€] {ok} ~^|\\`, `Ваш код ${PIN}`, `🔐 ${PIN} é`];
    for (const text of texts) assert.equal((await transport.send(message({ text }))).ok, true);
    assert.deepEqual(
      peer.submits.map((s) => [s.dataCoding, s.text]),
      [
        [0, texts[0]],
        [8, texts[1]],
        [8, texts[2]],
      ],
    );
  });

  it('splits a 300-character text into concatenated parts that reassemble exactly', async () => {
    const { peer, transport } = await setup();
    const text = `Your code is ${PIN}. `.padEnd(300, 'abcdefghij');
    const result = await transport.send(message({ text }));
    assert.equal(peer.submits.length, 2);
    assert.deepEqual(result, { ok: true, providerMessageId: 'msg-2' }, 'the last part names the message');

    const [first, second] = peer.submits as [typeof peer.submits[0], typeof peer.submits[0]];
    for (const [i, part] of [first, second].entries()) {
      assert.equal(part.esmClass & 0x40, 0x40, 'UDHI set');
      assert.equal(part.dataCoding, 0);
      assert.equal(part.registeredDelivery, 1);
      assert.equal(part.udh.length, 1);
      const ie = part.udh[0]!;
      assert.deepEqual([ie[0], ie[1], ie[3], ie[4]], [0x00, 0x03, 2, i + 1]);
    }
    assert.equal(first.udh[0]![2], second.udh[0]![2], 'one reference for all parts');
    assert.equal(first.text.length, 153);
    assert.equal(first.text + second.text, text);

    // The next long message gets another reference, so a phone never mixes the two.
    await transport.send(message({ text }));
    assert.notEqual(peer.submits[2]!.udh[0]![2], first.udh[0]![2]);
  });

  it('never splits a GSM escape pair or a UTF-16 surrogate pair across parts', async () => {
    const { peer, transport } = await setup();
    const gsm = `${'a'.repeat(152)}€${'b'.repeat(20)}`; // € needs 2 septets; only 1 is left in part 1
    assert.equal((await transport.send(message({ text: gsm }))).ok, true);
    assert.deepEqual(peer.submits.map((s) => s.text), ['a'.repeat(152), `€${'b'.repeat(20)}`]);

    const ucs2 = `${'ж'.repeat(66)}😀${'ж'.repeat(10)}`; // the emoji is 2 code units; only 1 is left in part 1
    assert.equal((await transport.send(message({ text: ucs2 }))).ok, true);
    assert.deepEqual(peer.submits.slice(2).map((s) => [s.dataCoding, s.text]), [
      [8, 'ж'.repeat(66)],
      [8, `😀${'ж'.repeat(10)}`],
    ]);
  });
});

describe('SMPP transport: delivery receipts', () => {
  it('reports a receipt given in TLVs (receipted_message_id, message_state) and acknowledges it', async () => {
    const { peer, transport, receipts } = await setup();
    const result = await transport.send(message());
    assert.ok(result.ok);
    const status = await peer.deliverSm({ source_addr: PHONE, destination_addr: 'ACME', esm_class: 4, receipted_message_id: 'msg-1', message_state: 2 });
    assert.equal(status, 0);
    assert.deepEqual(receipts, [{ transport: 'smpp', providerMessageId: 'msg-1', status: 'delivered', at: 1_700_000_000_000 }]);
  });

  it('reads the Appendix B receipt text when there are no TLVs', async () => {
    const { peer, transport, receipts, log } = await setup();
    await transport.send(message());
    const text = `id:msg-1 sub:001 dlvrd:000 submit date:2401011200 done date:2401011201 stat:UNDELIV err:034 text:Your code is ${PIN}`;
    const status = await peer.deliverSm({ source_addr: PHONE, esm_class: 4, data_coding: 0, short_message: Buffer.from(text, 'ascii') });
    assert.equal(status, 0);
    assert.deepEqual(receipts, [{ transport: 'smpp', providerMessageId: 'msg-1', status: 'undelivered', error: 'UNDELIV err:034', at: 1_700_000_000_000 }]);
    assertNothingSecretLogged(log);
  });

  it('folds the receipts of all parts of a long message into one for the last part id', async () => {
    const { peer, transport, receipts } = await setup();
    const text = 'x'.repeat(200);
    assert.deepEqual(await transport.send(message({ text })), { ok: true, providerMessageId: 'msg-2' });
    await peer.deliverSm({ esm_class: 4, receipted_message_id: 'msg-1', message_state: 2 });
    assert.equal(receipts.length, 0, 'one part delivered is not the message delivered');
    await peer.deliverSm({ esm_class: 4, receipted_message_id: 'msg-2', message_state: 2 });
    assert.deepEqual(receipts.map((r) => [r.providerMessageId, r.status]), [['msg-2', 'delivered']]);

    assert.deepEqual(await transport.send(message({ text })), { ok: true, providerMessageId: 'msg-4' });
    await peer.deliverSm({ esm_class: 4, short_message: Buffer.from('id:msg-3 sub:001 dlvrd:000 submit date:2401011200 done date:2401011201 stat:EXPIRED err:000') });
    await peer.deliverSm({ esm_class: 4, receipted_message_id: 'msg-4', message_state: 2 });
    assert.deepEqual(receipts.slice(1).map((r) => [r.providerMessageId, r.status, r.error]), [['msg-4', 'undelivered', 'EXPIRED']]);
  });

  it('matches receipts with a custom dlr_regex', async () => {
    const regex = encodeURIComponent('ref=(?<id>[^;]+);state=(?<stat>\\w+)(;code=(?<err>\\d+))?');
    const { peer, transport, receipts } = await setup(`dlr_regex=${regex}`);
    await transport.send(message());
    await peer.deliverSm({ esm_class: 4, short_message: Buffer.from('ref=msg-1;state=rejectd;code=11') });
    assert.deepEqual(receipts.map((r) => [r.providerMessageId, r.status, r.error]), [['msg-1', 'undelivered', 'REJECTD err:11']]);
  });

  it('acknowledges malformed receipts and other deliver_sm, logging only the id', async () => {
    const { peer, transport, receipts, log } = await setup();
    await transport.send(message());
    assert.equal(await peer.deliverSm({ esm_class: 4, short_message: Buffer.from(`hello ${PIN}`) }), 0);
    assert.equal(await peer.deliverSm({ esm_class: 4, short_message: Buffer.from(`id:msg-1 stat:WHATEVER text:${PIN}`) }), 0);
    assert.equal(await peer.deliverSm({ esm_class: 0, source_addr: PHONE, short_message: Buffer.from('STOP') }), 0, 'a reply from a phone');
    assert.equal(await peer.deliverSm({ esm_class: 4, receipted_message_id: 'msg-1', message_state: 1 }), 0, 'ENROUTE is not final');
    assert.deepEqual(receipts, []);
    const warnings = log.entries(40).filter((e) => e.msg === 'malformed SMPP delivery receipt acknowledged and ignored');
    assert.equal(warnings.length, 2);
    assert.equal(warnings[1]!.providerMessageId, 'msg-1');
    assertNothingSecretLogged(log);
  });
});

describe('SMPP transport: faults', () => {
  it('fails fast and retryably while the SMSC is down, and delivers once it is back', async () => {
    const probe = await SmscPeer.start();
    const port = probe.port;
    await probe.stop();
    const url = new URL(`smpp://twofa:secret@127.0.0.1:${port}?timeout=3s`);
    const { transport } = openTransport(url);

    const down = await transport.send(message());
    assert.equal(down.ok, false);
    assert.ok(!down.ok && down.retryable, JSON.stringify(down));
    // The refused connection is the failure, not the 3 s timeout running out.
    assert.match(!down.ok ? down.error : '', /ECONNREFUSED/);
    assert.doesNotMatch(!down.ok ? down.error : '', /within/);

    const peer = await startPeer({ port });
    const up = await transport.send(message());
    assert.deepEqual(up, { ok: true, providerMessageId: 'msg-1' });
    assert.equal(peer.submits.length, 1);
  });

  it('gives up on an SMSC that never answers within the configured timeout, as retryable', async () => {
    const { peer, transport } = await setup('timeout=400ms');
    assert.equal((await transport.send(message())).ok, true); // bound
    peer.answer = () => ({ hang: true });
    const result = await transport.send(message());
    assert.ok(!result.ok && result.retryable, JSON.stringify(result));
    assert.match(!result.ok ? result.error : '', /did not answer submit_sm within 0\.4 s/);
  });

  it('bounds a send by the timeout when the SMSC accepts TCP but never answers the bind', async () => {
    // A bare TCP listener that never speaks SMPP.
    const sockets: Socket[] = [];
    const server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const port = (server.address() as AddressInfo).port;
    const { transport } = openTransport(new URL(`smpp://twofa:secret@127.0.0.1:${port}?timeout=300ms`));
    const result = await transport.send(message());
    assert.ok(!result.ok && result.retryable, JSON.stringify(result));
    assert.match(!result.ok ? result.error : '', /no bind within 0\.3 s/);
  });

  it('does not retry a bind refused for bad credentials, and says why', async () => {
    const peer = await startPeer();
    const { transport } = openTransport(peer.dsn('timeout=2s', 'twofa:wrong'));
    const result = await transport.send(message());
    assert.ok(!result.ok && !result.retryable, JSON.stringify(result));
    assert.match(!result.ok ? result.error : '', /ESME_RINVPASWD \(0x0000000E\).*system_id, password/);
    assert.equal(peer.binds.length, 1, 'one bind, not retried');
    assert.equal(peer.submits.length, 0);
  });

  it('maps command_status: throttling and SMSC errors are retryable, a bad address is not', async () => {
    const { peer, transport } = await setup();
    const statuses = [0x58, 0x14, 0x08, 0x0b, 0x0a];
    peer.answer = (_submit, index) => ({ status: statuses[index] });
    const results = [];
    for (let i = 0; i < statuses.length; i++) results.push(await transport.send(message()));
    assert.deepEqual(
      results.map((r) => (r.ok ? 'ok' : [r.retryable, r.error])),
      [
        [true, 'the SMSC refused submit_sm with ESME_RTHROTTLED (0x00000058)'],
        [true, 'the SMSC refused submit_sm with ESME_RMSGQFUL (0x00000014)'],
        [true, 'the SMSC refused submit_sm with ESME_RSYSERR (0x00000008)'],
        [false, 'the SMSC refused submit_sm with ESME_RINVDSTADR (0x0000000B)'],
        [false, 'the SMSC refused submit_sm with ESME_RINVSRCADR (0x0000000A)'],
      ],
    );
  });

  it('stops a long message at the first refused part and says which', async () => {
    const { peer, transport } = await setup();
    peer.answer = (_submit, index) => (index === 1 ? { status: 0x58 } : {});
    const result = await transport.send(message({ text: 'y'.repeat(400) }));
    assert.ok(!result.ok && result.retryable);
    assert.match(!result.ok ? result.error : '', /ESME_RTHROTTLED.*part 2 of 3; 1 already accepted/);
    assert.equal(peer.submits.length, 2, 'part 3 is not sent after part 2 was refused');
  });

  it('fails every in-flight send as retryable when the bind drops mid-window, resubmits none, and recovers', async () => {
    const { peer, transport } = await setup('window=5&timeout=3s');
    assert.equal((await transport.send(message())).ok, true);
    peer.answer = () => ({ hang: true });
    const sends = [1, 2, 3].map(() => transport.send(message()));
    await peer.waitFor(() => peer.submits.length === 4, 2_000, 'three in-flight submits');
    peer.dropConnections();
    const results = await Promise.all(sends);
    for (const result of results) {
      assert.ok(!result.ok && result.retryable, JSON.stringify(result));
      assert.match(!result.ok ? result.error : '', /connection was lost after submit_sm was sent/);
    }

    peer.answer = () => ({});
    const after = await transport.send(message());
    assert.equal(after.ok, true);
    await sleep(200);
    assert.equal(peer.submits.length, 5, 'each PDU reached the SMSC once: no resubmission by the transport');
    assert.equal(peer.binds.filter((b) => b.accepted).length, 2, 'rebound after the drop');
  });

  it('never has more submit_sm outstanding than the window', async () => {
    const { peer, transport } = await setup('window=2&timeout=3s');
    peer.answer = () => ({ delayMs: 60 });
    const results = await Promise.all(Array.from({ length: 7 }, () => transport.send(message())));
    assert.ok(results.every((r) => r.ok));
    assert.equal(peer.submits.length, 7);
    assert.equal(peer.maxInFlight, 2);
  });

  it('unbinds on close, and refuses sends afterwards as retryable', async () => {
    const { peer, transport } = await setup();
    assert.equal((await transport.send(message())).ok, true);
    await transport.close();
    assert.equal(peer.unbinds, 1);
    await peer.waitFor(() => peer.boundSessions === 0, 1_000, 'the connection to close');
    const result = await transport.send(message());
    assert.ok(!result.ok && result.retryable);
  });
});
