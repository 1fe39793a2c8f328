// The SMTP transport against real SMTP servers on loopback (smtp-server): what arrives is parsed
// with mailparser, and every fault the transport classifies is produced by a real peer.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser, type ParsedMail } from 'mailparser';
import { pino } from 'pino';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { createSmtpTransport, smtpRequireTls } from '../../../src/delivery/smtp/smtp-transport.js';
import type { OutgoingMessage, Transport } from '../../../src/delivery/transport.js';

const USER = 'mailer';
const PASSWORD = 'p@ss:w/rd';
const PIN = '482913';

interface Received {
  mail: ParsedMail;
  mailFrom: string;
  rcptTo: string[];
  secure: boolean;
  user: string | undefined;
}

interface Peer {
  server: SMTPServer;
  port: number;
  received: Received[];
}

function message(overrides: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return {
    channel: 'email',
    to: 'john.smith@example.com',
    from: 'Acme Security <security@acme.example>',
    subject: `Your code ${PIN}`,
    text: `Your verification code is ${PIN}.`,
    html: `<p>Your verification code is <b>${PIN}</b>.</p>`,
    pinId: '9C817C6F8AF3D48F9FE553282AFA2B67',
    applicationId: 'APP1',
    messageId: 'MSG1',
    accountId: 'acct-1',
    deliveryId: '42',
    ...overrides,
  };
}

const logLines: string[] = [];
const logger = pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) });

async function startPeer(options: Partial<SMTPServerOptions>): Promise<Peer> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) callback(null, { user: auth.username });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('nobody')) {
        callback(Object.assign(new Error(`Mailbox <${address.address}> unavailable`), { responseCode: 550 }));
      } else if (address.address.startsWith('greylisted')) {
        callback(Object.assign(new Error(`Greylisted <${address.address}>, try again later`), { responseCode: 451 }));
      } else {
        callback();
      }
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push({
            mail,
            mailFrom: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
            rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            secure: session.secure,
            user: typeof session.user === 'string' ? session.user : undefined,
          });
          callback();
        })
        .catch((err: Error) => callback(err));
    },
    ...options,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = ((server as unknown as { server: NetServer }).server.address() as AddressInfo).port;
  return { server, port, received };
}

async function stopPeer(peer: Peer): Promise<void> {
  await new Promise<void>((resolve) => peer.server.close(() => resolve()));
}

function dsn(scheme: 'smtp' | 'smtps', port: number, query = ''): URL {
  return new URL(`${scheme}://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}${query}`);
}

function transportFor(url: URL): Transport {
  return createSmtpTransport('TWOFA_EMAIL_DSN', url, { logger });
}

