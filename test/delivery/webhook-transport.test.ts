import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { OutgoingMessage } from '../../src/delivery/transport.js';
import { verifyWebhookSignature, parseWebhookSecret } from '../../src/delivery/webhook/webhook-signature.js';
import { WebhookTransport } from '../../src/delivery/webhook/webhook-transport.js';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const key = randomBytes(32);
const secret = `whsec_${key.toString('base64')}`;

const message: OutgoingMessage = {
  channel: 'sms',
  to: '41793026727',
  from: 'ACME',
  text: 'Your code is 123456',
  pinId: '9C817C6F8AF3D48F9FE553282AFA2B67',
  applicationId: 'APP1',
  messageId: 'MSG1',
  accountId: 'acct-1',
};

describe('WebhookTransport against a local HTTP server', () => {
  let server: Server;
  let baseUrl: string;
  const requests: Recorded[] = [];
  let nextStatus = 200;

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.statusCode = nextStatus;
        if (nextStatus >= 300 && nextStatus < 400) res.setHeader('location', 'http://127.0.0.1:1/elsewhere');
        res.end('{"received":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    requests.length = 0;
    nextStatus = 200;
  });

  it('POSTs the message as signed JSON and reports success on 2xx', async () => {
    const transport = new WebhookTransport({ url: new URL(`${baseUrl}/hooks/sms?tenant=a`), secret });
    const result = await transport.send({ ...message, deliveryId: 'outbox-1' });
    assert.equal(result.ok, true);

    assert.equal(requests.length, 1);
    const request = requests[0]!;
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/hooks/sms?tenant=a');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(request.body), {
      channel: 'sms',
      to: '41793026727',
      from: 'ACME',
      text: 'Your code is 123456',
      pinId: '9C817C6F8AF3D48F9FE553282AFA2B67',
      applicationId: 'APP1',
      messageId: 'MSG1',
    });
    // accountId is ours, not the receiver's; unset fields are left out rather than sent as null.
    assert.ok(!('accountId' in JSON.parse(request.body)));
    assert.ok(!('subject' in JSON.parse(request.body)));

    // The id stays the same for every attempt of one outbox row, so receivers can deduplicate.
    assert.equal(request.headers['webhook-id'], 'msg_outbox-1');
    assert.ok(result.ok && result.providerMessageId === 'msg_outbox-1');
    const timestamp = Number(request.headers['webhook-timestamp']);
    assert.ok(Math.abs(timestamp - Date.now() / 1000) < 30, 'timestamp is current unix seconds');

    assert.equal(verifyWebhookSignature(secret, request.headers, request.body), true);

    // Independent computation straight from the Standard Webhooks definition.
    const expected = createHmac('sha256', key)
      .update(`${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.body}`)
      .digest('base64');
    assert.equal(request.headers['webhook-signature'], `v1,${expected}`);
  });

  it('makes a fresh webhook-id per send when no delivery id is given', async () => {
    const transport = new WebhookTransport({ url: new URL(`${baseUrl}/hook`), secret });
    await transport.send(message);
    await transport.send(message);
    const [first, second] = requests.map((r) => r.headers['webhook-id']);
    assert.match(String(first), /^msg_[0-9a-f-]{36}$/);
    assert.notEqual(first, second);
  });

  it('sends email fields when set', async () => {
    const transport = new WebhookTransport({ url: new URL(`${baseUrl}/hook`), secret });
    await transport.send({ ...message, channel: 'email', to: 'jane@example.com', subject: 'Code', html: '<b>1</b>', text: undefined });
    const body = JSON.parse(requests[0]!.body) as Record<string, unknown>;
    assert.equal(body.subject, 'Code');
    assert.equal(body.html, '<b>1</b>');
    assert.ok(!('text' in body));
  });

  it('signature verification refuses tampering, a wrong secret and stale timestamps', async () => {
    const transport = new WebhookTransport({ url: new URL(`${baseUrl}/hook`), secret });
    await transport.send(message);
    const { headers, body } = requests[0]!;
    assert.equal(verifyWebhookSignature(secret, headers, body.replace('123456', '654321')), false);
    assert.equal(verifyWebhookSignature(`whsec_${randomBytes(32).toString('base64')}`, headers, body), false);
    assert.equal(verifyWebhookSignature(secret, { ...headers, 'webhook-id': 'msg_other' }, body), false);
    const sentAt = Number(headers['webhook-timestamp']);
    assert.equal(verifyWebhookSignature(secret, headers, body, { now: sentAt + 301 }), false);
    assert.equal(verifyWebhookSignature(secret, headers, body, { now: sentAt + 299 }), true);
    // Several signatures (secret rotation): one match is enough; works with a Headers object too.
    const rotated = new Headers({
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': `v1,${randomBytes(32).toString('base64')} ${String(headers['webhook-signature'])}`,
    });
    assert.equal(verifyWebhookSignature(secret, rotated, Buffer.from(body)), true);
    const { 'webhook-signature': _omitted, ...unsigned } = headers;
    assert.equal(verifyWebhookSignature(secret, unsigned, body), false);
  });

  it('treats 5xx, 408 and 429 as retryable and other 4xx as permanent; 429 and 503 as the receiver asking to slow down', async () => {
    const transport = new WebhookTransport({ url: new URL(`${baseUrl}/hook`), secret });
    for (const [status, retryable] of [[500, true], [408, true], [400, false], [404, false], [422, false]] as const) {
      nextStatus = status;
      const result = await transport.send(message);
      assert.deepEqual(result, { ok: false, retryable, error: `webhook answered HTTP ${status}` }, `HTTP ${status}`);
    }
    for (const status of [503, 429]) {
      nextStatus = status;
      const result = await transport.send(message);
      assert.deepEqual(result, { ok: false, retryable: true, error: `webhook answered HTTP ${status}`, throttled: {} }, `HTTP ${status}`);
    }
  });

  it('does not follow redirects (they would carry the PIN to an unconfigured URL)', async () => {
    nextStatus = 307;
    const transport = new WebhookTransport({ url: new URL(`${baseUrl}/hook`), secret });
    const result = await transport.send(message);
    assert.equal(result.ok, false);
    assert.ok(!result.ok && !result.retryable && /redirect/.test(result.error));
    assert.equal(requests.length, 1);
  });

  it('reports a refused connection as retryable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const transport = new WebhookTransport({ url: new URL(`http://127.0.0.1:${port}/hook`), secret });
    const result = await transport.send(message);
    assert.deepEqual(result, { ok: false, retryable: true, error: 'webhook request failed: ECONNREFUSED' });
  });

  it('gives up after the timeout and reports it as retryable', async () => {
    const silent = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const transport = new WebhookTransport({ url: new URL(`http://127.0.0.1:${port}/hook`), secret, timeoutMs: 200 });
      const result = await transport.send(message);
      assert.deepEqual(result, { ok: false, retryable: true, error: 'webhook did not answer within 0.2 s' });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

describe('parseWebhookSecret', () => {
  it('accepts whsec_ with standard base64 of at least 16 bytes', () => {
    const parsed = parseWebhookSecret(secret);
    assert.ok(parsed.ok && parsed.key.equals(key));
    assert.equal(parseWebhookSecret(`whsec_${randomBytes(16).toString('base64').replace(/=+$/, '')}`).ok, true);
  });

  it('refuses a missing prefix, bad base64 and short keys without echoing the secret', () => {
    for (const bad of [key.toString('base64'), 'whsec_', 'whsec_not base64!!', `whsec_${randomBytes(15).toString('base64')}`, `whsec_${randomBytes(24).toString('base64url')}-_`]) {
      const parsed = parseWebhookSecret(bad);
      assert.equal(parsed.ok, false, bad);
      assert.ok(!parsed.ok && !parsed.error.includes(bad.slice(6, 20) || '\u0000'));
    }
  });
});
