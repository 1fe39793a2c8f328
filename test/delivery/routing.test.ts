import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { createNamedTransports, createTransport, DsnError } from '../../src/delivery/dsn.js';
import { Inbox } from '../../src/delivery/log/inbox.js';
import { failoverMemberNames, RoutedTransport, splitRouteMembers } from '../../src/delivery/routing/routed-transport.js';
import type { DeliveryResult, OutgoingMessage, Transport } from '../../src/delivery/transport.js';

const logger = pino({ level: 'silent' });
const message: OutgoingMessage = { channel: 'sms', to: '41793026727', text: 'code 123456', pinId: 'P1', applicationId: 'A', messageId: 'M', accountId: 'X' };

/** A transport that answers from a script and counts its calls (a fake for testing the route above it). */
function scripted(name: string, answers: DeliveryResult[]): Transport & { calls: number } {
  const t = {
    name, calls: 0,
    async send(): Promise<DeliveryResult> {
      const answer = answers[Math.min(t.calls, answers.length - 1)]!;
      t.calls++;
      return answer;
    },
  };
  return t;
}

const ok: DeliveryResult = { ok: true, providerMessageId: 'id-1' };
const down: DeliveryResult = { ok: false, retryable: true, error: 'connection refused' };
const rejected: DeliveryResult = { ok: false, retryable: false, error: 'invalid destination' };