describe('SMTP transport against smtp-server (no TLS offered)', () => {
  let peer: Peer;
  const opened: Transport[] = [];

  before(async () => {
    peer = await startPeer({});
  });
  after(async () => {
    await Promise.all(opened.map((t) => t.close?.()));
    await stopPeer(peer);
  });
  beforeEach(() => {
    peer.received.length = 0;
  });

  function open(query = ''): Transport {
    const transport = transportFor(dsn('smtp', peer.port, query));
    opened.push(transport);
    return transport;
  }

  it('delivers a multipart text + HTML message whose Message-ID is the provider message id', async () => {
    const transport = open();
    const result = await transport.send(message());
    assert.equal(result.ok, true);
    assert.ok(result.ok);
    assert.equal(peer.received.length, 1);
    const got = peer.received[0] as Received;
    assert.equal(got.user, USER);
    assert.equal(got.secure, false);
    assert.equal(got.mailFrom, 'security@acme.example');
    assert.deepEqual(got.rcptTo, ['john.smith@example.com']);
    assert.equal(got.mail.subject, `Your code ${PIN}`);
    assert.deepEqual(got.mail.from?.value, [{ address: 'security@acme.example', name: 'Acme Security' }]);
    const to = Array.isArray(got.mail.to) ? got.mail.to[0] : got.mail.to;
    assert.equal(to?.value[0]?.address, 'john.smith@example.com');
    assert.match(got.mail.text ?? '', new RegExp(`Your verification code is ${PIN}`));
    assert.match(typeof got.mail.html === 'string' ? got.mail.html : '', new RegExp(`<b>${PIN}</b>`));
    assert.equal(got.mail.messageId, result.providerMessageId);
    assert.match(result.providerMessageId ?? '', /^<42\.[0-9a-f]{16}@acme\.example>$/);
    assert.ok(!(result.providerMessageId ?? '').includes(message().pinId), 'the pinId stays out of the headers');
    assert.equal(got.mail.headers.get('auto-submitted'), 'auto-generated');
  });

  it('keeps the Message-ID for every attempt at one outbox row, and changes it across rows', async () => {
    const transport = open();
    const first = await transport.send(message());
    const again = await transport.send(message());
    const other = await transport.send(message({ deliveryId: '43' }));
    assert.ok(first.ok && again.ok && other.ok);
    assert.equal(first.providerMessageId, again.providerMessageId);
    assert.notEqual(first.providerMessageId, other.providerMessageId);
  });

  it('sends only the parts it is given', async () => {
    const transport = open();
    const textOnly = await transport.send(message({ html: undefined }));
    const htmlOnly = await transport.send(message({ text: undefined }));
    assert.ok(textOnly.ok && htmlOnly.ok);
    const [a, b] = peer.received as [Received, Received];
    assert.match(a.mail.text ?? '', new RegExp(PIN));
    assert.equal(a.mail.html, false);
    assert.match(typeof b.mail.html === 'string' ? b.mail.html : '', new RegExp(PIN));
    assert.equal(b.mail.attachments.length, 0);
  });

  it('falls back to the DSN sender, and refuses for good when there is none', async () => {
    const withDefault = open('?from=' + encodeURIComponent('"Acme, Inc." <noreply@acme.example>'));
    const result = await withDefault.send(message({ from: undefined }));
    assert.ok(result.ok);
    const got = peer.received[0] as Received;
    assert.deepEqual(got.mail.from?.value, [{ address: 'noreply@acme.example', name: 'Acme, Inc.' }]);

    const withoutDefault = open();
    const refused = await withoutDefault.send(message({ from: undefined }));
    assert.equal(refused.ok, false);
    assert.ok(!refused.ok);
    assert.equal(refused.retryable, false);
    assert.match(refused.error, /no sender/);
    assert.equal(peer.received.length, 1);
  });

  it('refuses a sender that is not an address, and non-email channels, without calling the server', async () => {
    const transport = open();
    const badFrom = await transport.send(message({ from: 'Evil\r\nBcc: x@example.com <a@b.example>' }));
    assert.ok(!badFrom.ok);
    assert.equal(badFrom.retryable, false);
    const sms = await transport.send(message({ channel: 'sms', to: '41793026727' }));
    assert.ok(!sms.ok);
    assert.equal(sms.retryable, false);
    assert.equal(peer.received.length, 0);
  });

  it('treats 550 on RCPT as permanent, with the reply code and no full address or PIN', async () => {
    const transport = open();
    const result = await transport.send(message({ to: 'nobody.here@example.com' }));
    assert.ok(!result.ok);
    assert.equal(result.retryable, false);
    assert.match(result.error, /^SMTP server answered 550 to RCPT/);
    assert.ok(!result.error.includes('nobody.here@'), result.error);
    assert.match(result.error, /n\*+@example\.com/);
    assert.ok(!result.error.includes(PIN));
  });

  it('treats 451 on RCPT as temporary', async () => {
    const transport = open();
    const result = await transport.send(message({ to: 'greylisted@example.com' }));
    assert.ok(!result.ok);
    assert.equal(result.retryable, true);
    assert.match(result.error, /451/);
  });

  it('treats a refused login (535) as permanent: only new credentials help', async () => {
    const transport = transportFor(new URL(`smtp://${USER}:wrong@127.0.0.1:${peer.port}`));
    opened.push(transport);
    const result = await transport.send(message());
    assert.ok(!result.ok);
    assert.equal(result.retryable, false);
    assert.match(result.error, /535/);
    assert.ok(!result.error.includes('wrong'));
  });

  it('refuses for good when require_tls=true and the server offers no STARTTLS', async () => {
    const transport = open('?require_tls=true');
    const result = await transport.send(message());
    assert.ok(!result.ok);
    assert.equal(result.retryable, false);
    assert.match(result.error, /TLS/);
    assert.equal(peer.received.length, 0);
  });

  it('carries concurrent sends over its pool', async () => {
    const transport = open('?max_connections=2');
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => transport.send(message({ deliveryId: `p${n}` }))));
    assert.ok(results.every((r) => r.ok));
    assert.equal(peer.received.length, 5);
  });

  it('works without a pool as well', async () => {
    const transport = open('?pool=false');
    const result = await transport.send(message());
    assert.ok(result.ok);
  });
});

