// The Vonage adapter against a local server that checks the request against the SMS API's
// documented /sms/json shape and answers like Vonage (HTTP 200 with a per-message status); its
// delivery receipts checked with signatures computed here from Vonage's signing rules.
import { createHash, createHmac } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import type { CallbackRequest } from '../../../src/delivery/providers/provider-callback.js';
import { parseVonageReceipt, verifyVonageSignature, vonageCallback } from '../../../src/delivery/providers/vonage/vonage-callback.js';
import { createVonageTransport, VonageTransport } from '../../../src/delivery/providers/vonage/vonage-transport.js';
import type { OutgoingMessage } from '../../../src/delivery/transport.js';
import { closedPort, FakeProvider, formFields } from './fake-provider.js';

const API_KEY = 'a1b2c3d4';
const API_SECRET = 'S3cr3tVonage';
const SIGNATURE_SECRET = 'sigSECRETvalue123';
const PIN = '208451';
const logLines: string[] = [];
const logger = pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) });

const message: OutgoingMessage = {
  channel: 'sms',
  to: '447700900000',
  from: 'Acme',
  text: `Your Acme code: ${PIN}`,
  pinId: '9C817C6F8AF3D48F9FE553282AFA2B67',
  applicationId: 'APP1',
  messageId: 'MSG1',
  accountId: 'acct-1',
};

function transport(baseUrl: string, query = ''): VonageTransport {
  return createVonageTransport('TWOFA_SMS_DSN', new URL(`vonage://${API_KEY}:${API_SECRET}@default?base_url=${encodeURIComponent(baseUrl)}${query}`), { logger });
}

function accepted(id = '0A0000000123ABCD1'): { status: number; body: unknown } {
  return {
    status: 200,
    body: { 'message-count': '1', messages: [{ to: '447700900000', 'message-id': id, status: '0', 'remaining-balance': '3.14159265', 'message-price': '0.03330000', network: '12345' }] },
  };
}

function refused(status: string, errorText: string): { status: number; body: unknown } {
  return { status: 200, body: { 'message-count': '1', messages: [{ status, 'error-text': errorText }] } };
}