describe('failover and roundrobin routes', () => {
  it('failover delivers through the second transport when the first rejects, naming it', async () => {
    const a = scripted('a', [rejected]);
    const b = scripted('b', [ok]);
    const result = await new RoutedTransport('failover', [a, b], { logger }).send(message);
    assert.deepEqual(result, { ok: true, providerMessageId: 'id-1', transport: 'b' });
  });

  it('is retryable when any member might succeed later, permanent when all refused for good', async () => {
    assert.deepEqual((await new RoutedTransport('failover', [scripted('a', [down]), scripted('b', [rejected])], { logger }).send(message)), { ok: false, retryable: true, error: 'a: connection refused; b: invalid destination' });
    const permanent = await new RoutedTransport('failover', [scripted('a', [rejected]), scripted('b', [rejected])], { logger }).send(message);
    assert.equal(!permanent.ok && permanent.retryable, false);
  });

  it('skips the members a message lists in skipTransports (after an undelivered receipt), also inside nested routes', async () => {
    const a = scripted('a', [ok]);
    const b = scripted('b', [ok]);
    const c = scripted('c', [ok]);
    const route = new RoutedTransport('failover', [new RoutedTransport('roundrobin', [a, b], { logger }), c], { logger });
    assert.deepEqual(failoverMemberNames(route), ['a', 'b', 'c']);
    assert.equal(failoverMemberNames(new RoutedTransport('roundrobin', [a, c], { logger })), undefined, 'roundrobin does not fail over on receipts');
    assert.equal(failoverMemberNames(a), undefined);
    assert.equal((await route.send({ ...message, skipTransports: ['a'] })).ok && b.calls, 1);
    assert.deepEqual(await route.send({ ...message, skipTransports: ['a', 'b'] }), { ok: true, providerMessageId: 'id-1', transport: 'c' });
    assert.equal(a.calls, 0);
    const none = await route.send({ ...message, skipTransports: ['a', 'b', 'c'] });
    assert.equal(none.ok, false);
    assert.equal(!none.ok && none.retryable, false, 'nothing left to try: failed, not retried');
  });

  it('skips a transport that keeps failing for a cool-down, then tries it again', async () => {
    let now = 1_000_000;
    const a = scripted('a', [down]);
    const b = scripted('b', [ok]);
    const route = new RoutedTransport('failover', [a, b], { logger, clock: () => now, failureThreshold: 2, cooldownMs: 10_000 });
    await route.send(message);
    await route.send(message);
    assert.equal(a.calls, 2);
    await route.send(message);
    assert.equal(a.calls, 2, 'tripped: skipped while cooling down');
    now += 10_001;
    await route.send(message);
    assert.equal(a.calls, 3, 'tried again after the cool-down');
  });

  it('roundrobin spreads messages over its members', async () => {
    const a = scripted('a', [ok]);
    const b = scripted('b', [ok]);
    const route = new RoutedTransport('roundrobin', [a, b], { logger });
    for (let i = 0; i < 6; i++) await route.send(message);
    assert.deepEqual([a.calls, b.calls], [3, 3]);
  });

  it('splits nested member lists', () => {
    assert.deepEqual(splitRouteMembers('a://x  roundrobin(b://y c://z) d://w'), ['a://x', 'roundrobin(b://y c://z)', 'd://w']);
    assert.throws(() => splitRouteMembers('a://x (b'), /unbalanced/);
  });

  it('builds routes from DSNs and refuses malformed ones', async () => {
    const deps = { inbox: new Inbox(), logger };
    const route = await createTransport('TWOFA_SMS_DSN', 'failover(log:// roundrobin(log:// log://))', deps);
    assert.equal(route?.name, 'failover(log roundrobin(log log))');
    await assert.rejects(() => createTransport('TWOFA_SMS_DSN', 'failover(log://)', deps), (e: unknown) => e instanceof DsnError && /TWOFA_SMS_DSN: failover\(\.\.\.\) needs at least two/.test(e.message));
    await assert.rejects(() => createTransport('TWOFA_SMS_DSN', 'failover(log:// none://)', deps), /none:\/\/ cannot be part/);
    await assert.rejects(() => createTransport('TWOFA_SMS_DSN', 'failover(log:// (log://)', deps), /unbalanced/);
  });

  it('fails over between two real webhook receivers when the first refuses', async () => {
    const hits: string[] = [];
    const receiver = (name: string, status: number) => http.createServer((req, res) => {
      req.resume();
      req.on('end', () => { hits.push(name); res.writeHead(status).end(); });
    });
    const first = receiver('first', 400);
    const second = receiver('second', 204);
    await Promise.all([first, second].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const dsn = (s: http.Server) => `webhook+http://127.0.0.1:${(s.address() as AddressInfo).port}/sms?secret=${secret}`;
    try {
      const route = (await createTransport('TWOFA_SMS_DSN', `failover(${dsn(first)} ${dsn(second)})`, { inbox: new Inbox(), logger }))!;
      const result = await route.send(message);
      assert.equal(result.ok, true);
      assert.deepEqual(hits, ['first', 'second']);
      assert.equal(result.ok && result.transport, 'webhook');
    } finally {
      first.close();
      second.close();
    }
  });
});

describe('routes and recipients', () => {
  it('does not fail over or trip the breaker when the recipient is busy or does not answer', async () => {
    const noAnswer: DeliveryResult = { ok: false, retryable: true, error: 'no-answer', byRecipient: true };
    const a = scripted('a', [noAnswer]);
    const b = scripted('b', [ok]);
    const route = new RoutedTransport('failover', [a, b], { logger, failureThreshold: 1 });
    assert.deepEqual(await route.send(message), noAnswer);
    assert.deepEqual(await route.send(message), noAnswer);
    assert.equal(b.calls, 0, 'the person is not called again at once through another trunk');
    assert.equal(a.calls, 2, 'the breaker did not trip');
  });
});

describe('named transports (TWOFA_TRANSPORT_<NAME>)', () => {
  it('are made once and shared by the channel DSNs that name them, alone or in a route', async () => {
    const named = await createNamedTransports({ smsc: 'log://', backup: 'log://' }, { inbox: new Inbox(), logger });
    assert.deepEqual([...named.keys()], ['smsc', 'backup']);
    assert.ok(named.get('smsc')?.pacer, 'each with its own pacer');
    const alone = await createTransport('TWOFA_SMS_DSN', 'smsc', { inbox: new Inbox(), logger, named });
    assert.equal(alone, named.get('smsc'), 'the same instance: one connection, one window');
    const route = await createTransport('TWOFA_VOICE_DSN', 'failover(backup smsc)', { inbox: new Inbox(), logger, named });
    assert.ok(route instanceof RoutedTransport);
    assert.deepEqual(route.transports, [named.get('backup'), named.get('smsc')]);
  });

  it('refuses a name that is not configured, naming those that are', async () => {
    const named = await createNamedTransports({ smsc: 'log://' }, { inbox: new Inbox(), logger });
    await assert.rejects(createTransport('TWOFA_SMS_DSN', 'failover(smsc infobip)', { inbox: new Inbox(), logger, named }),
      (err: Error) => err instanceof DsnError && /TWOFA_SMS_DSN: "infobip" is neither a DSN nor a named transport \(named: smsc\)/.test(err.message));
    await assert.rejects(createNamedTransports({ off: 'none://' }, { inbox: new Inbox(), logger }), /TWOFA_TRANSPORT_OFF: none:\/\/ is not a transport/);
    await assert.rejects(createNamedTransports({ smsc: 'smpp://nohost' }, { inbox: new Inbox(), logger }), /TWOFA_TRANSPORT_SMSC: the SMPP DSN needs the system_id/);
  });
});
