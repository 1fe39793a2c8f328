// The bind itself against a real SMSC on loopback: keep-alive, reconnects, what happens to queued and
// written submits when the link goes away, TLS.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { SmppSession, SmppSessionError, type SmppSessionOptions, type SubmitSm } from '../../../src/delivery/smpp/smpp-session.js';
import { createSmppTransport } from '../../../src/delivery/smpp/smpp-transport.js';
import type { DeliveryReceipt } from '../../../src/delivery/transport.js';
import { captureLogger } from './capture-logger.js';
import { SmscPeer } from './smsc-peer.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startPeer(options: Parameters<typeof SmscPeer.start>[0] = {}): Promise<SmscPeer> {
  const peer = await SmscPeer.start(options);
  cleanups.push(() => peer.stop());
  return peer;
}

function openSession(peer: SmscPeer, options: Partial<SmppSessionOptions> = {}): SmppSession {
  const session = new SmppSession({
    host: '127.0.0.1',
    port: peer.port,
    systemId: 'twofa',
    password: 'secret',
    logger: captureLogger().logger,
    responseTimeoutMs: 1_000,
    reconnectMinMs: 50,
    reconnectMaxMs: 400,
    ...options,
  });
  cleanups.push(() => session.close());
  return session;
}

const pdu: SubmitSm = {
  sourceAddrTon: 5,
  sourceAddrNpi: 0,
  sourceAddr: 'ACME',
  destAddrTon: 1,
  destAddrNpi: 1,
  destinationAddr: '41793026727',
  esmClass: 0,
  registeredDelivery: 1,
  dataCoding: 0,
  shortMessage: Buffer.from('hello'),
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SMPP session', () => {
  it('connects lazily on the first submit and resolves with the SMSC answer', async () => {
    const peer = await startPeer();
    const session = openSession(peer);
    assert.equal(session.state, 'idle');
    assert.deepEqual(await session.submit(pdu), { commandStatus: 0, messageId: 'msg-1' });
    assert.equal(session.state, 'bound');
    peer.answer = () => ({ status: 0x0b });
    assert.deepEqual(await session.submit(pdu), { commandStatus: 0x0b, messageId: '' });
  });

  it('sends enquire_link while idle and keeps the bind', async () => {
    const peer = await startPeer();
    const session = openSession(peer, { enquireLinkIntervalMs: 100 });
    session.start();
    await peer.waitFor(() => peer.enquireLinks >= 3, 2_000, 'three enquire_link');
    assert.equal(session.state, 'bound');
    assert.equal(peer.binds.length, 1);
  });

  it('drops and rebinds when enquire_link goes unanswered', async () => {
    const peer = await startPeer();
    peer.answerEnquireLink = false;
    const session = openSession(peer, { enquireLinkIntervalMs: 100, responseTimeoutMs: 200 });
    session.start();
    await peer.waitFor(() => peer.binds.length >= 2, 3_000, 'a second bind');
    peer.answerEnquireLink = true;
    assert.deepEqual(await session.submit(pdu), { commandStatus: 0, messageId: 'msg-1' });
  });

  it('rebinds after the SMSC unbinds', async () => {
    const peer = await startPeer();
    const session = openSession(peer);
    await session.submit(pdu);
    await peer.unbind();
    await peer.waitFor(() => peer.binds.length === 2 && peer.boundSessions === 1, 3_000, 'a new bind');
    assert.equal((await session.submit(pdu)).commandStatus, 0);
  });

  it('answers the SMSC\'s enquire_link', async () => {
    const peer = await startPeer();
    const session = openSession(peer);
    await session.submit(pdu);
    assert.equal(await peer.enquireLink(), 0);
  });

  it('treats garbage from the SMSC as a broken link: the written submit fails, the session rebinds', async () => {
    const peer = await startPeer();
    const session = openSession(peer, { responseTimeoutMs: 3_000 });
    await session.submit(pdu);
    peer.answer = () => ({ hang: true });
    const written = session.submit(pdu);
    await peer.waitFor(() => peer.submits.length === 2, 1_000, 'the second submit');
    // A command_length far beyond any PDU: no codec can frame what follows.
    peer.writeRaw(Buffer.from('ffffffff0000000400000000000000016761726261676521', 'hex'));
    await assert.rejects(written, (err: unknown) => err instanceof SmppSessionError && err.reason === 'connection-lost' && err.retryable);
    peer.answer = () => ({});
    assert.equal((await session.submit(pdu)).commandStatus, 0);
    assert.equal(peer.binds.length, 2);
  });

  it('fails a written submit when the link drops but keeps a queued one for the next bind', async () => {
    const peer = await startPeer();
    const session = openSession(peer, { window: 1, responseTimeoutMs: 3_000 });
    peer.answer = (_submit, index) => (index === 0 ? { hang: true } : {});
    const written = session.submit(pdu);
    const queued = session.submit(pdu);
    await peer.waitFor(() => peer.submits.length === 1, 2_000, 'the first submit');
    await sleep(50);
    assert.equal(peer.submits.length, 1, 'the window holds the second submit back');
    peer.dropConnections();

    await assert.rejects(written, (err: unknown) => err instanceof SmppSessionError && err.reason === 'connection-lost' && err.written && err.retryable);
    assert.deepEqual(await queued, { commandStatus: 0, messageId: 'msg-1' });
    assert.equal(peer.submits.length, 2, 'the lost submit was not written again');
    assert.equal(peer.submits[1]!.bindIndex, 1, 'the queued submit went out on the new bind');
  });

  it('times out a submit queued behind a full window', async () => {
    const peer = await startPeer();
    const session = openSession(peer, { window: 1 });
    peer.answer = () => ({ delayMs: 400 });
    const first = session.submit(pdu, { timeoutMs: 1_000 });
    const second = session.submit(pdu, { timeoutMs: 150 });
    await assert.rejects(second, (err: unknown) => err instanceof SmppSessionError && err.reason === 'timeout' && !err.written && /submit window/.test(err.message));
    assert.equal((await first).commandStatus, 0);
    await sleep(50);
    assert.equal(peer.submits.length, 1, 'the timed-out submit never went out');
  });

  it('backs off between failed attempts and reconnects when the SMSC comes back', async () => {
    const probe = await SmscPeer.start();
    const port = probe.port;
    await probe.stop();
    const log = captureLogger();
    const session = new SmppSession({ host: '127.0.0.1', port, systemId: 'twofa', password: 'secret', logger: log.logger, reconnectMinMs: 40, reconnectMaxMs: 200 });
    cleanups.push(() => session.close());
    session.start();
    await sleep(600);
    const delays = log.entries(40).map((e) => Number(e.retryInMs));
    assert.ok(delays.length >= 3 && delays.length <= 12, `attempts: ${delays.length}`);
    assert.ok(delays.every((d) => d >= 20 && d <= 200), `delays ${delays.join(',')}`);
    assert.ok(Math.max(...delays) >= 100, `the delay grows: ${delays.join(',')}`);

    const peer = await startPeer({ port });
    await peer.waitFor(() => session.state === 'bound', 1_000, 'the background reconnect');
  });

  it('waits for written submits before unbinding on close', async () => {
    const peer = await startPeer();
    const session = openSession(peer);
    peer.answer = () => ({ delayMs: 150 });
    await session.submit(pdu);
    const pending = session.submit(pdu);
    await peer.waitFor(() => peer.submits.length === 2, 1_000, 'the second submit');
    await session.close();
    assert.equal((await pending).commandStatus, 0);
    assert.equal(peer.unbinds, 1);
    assert.equal(session.state, 'closed');
  });
});