describe('Vonage transport against a local SMS API', () => {
  const vonage = new FakeProvider();
  before(() => vonage.start());
  after(() => vonage.stop());
  beforeEach(() => vonage.reset());

  it('POSTs the documented form to /sms/json and returns the message-id, with the message-price it reports (in euros)', async () => {
    vonage.reply = accepted();
    const result = await transport(vonage.baseUrl).send(message);
    assert.deepEqual(result, { ok: true, providerMessageId: '0A0000000123ABCD1', price: { amount: '0.0333', currency: 'EUR' } });
    const request = vonage.last();
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/sms/json');
    assert.equal(request.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.deepEqual(formFields(request.body), { api_key: API_KEY, api_secret: API_SECRET, from: 'Acme', to: '447700900000', text: `Your Acme code: ${PIN}` });
  });

  it('marks a text outside GSM-7 as unicode, and passes the receipt URL with its token', async () => {
    vonage.reply = accepted();
    await transport(vonage.baseUrl, `&callback_url=${encodeURIComponent('https://twofa.example.com/api/v1/callbacks/vonage')}&callback_token=tok123`)
      .send({ ...message, text: `Ваш код ${PIN}` });
    const fields = formFields(vonage.last().body);
    assert.equal(fields.type, 'unicode');
    assert.equal(fields.text, `Ваш код ${PIN}`);
    assert.equal(fields.callback, 'https://twofa.example.com/api/v1/callbacks/vonage?token=tok123');
  });

  it('carries a route\'s India DLT ids as the SMS API\'s entity-id and content-id', async () => {
    vonage.reply = accepted();
    await transport(vonage.baseUrl).send({ ...message, regulatory: { dltEntityId: '1101234567890123456', dltTemplateId: '1107123456789012345' } });
    const fields = formFields(vonage.last().body);
    assert.deepEqual([fields['entity-id'], fields['content-id']], ['1101234567890123456', '1107123456789012345']);
  });

  it('uses the DSN sender when the template has none, and refuses for good with neither', async () => {
    vonage.reply = accepted();
    const { from: _from, ...withoutFrom } = message;
    await transport(vonage.baseUrl, '&from=Fallback').send(withoutFrom);
    assert.equal(formFields(vonage.last().body).from, 'Fallback');
    const none = await transport(vonage.baseUrl).send(withoutFrom);
    assert.ok(!none.ok);
    assert.equal(none.retryable, false);
    assert.match(none.error, /no sender/);
  });

  const statuses: Array<[string, string, boolean]> = [
    ['1', 'Throttled', true],
    ['5', 'Internal Error', true],
    ['10', 'Too Many Existing Binds', true],
    ['2', 'Missing from param', false],
    ['3', 'Invalid to param', false],
    ['4', 'Bad Credentials', false],
    ['6', 'Invalid Message', false],
    ['7', 'Number barred.', false],
    ['9', 'Quota Exceeded - rejected', false],
    ['15', 'Illegal Sender Address - rejected', false],
    ['29', 'Non White-listed Destination - rejected', false],
    ['99', 'Something new', false],
  ];
  for (const [status, text, retryable] of statuses) {
    it(`maps status ${status} (${text}) to retryable=${retryable}`, async () => {
      vonage.reply = refused(status, text);
      const result = await transport(vonage.baseUrl).send(message);
      assert.ok(!result.ok);
      assert.equal(result.retryable, retryable);
      assert.equal(result.error, `vonage refused the message with status ${status}: ${text}`);
    });
  }

  it('hides the number and the PIN when Vonage quotes them', async () => {
    vonage.reply = refused('3', `Invalid to param: 447700900000 for text Your Acme code: ${PIN}`);
    const result = await transport(vonage.baseUrl).send(message);
    assert.ok(!result.ok);
    assert.ok(!result.error.includes('447700900000') && !result.error.includes(PIN), result.error);
  });

  const http: Array<[string, number, unknown, boolean, RegExp]> = [
    ['HTTP 500', 500, 'oops', true, /HTTP 500/],
    ['HTTP 429', 429, { title: 'Too Many Requests' }, true, /HTTP 429: Too Many Requests/],
    ['HTTP 401', 401, { type: 'https://developer.nexmo.com/api-errors#unauthorized', error_title: 'Unauthorized' }, false, /HTTP 401: Unauthorized/],
    ['HTTP 200 with garbage', 200, '<html>', true, /without a messages list/],
    ['HTTP 200 without a message-id', 200, { messages: [{ status: '0' }] }, true, /without a message-id/],
  ];
  for (const [what, status, body, retryable, pattern] of http) {
    it(`maps ${what} to retryable=${retryable}`, async () => {
      vonage.reply = { status, body };
      const result = await transport(vonage.baseUrl).send(message);
      assert.ok(!result.ok);
      assert.equal(result.retryable, retryable);
      assert.match(result.error, pattern);
    });
  }

  it('retries on a timeout and on a refused connection', async () => {
    vonage.reply = 'hang';
    const slow = await transport(vonage.baseUrl, '&timeout=300ms').send(message);
    assert.ok(!slow.ok && slow.retryable);
    assert.match(slow.error, /did not answer/);
    const down = await transport(`http://127.0.0.1:${await closedPort()}`).send(message);
    assert.ok(!down.ok && down.retryable);
    assert.match(down.error, /ECONNREFUSED/);
  });

  it('refuses voice for good without a Vonage application in the DSN (voice calls: vonage-voice.test.ts)', async () => {
    const result = await transport(vonage.baseUrl).send({ ...message, channel: 'voice' });
    assert.ok(!result.ok && !result.retryable);
    assert.match(result.error, /vonage voice needs application_id and private_key_file/);
    assert.equal(vonage.requests.length, 0);
  });
});

describe('createVonageTransport DSN checks', () => {
  const bad: Array<[string, RegExp]> = [
    [`vonage://${API_KEY}@default?from=Acme`, /API key and secret/],
    [`vonage://${API_KEY}:${API_SECRET}@rest.nexmo.com`, /host must be "default"/],
    [`vonage://${API_KEY}:${API_SECRET}@default?signature_method=crc32`, /signature_method/],
    [`vonage://${API_KEY}:${API_SECRET}@default?callback_url=https://x.example/cb`, /cannot be authenticated/],
    [`vonage://${API_KEY}:${API_SECRET}@default?api_secret=x`, /unknown DSN parameter/],
  ];
  for (const [dsn, pattern] of bad) {
    it(`refuses ${dsn.replace(API_SECRET, '***')}`, () => {
      assert.throws(() => createVonageTransport('TWOFA_SMS_DSN', new URL(dsn), { logger }), (err: Error) => {
        assert.match(err.message, /^TWOFA_SMS_DSN: /);
        assert.match(err.message, pattern);
        assert.ok(!err.message.includes(API_SECRET));
        return true;
      });
    });
  }
});

describe('Vonage delivery receipts', () => {
  const now = 1_700_000_000;
  const receipt = {
    msisdn: '447700900000',
    to: 'Acme',
    'network-code': '23410',
    messageId: '0A0000000123ABCD1',
    price: '0.03330000',
    status: 'delivered',
    scts: '2311141213',
    'err-code': '0',
    'api-key': API_KEY,
    'message-timestamp': '2023-11-14 22:13:20',
  };

  /** Vonage's md5hash rule written out here: `&name=value` sorted, `&`/`=` in values as `_`, then the secret. */
  function md5hash(params: Record<string, string>, secret: string): string {
    let text = '';
    for (const name of Object.keys(params).sort()) text += `&${name}=${(params[name] ?? '').replace(/[&=]/g, '_')}`;
    return createHash('md5').update(text + secret).digest('hex');
  }

  function signed(params: Record<string, string>, how: 'md5hash' | 'sha256' = 'md5hash', timestamp = now): Record<string, string> {
    const withTime = { ...params, timestamp: String(timestamp), nonce: 'c6b4b1a4-6bd1-4ae3-a0a1-3b1f1c7a5e7f' };
    if (how === 'md5hash') return { ...withTime, sig: md5hash(withTime, SIGNATURE_SECRET) };
    let text = '';
    for (const name of Object.keys(withTime).sort()) text += `&${name}=${(withTime[name as keyof typeof withTime] ?? '').replace(/[&=]/g, '_')}`;
    return { ...withTime, sig: createHmac('sha256', SIGNATURE_SECRET).update(text).digest('hex').toUpperCase() };
  }

  function post(body: Record<string, string>, query: Record<string, string> = {}): CallbackRequest {
    return { url: 'https://twofa.example.com/api/v1/callbacks/vonage', headers: {}, query, body };
  }

  function get(query: Record<string, string>): CallbackRequest {
    return { url: 'https://twofa.example.com/api/v1/callbacks/vonage', headers: {}, query, body: undefined };
  }

  const withSignature = (method?: string) => new VonageTransport({
    apiKey: API_KEY,
    apiSecret: API_SECRET,
    signatureSecret: SIGNATURE_SECRET,
    ...(method !== undefined && { signatureMethod: method as 'sha256' }),
    clock: () => now + 30,
  });

  it('accepts a receipt signed with the signature secret (md5hash, the default), POST or GET', () => {
    const t = withSignature();
    assert.equal(t.callback.verify(post(signed(receipt))), true);
    assert.equal(t.callback.verify(get(signed(receipt))), true);
    assert.equal(verifyVonageSignature(signed({ text: 'a&b=c', ...receipt }), SIGNATURE_SECRET, 'md5hash', now), true);
  });

  it('accepts an HMAC-SHA256 signature in either case', () => {
    const t = withSignature('sha256');
    const params = signed(receipt, 'sha256');
    assert.equal(t.callback.verify(post(params)), true);
    assert.equal(t.callback.verify(post({ ...params, sig: (params.sig as string).toLowerCase() })), true);
  });

  it('rejects tampered, unsigned, stale or wrongly keyed receipts', () => {
    const t = withSignature();
    assert.equal(t.callback.verify(post({ ...signed(receipt), status: 'failed' })), false);
    const { sig: _sig, ...unsigned } = signed(receipt);
    assert.equal(t.callback.verify(post(unsigned)), false);
    assert.equal(t.callback.verify(post(signed(receipt, 'md5hash', now - 3600))), false);
    const other = { ...receipt, timestamp: String(now), sig: md5hash({ ...receipt, timestamp: String(now) }, 'wrong-secret') };
    assert.equal(t.callback.verify(post(other)), false);
    assert.equal(withSignature('sha256').callback.verify(post(signed(receipt))), false);
  });

  it('without a signature secret, accepts only the shared token, and with neither nothing', () => {
    const token = createVonageTransport('TWOFA_SMS_DSN', new URL(`vonage://${API_KEY}:${API_SECRET}@default?callback_token=s3cret-token`), { logger });
    assert.equal(token.callback.verify(post(receipt, { token: 's3cret-token' })), true);
    assert.equal(token.callback.verify(get({ ...receipt, token: 's3cret-token' })), true);
    assert.equal(token.callback.verify(post(receipt, { token: 's3cret-tokem' })), false);
    assert.equal(token.callback.verify(post(receipt)), false);
    const none = createVonageTransport('TWOFA_SMS_DSN', new URL(`vonage://${API_KEY}:${API_SECRET}@default`), { logger });
    assert.equal(none.callback.verify(post(receipt, { token: 'anything' })), false);
  });

  it('maps final statuses to receipts, with the time Vonage gives', () => {
    const at = Date.parse('2023-11-14T22:13:20Z');
    assert.deepEqual(vonageCallback.parse(post(receipt), 0), {
      ok: true,
      receipts: [{ transport: 'vonage', providerMessageId: '0A0000000123ABCD1', status: 'delivered', at }],
    });
    assert.deepEqual(parseVonageReceipt({ ...receipt, status: 'expired', 'err-code': '1' }, 0), {
      transport: 'vonage', providerMessageId: '0A0000000123ABCD1', status: 'undelivered', error: 'expired (err-code 1)', at,
    });
    assert.equal(parseVonageReceipt({ ...receipt, status: 'failed', 'err-code': '6' }, 0)?.error, 'failed (err-code 6)');
    assert.equal(parseVonageReceipt({ ...receipt, status: 'rejected', 'err-code': '29' }, 0)?.status, 'undelivered');
    const { 'message-timestamp': _ts, ...untimed } = receipt;
    assert.equal(parseVonageReceipt(untimed, 42)?.at, 42);
    for (const progress of ['accepted', 'buffered', 'unknown']) {
      assert.deepEqual(vonageCallback.parse(get({ ...receipt, status: progress }), 0), { ok: true, receipts: [] });
    }
  });

  it('rejects a receipt that is not in the documented shape', () => {
    const { messageId: _id, ...withoutId } = receipt;
    assert.equal(vonageCallback.parse(post(withoutId), 0).ok, false);
    assert.equal(vonageCallback.parse(post({ messageId: 'x' }), 0).ok, false);
    assert.equal(vonageCallback.parse({ url: '', headers: {}, query: {}, body: { messageId: { nested: true } } }, 0).ok, false);
  });

  it('never logged the credentials or the PIN', () => {
    const joined = logLines.join('\n');
    assert.ok(!joined.includes(API_SECRET) && !joined.includes(PIN) && !joined.includes('447700900000'));
  });
});
