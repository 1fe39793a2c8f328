// The Twilio adapter against a local server that checks the request against Twilio's documented
// Messages API shape and answers the way Twilio does; its status callback checked with signatures
// computed here, independently of the code under test.
import { createHmac } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import type { CallbackRequest } from '../../../src/delivery/providers/provider-callback.js';
import { parseTwilioCallback, twilioCallback, verifyTwilioSignature } from '../../../src/delivery/providers/twilio/twilio-callback.js';
import { createTwilioTransport } from '../../../src/delivery/providers/twilio/twilio-transport.js';
import type { OutgoingMessage } from '../../../src/delivery/transport.js';
import { closedPort, FakeProvider, formFields } from './fake-provider.js';

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
const PIN = '731904';
const logLines: string[] = [];
const logger = pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) });

const message: OutgoingMessage = {
  channel: 'sms',
  to: '41793026727',
  text: `Your code is ${PIN}`,
  pinId: '9C817C6F8AF3D48F9FE553282AFA2B67',
  applicationId: 'APP1',
  messageId: 'MSG1',
  accountId: 'acct-1',
  deliveryId: '7',
};

function transport(baseUrl: string, query = '') {
  return createTwilioTransport('TWOFA_SMS_DSN', new URL(`twilio://${SID}:${TOKEN}@default?from=+15005550006&base_url=${encodeURIComponent(baseUrl)}${query}`), { logger });
}

/** Twilio's documented algorithm, written out again here so the test does not trust the code it checks. */
function sign(url: string, params: Record<string, string>): string {
  let data = url;
  for (const name of Object.keys(params).sort()) data += name + params[name];
  return createHmac('sha1', TOKEN).update(Buffer.from(data, 'utf8')).digest('base64');
}

