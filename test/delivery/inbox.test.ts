import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { Inbox, type InboxMessage } from '../../src/delivery/log/inbox.js';
import { LogTransport } from '../../src/delivery/log/log-transport.js';
import type { OutgoingMessage } from '../../src/delivery/transport.js';

function message(overrides: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return {
    channel: 'sms',
    to: '41793026727',
    text: 'Your code is 1234',
    pinId: 'PIN1',
    applicationId: 'APP1',
    messageId: 'MSG1',
    accountId: 'acct-a',
    ...overrides,
  };
}

describe('Inbox', () => {
  it('stores a message with an id and the time it arrived', () => {
    const inbox = new Inbox({ clock: () => 1_700_000_000_000 });
    const stored = inbox.add(message({ from: 'ACME', deliveryId: 'outbox-1' }));
    assert.match(stored.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(stored, {
      id: stored.id,
      channel: 'sms',
      to: '41793026727',
      from: 'ACME',
      text: 'Your code is 1234',
      pinId: 'PIN1',
      applicationId: 'APP1',
      messageId: 'MSG1',
      accountId: 'acct-a',
      receivedAt: 1_700_000_000_000,
    });
    assert.ok(Object.isFrozen(stored));
    assert.equal(inbox.get('acct-a', stored.id), stored);
    assert.equal(inbox.get('acct-b', stored.id), undefined);
  });

  it('lists newest first with a default limit of 50 and a maximum of 1000', () => {
    const inbox = new Inbox({ capacityPerAccount: 2000 });
    for (let i = 0; i < 1200; i += 1) inbox.add(message({ pinId: `P${i}` }));
    const latest = inbox.list('acct-a');
    assert.equal(latest.length, 50);
    assert.equal(latest[0]?.pinId, 'P1199');
    assert.equal(latest[49]?.pinId, 'P1150');
    assert.equal(inbox.list('acct-a', { limit: 3 }).map((m) => m.pinId).join(), 'P1199,P1198,P1197');
    assert.equal(inbox.list('acct-a', { limit: 5000 }).length, 1000);
    assert.equal(inbox.list('acct-a', { limit: 0 }).length, 1);
  });

  it('keeps at most its capacity per account, dropping the oldest', () => {
    const inbox = new Inbox({ capacityPerAccount: 3 });
    for (let i = 0; i < 5; i += 1) inbox.add(message({ pinId: `P${i}` }));
    inbox.add(message({ pinId: 'B0', accountId: 'acct-b' }));
    assert.deepEqual(inbox.list('acct-a').map((m) => m.pinId), ['P4', 'P3', 'P2']);
    assert.deepEqual(inbox.list('acct-b').map((m) => m.pinId), ['B0']);
  });

  it('defaults to 1000 messages per account', () => {
    const inbox = new Inbox();
    for (let i = 0; i < 1005; i += 1) inbox.add(message({ pinId: `P${i}` }));
    const all = inbox.list('acct-a', { limit: 1000 });
    assert.equal(all.length, 1000);
    assert.equal(all.at(-1)?.pinId, 'P5');
  });

  it('filters by destination and channel', () => {
    const inbox = new Inbox();
    inbox.add(message({ to: '41793026727', pinId: 'A' }));
    inbox.add(message({ to: 'jane@example.com', channel: 'email', pinId: 'B', text: undefined, subject: 'Code' }));
    inbox.add(message({ to: '41793026727', channel: 'voice', pinId: 'C' }));
    assert.deepEqual(inbox.list('acct-a', { to: '41793026727' }).map((m) => m.pinId), ['C', 'A']);
    assert.deepEqual(inbox.list('acct-a', { to: 'jane@example.com' }).map((m) => m.pinId), ['B']);
    assert.deepEqual(inbox.list('acct-a', { to: '41793026727', channel: 'sms' }).map((m) => m.pinId), ['A']);
    assert.deepEqual(inbox.list('acct-a', { to: '000' }), []);
  });

  it('keeps accounts apart', () => {
    const inbox = new Inbox();
    inbox.add(message({ accountId: 'acct-a', pinId: 'A' }));
    inbox.add(message({ accountId: 'acct-b', pinId: 'B' }));
    assert.deepEqual(inbox.list('acct-a').map((m) => m.pinId), ['A']);
    assert.deepEqual(inbox.list('acct-b').map((m) => m.pinId), ['B']);
    assert.deepEqual(inbox.list('acct-c'), []);
  });

  it('notifies subscribers until they unsubscribe, and survives a throwing one', () => {
    const inbox = new Inbox({ logger: pino({ level: 'silent' }) });
    const seen: InboxMessage[] = [];
    const unsubscribe = inbox.subscribe((m) => seen.push(m));
    inbox.subscribe(() => {
      throw new Error('stream closed');
    });
    const first = inbox.add(message({ pinId: 'A' }));
    unsubscribe();
    inbox.add(message({ pinId: 'B' }));
    assert.deepEqual(seen, [first]);
    assert.equal(inbox.list('acct-a').length, 2);
  });

  it('refuses a capacity that is not a positive integer', () => {
    assert.throws(() => new Inbox({ capacityPerAccount: 0 }), RangeError);
  });
});

describe('LogTransport', () => {
  it('puts the message in the inbox and logs a masked line without the text', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, { write: (line: string) => lines.push(line) });
    const inbox = new Inbox();
    const transport = new LogTransport(inbox, logger);
    const result = await transport.send(message({ text: 'Your code is 918273' }));
    const [stored] = inbox.list('acct-a');
    assert.deepEqual(result, { ok: true, providerMessageId: stored?.id });
    assert.equal(stored?.text, 'Your code is 918273');

    assert.equal(lines.length, 1);
    const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
    assert.equal(line.msg, 'message delivered to local inbox');
    assert.equal(line.channel, 'sms');
    assert.equal(line.pinId, 'PIN1');
    assert.notEqual(line.to, '41793026727');
    assert.match(String(line.to), /\*/);
    assert.ok(!lines[0]?.includes('918273'));
    assert.ok(!lines[0]?.includes('41793026727'));
  });
});