describe('SMTP transport over TLS (self-signed certificate made for the test)', () => {
  let dir: string;
  let key: Buffer;
  let cert: Buffer;
  let starttls: Peer;
  let implicit: Peer;
  const opened: Transport[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'twofa-smtp-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    key = readFileSync(path.join(dir, 'key.pem'));
    cert = readFileSync(path.join(dir, 'cert.pem'));
    starttls = await startPeer({ disabledCommands: [], key, cert });
    implicit = await startPeer({ disabledCommands: [], secure: true, key, cert });
  });
  after(async () => {
    await Promise.all(opened.map((t) => t.close?.()));
    await stopPeer(starttls);
    await stopPeer(implicit);
    rmSync(dir, { recursive: true, force: true });
  });

  function open(url: URL): Transport {
    const transport = transportFor(url);
    opened.push(transport);
    return transport;
  }

  it('upgrades with STARTTLS when the server offers it', async () => {
    const transport = open(dsn('smtp', starttls.port, '?tls_reject_unauthorized=false'));
    const result = await transport.send(message());
    assert.ok(result.ok);
    assert.equal(starttls.received.at(-1)?.secure, true);
  });

  it('with require_tls=true, delivers over the upgraded connection', async () => {
    const transport = open(dsn('smtp', starttls.port, '?require_tls=true&tls_reject_unauthorized=false'));
    const result = await transport.send(message());
    assert.ok(result.ok);
    assert.equal(starttls.received.at(-1)?.secure, true);
  });

  it('refuses for good a certificate it cannot verify (the default)', async () => {
    const before = starttls.received.length;
    const transport = open(dsn('smtp', starttls.port));
    const result = await transport.send(message());
    assert.ok(!result.ok);
    assert.equal(result.retryable, false);
    assert.match(result.error, /TLS/);
    assert.equal(starttls.received.length, before);
  });

  it('speaks TLS from the first byte with smtps://', async () => {
    const transport = open(dsn('smtps', implicit.port, '?tls_reject_unauthorized=false'));
    const result = await transport.send(message());
    assert.ok(result.ok);
    const got = implicit.received.at(-1) as Received;
    assert.equal(got.secure, true);
    assert.match(got.mail.text ?? '', new RegExp(PIN));
    assert.equal(got.mail.messageId, result.providerMessageId);
  });
});

describe('SMTP transport when the server is not there or does not talk', () => {
  it('retries when nothing listens on the port', async () => {
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const transport = transportFor(dsn('smtp', port, '?timeout=2s'));
    const started = Date.now();
    const result = await transport.send(message());
    await transport.close?.();
    assert.ok(!result.ok);
    assert.equal(result.retryable, true);
    assert.match(result.error, /ECONNREFUSED/);
    assert.ok(Date.now() - started < 2000);
  });

  // The test's timeout is a safety net: without the transport's own, the send would wait forever.
  it('retries when the server accepts the connection but never greets, within the timeout', { timeout: 30_000 }, async () => {
    const sockets: Socket[] = [];
    const mute = createNetServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const port = (mute.address() as AddressInfo).port;

    const transport = transportFor(dsn('smtp', port, '?timeout=500ms'));
    const result = await transport.send(message());
    await transport.close?.();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => mute.close(() => resolve()));

    assert.ok(!result.ok);
    assert.equal(result.retryable, true);
    assert.match(result.error, /greeting/);
  });
});

describe('createSmtpTransport DSN checks', () => {
  const bad: Array<[string, RegExp]> = [
    ['smtp://127.0.0.1:2525?from=not-an-address', /from/],
    ['smtp://127.0.0.1:2525?frmo=noreply@example.com', /unknown DSN parameter "frmo"/],
    ['smtp://127.0.0.1:2525?max_connections=0', /max_connections/],
    ['smtp://127.0.0.1:2525?timeout=forever', /timeout/],
    ['smtp://127.0.0.1:2525?require_tls=maybe', /require_tls/],
    ['smtp://:secret@127.0.0.1:2525', /password but no user/],
    ['smtp://127.0.0.1:2525/path', /no path/],
  ];
  for (const [text, pattern] of bad) {
    it(`refuses ${text.replace(/secret/, '***')}`, () => {
      assert.throws(() => transportFor(new URL(text)), (err: Error) => {
        assert.match(err.message, /^TWOFA_EMAIL_DSN: /);
        assert.match(err.message, pattern);
        assert.ok(!err.message.includes('secret'));
        return true;
      });
    });
  }

  it('requires STARTTLS by default for every host but loopback, and keeps require_tls=false available', () => {
    // A man in the middle strips the STARTTLS offer from a remote server's EHLO reply.
    for (const host of ['mail.example.com', '203.0.113.7', '10.0.0.5', '2001:db8::25']) {
      assert.equal(smtpRequireTls('TWOFA_EMAIL_DSN', host, undefined), true, host);
      assert.equal(smtpRequireTls('TWOFA_EMAIL_DSN', host, 'false'), false, host);
      assert.equal(smtpRequireTls('TWOFA_EMAIL_DSN', host, 'true'), true, host);
    }
    for (const host of ['127.0.0.1', '::1', 'localhost']) {
      assert.equal(smtpRequireTls('TWOFA_EMAIL_DSN', host, undefined), false, host);
      assert.equal(smtpRequireTls('TWOFA_EMAIL_DSN', host, 'true'), true, host);
    }
    assert.throws(() => smtpRequireTls('TWOFA_EMAIL_DSN', 'mail.example.com', 'maybe'), /TWOFA_EMAIL_DSN: DSN parameter require_tls must be true or false/);
  });

  it('never logs the message or the credentials', () => {
    const joined = logLines.join('\n');
    assert.ok(!joined.includes(PIN));
    assert.ok(!joined.includes(PASSWORD));
    assert.ok(!joined.includes('john.smith@example.com'));
  });
});