describe('SMPP over TLS (smpps://)', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function makeCertificate(): { key: string; cert: string } {
    dir = mkdtempSync(path.join(tmpdir(), 'smpp-tls-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=smsc.test',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { key: readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  }

  let hasOpenssl = true;
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    hasOpenssl = false;
  }

  it('delivers and receives receipts over TLS, and refuses an SMSC certificate it cannot verify', { skip: !hasOpenssl && 'openssl not installed' }, async () => {
    const tls = makeCertificate();
    const peer = await startPeer({ tls });
    const receipts: DeliveryReceipt[] = [];
    const transport = createSmppTransport('TWOFA_SMS_DSN', peer.dsn('timeout=2s'), {
      logger: captureLogger().logger,
      onReceipt: (r) => receipts.push(r),
      tls: { ca: tls.cert },
    });
    cleanups.push(() => transport.close?.() ?? Promise.resolve());
    assert.equal(peer.dsn().protocol, 'smpps:');
    const result = await transport.send({ channel: 'sms', to: '41793026727', from: 'ACME', text: 'Code 123456', pinId: 'P', applicationId: 'A', messageId: 'M', accountId: 'C' });
    assert.deepEqual(result, { ok: true, providerMessageId: 'msg-1' });
    assert.equal(peer.submits[0]!.text, 'Code 123456');
    await peer.deliverSm({ esm_class: 4, receipted_message_id: 'msg-1', message_state: 2 });
    assert.deepEqual(receipts.map((r) => r.status), ['delivered']);

    const untrusting = createSmppTransport('TWOFA_SMS_DSN', peer.dsn('timeout=2s'), { logger: captureLogger().logger, onReceipt: () => undefined });
    cleanups.push(() => untrusting.close?.() ?? Promise.resolve());
    const refused = await untrusting.send({ channel: 'sms', to: '41793026727', text: 'x', pinId: 'P', applicationId: 'A', messageId: 'M', accountId: 'C' });
    assert.ok(!refused.ok && refused.retryable, JSON.stringify(refused));
    assert.match(!refused.ok ? refused.error : '', /certificate/i);
  });
});