describe('Twilio transport against a local Messages API', () => {
  const twilio = new FakeProvider();
  before(() => twilio.start());
  after(() => twilio.stop());
  beforeEach(() => twilio.reset());

  it('POSTs the documented form to Messages.json with Basic auth and returns the sid', async () => {
    twilio.reply = { status: 201, body: { sid: 'SM0123456789abcdef0123456789abcdef', status: 'queued', error_code: null } };
    const result = await transport(twilio.baseUrl, `&status_callback=${encodeURIComponent('https://twofa.example.com/api/v1/callbacks/twilio')}`).send(message);
    assert.deepEqual(result, { ok: true, providerMessageId: 'SM0123456789abcdef0123456789abcdef' });

    const request = twilio.last();
    assert.equal(request.method, 'POST');
    assert.equal(request.path, `/2010-04-01/Accounts/${SID}/Messages.json`);
    assert.equal(request.headers.authorization, `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
    assert.equal(request.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.deepEqual(formFields(request.body), {
      To: '+41793026727',
      From: '+15005550006',
      Body: `Your code is ${PIN}`,
      StatusCallback: 'https://twofa.example.com/api/v1/callbacks/twilio',
    });
  });

  it("uses the template's sender over the DSN's, and sends the messaging service when configured", async () => {
    twilio.reply = { status: 201, body: { sid: 'SM1' } };
    await transport(twilio.baseUrl, '&messaging_service_sid=MG0123456789abcdef0123456789abcdef').send({ ...message, from: 'ACME' });
    const fields = formFields(twilio.last().body);
    assert.equal(fields.From, 'ACME');
    assert.equal(fields.MessagingServiceSid, 'MG0123456789abcdef0123456789abcdef');
    assert.equal(fields.StatusCallback, undefined);
  });

  it('sends with only a messaging service when there is no sender', async () => {
    twilio.reply = { status: 201, body: { sid: 'SM2' } };
    const t = createTwilioTransport('TWOFA_SMS_DSN', new URL(`twilio://${SID}:${TOKEN}@default?messaging_service_sid=MG0123456789abcdef0123456789abcdef&base_url=${encodeURIComponent(twilio.baseUrl)}`), { logger });
    assert.ok((await t.send(message)).ok);
    assert.equal(formFields(twilio.last().body).From, undefined);
  });

  const failures: Array<[string, number, unknown, boolean, RegExp]> = [
    ['an invalid number (400, 21211)', 400, { code: 21211, message: "Invalid 'To' Phone Number: +41793026727", more_info: 'https://www.twilio.com/docs/errors/21211', status: 400 }, false, /HTTP 400: error 21211: Invalid 'To' Phone Number: \*\*\*/],
    ['bad credentials (401)', 401, { code: 20003, message: 'Authenticate', status: 401 }, false, /HTTP 401: error 20003/],
    ['a full sender queue (400, 21611)', 400, { code: 21611, message: "This 'From' number has exceeded the maximum number of queued messages", status: 400 }, true, /21611/],
    ['too many requests (429)', 429, { code: 20429, message: 'Too Many Requests', status: 429 }, true, /HTTP 429/],
    ['a server error (500)', 500, 'Internal Server Error', true, /HTTP 500/],
    ['a gateway error with an HTML body (502)', 502, '<html>bad gateway</html>', true, /HTTP 502$/],
    ['a redirect (302)', 302, undefined, false, /redirect/],
    ['a 201 without a sid', 201, { status: 'queued' }, true, /without a message sid/],
    ['a 200 with garbage', 200, 'not json', true, /without a message sid/],
  ];
  for (const [what, status, body, retryable, pattern] of failures) {
    it(`maps ${what} to retryable=${retryable}`, async () => {
      twilio.reply = { status, body, ...(status === 302 && { headers: { location: 'http://127.0.0.1:1/elsewhere' } }) };
      const result = await transport(twilio.baseUrl).send(message);
      assert.ok(!result.ok);
      assert.equal(result.retryable, retryable);
      assert.match(result.error, pattern);
      assert.ok(!result.error.includes('41793026727') && !result.error.includes(PIN), result.error);
      assert.equal(twilio.requests.length, 1, 'one request per send: retries are the outbox worker\'s');
    });
  }

  it('retries when Twilio does not answer within the timeout', async () => {
    twilio.reply = 'hang';
    const started = Date.now();
    const result = await transport(twilio.baseUrl, '&timeout=300ms').send(message);
    assert.ok(!result.ok);
    assert.equal(result.retryable, true);
    assert.match(result.error, /did not answer within 0\.3 s/);
    assert.ok(Date.now() - started < 2000);
  });

  it('retries when the connection is refused', async () => {
    const port = await closedPort();
    const result = await transport(`http://127.0.0.1:${port}`).send(message);
    assert.ok(!result.ok);
    assert.equal(result.retryable, true);
    assert.match(result.error, /ECONNREFUSED/);
  });

  it('tolerates a leading + on the destination and refuses what is not a number', async () => {
    twilio.reply = { status: 201, body: { sid: 'SM4' } };
    assert.ok((await transport(twilio.baseUrl).send({ ...message, to: '+41793026727' })).ok);
    assert.equal(formFields(twilio.last().body).To, '+41793026727');
    const bad = await transport(twilio.baseUrl).send({ ...message, to: '41-79' });
    assert.ok(!bad.ok && !bad.retryable);
    assert.equal(twilio.requests.length, 1);
  });

  it('refuses email, and voice without voice content, for good, without a request (voice calls: twilio-voice.test.ts)', async () => {
    const t = transport(twilio.baseUrl);
    const voice = await t.send({ ...message, channel: 'voice' });
    assert.deepEqual(voice, { ok: false, retryable: false, error: 'the voice message carries no voice content' });
    const email = await t.send({ ...message, channel: 'email', to: 'john@example.com' });
    assert.ok(!email.ok && !email.retryable);
    assert.equal(twilio.requests.length, 0);
  });
});

describe('createTwilioTransport DSN checks', () => {
  const bad: Array<[string, RegExp]> = [
    [`twilio://notasid:${TOKEN}@default?from=+15005550006`, /account SID/],
    [`twilio://${SID}@default?from=+15005550006`, /auth token/],
    [`twilio://${SID}:${TOKEN}@api.twilio.com?from=+15005550006`, /host must be "default"/],
    [`twilio://${SID}:${TOKEN}@default?form=+15005550006`, /unknown DSN parameter "form"/],
    [`twilio://${SID}:${TOKEN}@default?base_url=ftp://x`, /base_url must be an http/],
    [`twilio://${SID}:${TOKEN}@default?messaging_service_sid=nope`, /messaging_service_sid/],
    [`twilio://${SID}:${TOKEN}@default?timeout=0s`, /timeout/],
  ];
  for (const [dsn, pattern] of bad) {
    it(`refuses ${dsn.replace(TOKEN, '***')}`, () => {
      assert.throws(() => createTwilioTransport('TWOFA_SMS_DSN', new URL(dsn), { logger }), (err: Error) => {
        assert.match(err.message, /^TWOFA_SMS_DSN: /);
        assert.match(err.message, pattern);
        assert.ok(!err.message.includes(TOKEN));
        return true;
      });
    });
  }

  it('keeps the + of a sender written unencoded in the DSN', async () => {
    const twilio = new FakeProvider();
    await twilio.start();
    twilio.reply = { status: 201, body: { sid: 'SM3' } };
    await transport(twilio.baseUrl).send(message);
    assert.equal(formFields(twilio.last().body).From, '+15005550006');
    await twilio.stop();
  });
});

describe('Twilio status callback', () => {
  const callbackUrl = 'https://twofa.example.com/api/v1/callbacks/twilio';
  const fields = {
    AccountSid: SID,
    ApiVersion: '2010-04-01',
    From: '+15005550006',
    MessageSid: 'SM0123456789abcdef0123456789abcdef',
    MessageStatus: 'delivered',
    SmsSid: 'SM0123456789abcdef0123456789abcdef',
    SmsStatus: 'delivered',
    To: '+41793026727',
  };
  const t = createTwilioTransport('TWOFA_SMS_DSN', new URL(`twilio://${SID}:${TOKEN}@default?from=+15005550006`), { logger });

  function request(url: string, body: Record<string, string>, signature: string | undefined): CallbackRequest {
    return { url, headers: { 'x-twilio-signature': signature, 'content-type': 'application/x-www-form-urlencoded' }, query: {}, body };
  }

  it('accepts a request signed with the auth token, and rejects a tampered or unsigned one', () => {
    const signature = sign(callbackUrl, fields);
    assert.equal(t.callback.verify(request(callbackUrl, fields, signature)), true);
    assert.equal(t.callback.verify(request(callbackUrl, { ...fields, MessageStatus: 'undelivered' }, signature)), false);
    assert.equal(t.callback.verify(request(`${callbackUrl}?x=1`, fields, signature)), false);
    assert.equal(t.callback.verify(request(callbackUrl, fields, undefined)), false);
    assert.equal(t.callback.verify(request(callbackUrl, fields, signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')))), false);
    const otherToken = createHmac('sha1', 'another-token').update(callbackUrl + Object.keys(fields).sort().map((k) => k + fields[k as keyof typeof fields]).join('')).digest('base64');
    assert.equal(t.callback.verify(request(callbackUrl, fields, otherToken)), false);
  });

  it('accepts the URL signed with or without its default port', () => {
    assert.equal(verifyTwilioSignature(TOKEN, callbackUrl, fields, sign('https://twofa.example.com:443/api/v1/callbacks/twilio', fields)), true);
    assert.equal(verifyTwilioSignature(TOKEN, 'https://twofa.example.com:443/api/v1/callbacks/twilio', fields, sign(callbackUrl, fields)), true);
    assert.equal(verifyTwilioSignature(TOKEN, callbackUrl, fields, sign('https://twofa.example.com:8443/api/v1/callbacks/twilio', fields)), false);
  });

  it('checks against the configured status_callback when a proxy changes the URL we see', () => {
    const behindProxy = createTwilioTransport('TWOFA_SMS_DSN', new URL(`twilio://${SID}:${TOKEN}@default?from=+15005550006&status_callback=${encodeURIComponent(callbackUrl)}`), { logger });
    const signature = sign(callbackUrl, fields);
    assert.equal(behindProxy.callback.verify(request('http://10.0.0.5:3000/api/v1/callbacks/twilio', fields, signature)), true);
    assert.equal(t.callback.verify(request('http://10.0.0.5:3000/api/v1/callbacks/twilio', fields, signature)), false);
  });

  it('maps final statuses to receipts and skips progress reports', () => {
    const now = 1_700_000_000_000;
    assert.deepEqual(twilioCallback.parse(request(callbackUrl, fields, 'x'), now), {
      ok: true,
      receipts: [{ transport: 'twilio', providerMessageId: fields.MessageSid, status: 'delivered', at: now }],
    });
    assert.deepEqual(parseTwilioCallback({ ...fields, MessageStatus: 'undelivered', ErrorCode: '30003' }, now), {
      transport: 'twilio', providerMessageId: fields.MessageSid, status: 'undelivered', error: 'undelivered (error 30003)', at: now,
    });
    assert.equal(parseTwilioCallback({ ...fields, MessageStatus: 'failed', ErrorCode: '30007' }, now)?.status, 'undelivered');
    for (const progress of ['queued', 'sending', 'sent', 'accepted']) {
      assert.equal(parseTwilioCallback({ ...fields, MessageStatus: progress }, now), null);
      assert.deepEqual(t.callback.parse(request(callbackUrl, { ...fields, MessageStatus: progress }, 'x'), now), { ok: true, receipts: [] });
    }
  });

  it('rejects a callback that is not in the documented shape', () => {
    const { MessageSid: _sid, SmsSid: _smsSid, ...withoutSid } = fields;
    assert.equal(t.callback.parse(request(callbackUrl, withoutSid, 'x'), 0).ok, false);
    assert.equal(t.callback.parse({ url: callbackUrl, headers: {}, query: {}, body: { nested: { a: 1 } } }, 0).ok, false);
    assert.equal(t.callback.verify({ url: callbackUrl, headers: {}, query: {}, body: [1, 2] }), false);
  });

  it('never logged the auth token, the PIN or the full number', () => {
    const joined = logLines.join('\n');
    assert.ok(!joined.includes(TOKEN) && !joined.includes(PIN) && !joined.includes('41793026727'));
  });
});
