// The Infobip adapter against a local server that checks the request against Infobip's SMS API
// (/sms/3/messages, and the older /sms/2/text/advanced) and answers like Infobip; its delivery
// reports authenticated by the shared token in the notify URL.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { parseInfobipReport, infobipCallback } from '../../../src/delivery/providers/infobip/infobip-callback.js';
import { createInfobipTransport, type InfobipTransport } from '../../../src/delivery/providers/infobip/infobip-transport.js';
import type { CallbackRequest } from '../../../src/delivery/providers/provider-callback.js';
import type { OutgoingMessage } from '../../../src/delivery/transport.js';
import { closedPort, FakeProvider } from './fake-provider.js';

const API_KEY = '003026bbc133714df1834b8638bb496e-8f4b3d9a-e931-478d-a994-28a725159ab9';
const TOKEN = '4f9c2a7d1e8b6c3a5d0e9f8a7b6c5d4e';
const PIN = '559017';
const logLines: string[] = [];
const logger = pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) });

const message: OutgoingMessage = {
  channel: 'sms',
  to: '41793026727',
  from: 'InfoSMS',
  text: `Your pin is ${PIN}`,
  pinId: '9C817C6F8AF3D48F9FE553282AFA2B67',
  applicationId: 'APP1',
  messageId: 'MSG1',
  accountId: 'acct-1',
};

function transport(baseUrl: string, query = ''): InfobipTransport {
  const host = new URL(baseUrl).host;
  return createInfobipTransport('TWOFA_SMS_DSN', new URL(`infobip://${API_KEY}@${host}?scheme=http${query}`), { logger });
}

function pending(messageId = '2250be2d4219-3af1-78856-aabe-1362af1edfd2'): { status: number; body: unknown } {
  return {
    status: 200,
    body: {
      bulkId: '2034072219640523072',
      messages: [{ messageId, status: { groupId: 1, groupName: 'PENDING', id: 26, name: 'PENDING_ACCEPTED', description: 'Message sent to next instance' }, destination: '41793026727', details: { messageCount: 1 } }],
    },
  };
}

const NOTIFY = `&notify_url=${encodeURIComponent('https://twofa.example.com/api/v1/callbacks/infobip')}&callback_token=${TOKEN}`;

describe('Infobip transport against a local SMS API', () => {
  const infobip = new FakeProvider();
  before(() => infobip.start());
  after(() => infobip.stop());
  beforeEach(() => infobip.reset());

  it('POSTs the documented JSON to /sms/3/messages with App auth and returns the messageId', async () => {
    infobip.reply = pending();
    const result = await transport(infobip.baseUrl, NOTIFY).send(message);
    assert.deepEqual(result, { ok: true, providerMessageId: '2250be2d4219-3af1-78856-aabe-1362af1edfd2' });
    const request = infobip.last();
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/sms/3/messages');
    assert.equal(request.headers.authorization, `App ${API_KEY}`);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers.accept, 'application/json');
    assert.deepEqual(JSON.parse(request.body), {
      messages: [{
        sender: 'InfoSMS',
        destinations: [{ to: '41793026727' }],
        content: { text: `Your pin is ${PIN}` },
        webhooks: { delivery: { url: `https://twofa.example.com/api/v1/callbacks/infobip?token=${TOKEN}` }, contentType: 'application/json' },
      }],
    });
  });

  it('with api=2, POSTs the /sms/2/text/advanced shape', async () => {
    infobip.reply = { status: 200, body: { bulkId: 'b', messages: [{ to: '41793026727', status: { groupId: 1, groupName: 'PENDING', id: 26, name: 'PENDING_ACCEPTED' }, messageId: 'v2-id' }] } };
    const result = await transport(infobip.baseUrl, `&api=2${NOTIFY}`).send(message);
    assert.deepEqual(result, { ok: true, providerMessageId: 'v2-id' });
    assert.equal(infobip.last().path, '/sms/2/text/advanced');
    assert.deepEqual(JSON.parse(infobip.last().body), {
      messages: [{
        from: 'InfoSMS',
        destinations: [{ to: '41793026727' }],
        text: `Your pin is ${PIN}`,
        notifyUrl: `https://twofa.example.com/api/v1/callbacks/infobip?token=${TOKEN}`,
        notifyContentType: 'application/json',
      }],
    });
  });

  it('carries a route\'s India DLT ids as Infobip documents them, on /sms/3 and /sms/2', async () => {
    const regulatory = { dltEntityId: '1101234567890123456', dltTemplateId: '1107123456789012345' };
    const indiaDlt = { principalEntityId: regulatory.dltEntityId, contentTemplateId: regulatory.dltTemplateId };
    infobip.reply = pending();
    await transport(infobip.baseUrl).send({ ...message, regulatory });
    assert.deepEqual(JSON.parse(infobip.last().body).messages[0].options, { regional: { indiaDlt } });
    infobip.reply = { status: 200, body: { messages: [{ status: { groupName: 'PENDING' }, messageId: 'v2-id' }] } };
    await transport(infobip.baseUrl, '&api=2').send({ ...message, regulatory });
    assert.deepEqual(JSON.parse(infobip.last().body).messages[0].regional, { indiaDlt });
  });

  it('leaves out what is not configured (sender, webhooks)', async () => {
    infobip.reply = pending();
    const { from: _from, ...withoutFrom } = message;
    await transport(infobip.baseUrl).send(withoutFrom);
    assert.deepEqual(JSON.parse(infobip.last().body), { messages: [{ destinations: [{ to: '41793026727' }], content: { text: `Your pin is ${PIN}` } }] });
  });

  it('treats a REJECTED status in the answer as a refusal for good', async () => {
    infobip.reply = { status: 200, body: { messages: [{ messageId: 'm1', status: { groupId: 5, groupName: 'REJECTED', id: 12, name: 'REJECTED_NOT_ENOUGH_CREDITS' } }] } };
    const result = await transport(infobip.baseUrl).send(message);
    assert.deepEqual(result, { ok: false, retryable: false, error: 'infobip refused the message: REJECTED_NOT_ENOUGH_CREDITS' });
  });

  const failures: Array<[string, number, unknown, boolean, RegExp]> = [
    ['401 (v2 envelope)', 401, { requestError: { serviceException: { messageId: 'UNAUTHORIZED', text: 'Invalid login details' } } }, false, /HTTP 401: UNAUTHORIZED: Invalid login details/],
    ['400 (v3 envelope)', 400, { errorCode: 'E400', description: 'Request cannot be processed.', action: 'Check the syntax', violations: [{ property: 'messages[0].destinations[0].to', violation: 'Invalid: 41793026727' }] }, false, /HTTP 400: E400: Request cannot be processed\./],
    ['429', 429, { requestError: { serviceException: { messageId: 'TOO_MANY_REQUESTS', text: 'Too many requests' } } }, true, /HTTP 429/],
    ['500', 500, { requestError: { serviceException: { messageId: 'GENERAL_ERROR', text: 'Something went wrong' } } }, true, /HTTP 500: GENERAL_ERROR/],
    ['503 with a text body', 503, 'Service Unavailable', true, /HTTP 503$/],
    ['200 without messages', 200, { bulkId: 'x' }, true, /without a messageId/],
  ];
  for (const [what, status, body, retryable, pattern] of failures) {
    it(`maps ${what} to retryable=${retryable}`, async () => {
      infobip.reply = { status, body };
      const result = await transport(infobip.baseUrl).send(message);
      assert.ok(!result.ok);
      assert.equal(result.retryable, retryable);
      assert.match(result.error, pattern);
      assert.ok(!result.error.includes('41793026727') && !result.error.includes(API_KEY));
    });
  }

  it('retries on a timeout and on a refused connection', async () => {
    infobip.reply = 'hang';
    const slow = await transport(infobip.baseUrl, '&timeout=300ms').send(message);
    assert.ok(!slow.ok && slow.retryable);
    assert.match(slow.error, /infobip did not answer within 0\.3 s/);
    const down = await transport(`http://127.0.0.1:${await closedPort()}`).send(message);
    assert.ok(!down.ok && down.retryable);
    assert.match(down.error, /ECONNREFUSED/);
  });

  it('refuses a voice message without voice content for good (voice calls: infobip-voice.test.ts)', async () => {
    const result = await transport(infobip.baseUrl).send({ ...message, channel: 'voice' });
    assert.deepEqual(result, { ok: false, retryable: false, error: 'the voice message carries no voice content' });
    assert.equal(infobip.requests.length, 0);
  });
});

describe('createInfobipTransport DSN checks', () => {
  const bad: Array<[string, RegExp]> = [
    ['infobip://xyz.api.infobip.com?from=Acme', /API key as its user part/],
    [`infobip://${API_KEY}@default`, /API host/],
    [`infobip://${API_KEY}@xyz.api.infobip.com?scheme=ftp`, /scheme must be https or http/],
    [`infobip://${API_KEY}@xyz.api.infobip.com?api=1`, /api must be 3/],
    [`infobip://${API_KEY}@xyz.api.infobip.com?notify_url=https://twofa.example.com/cb`, /callback_token/],
    [`infobip://${API_KEY}@xyz.api.infobip.com?token=x`, /unknown DSN parameter "token"/],
  ];
  for (const [dsn, pattern] of bad) {
    it(`refuses ${dsn.replace(API_KEY, '***')}`, () => {
      assert.throws(() => createInfobipTransport('TWOFA_SMS_DSN', new URL(dsn), { logger }), (err: Error) => {
        assert.match(err.message, /^TWOFA_SMS_DSN: /);
        assert.match(err.message, pattern);
        assert.ok(!err.message.includes(API_KEY));
        return true;
      });
    });
  }

  it('defaults to https on the account host', async () => {
    const t = createInfobipTransport('TWOFA_SMS_DSN', new URL(`infobip://${API_KEY}@127.0.0.1:${await closedPort()}`), { logger });
    const result = await t.send(message);
    // https spoken to a closed port: refused, which shows the scheme only through the attempt itself.
    assert.ok(!result.ok && result.retryable);
  });
});

describe('Infobip delivery reports', () => {
  const report = {
    results: [
      {
        bulkId: 'BULK-ID-123-xyz',
        messageId: 'MESSAGE-ID-123-xyz',
        to: '41793026727',
        sentAt: '2019-11-09T16:00:00.000+0000',
        doneAt: '2019-11-09T16:00:00.000+0000',
        smsCount: 1,
        price: { pricePerMessage: 0.01, currency: 'EUR' },
        status: { groupId: 3, groupName: 'DELIVERED', id: 5, name: 'DELIVERED_TO_HANDSET', description: 'Message delivered to handset' },
        error: { groupId: 0, groupName: 'Ok', id: 0, name: 'NO_ERROR', description: 'No Error', permanent: false },
      },
      {
        bulkId: 'BULK-ID-123-xyz',
        messageId: '12db39c3-7822-4e72-a3ec-c87442c0ffc5',
        to: '41793026834',
        doneAt: '2019-11-09T17:00:00.000+0000',
        status: { groupId: 2, groupName: 'UNDELIVERABLE', id: 9, name: 'UNDELIVERABLE_NOT_DELIVERED', description: 'Message sent not delivered' },
        error: { groupId: 1, groupName: 'HANDSET_ERRORS', id: 27, name: 'EC_ABSENT_SUBSCRIBER', description: 'Absent Subscriber', permanent: false },
      },
      {
        messageId: 'pending-1',
        status: { groupId: 1, groupName: 'PENDING', id: 7, name: 'PENDING_ENROUTE' },
      },
      {
        messageId: 'expired-1',
        status: { groupId: 4, groupName: 'EXPIRED', id: 15, name: 'EXPIRED_EXPIRED' },
        error: { groupId: 0, groupName: 'OK', id: 0, name: 'NO_ERROR' },
      },
    ],
  };
  const url = `https://twofa.example.com/api/v1/callbacks/infobip?token=${TOKEN}`;
  function request(query: Record<string, string>, body: unknown = report): CallbackRequest {
    return { url, headers: { 'content-type': 'application/json' }, query, body };
  }
  const withToken = createInfobipTransport('TWOFA_SMS_DSN', new URL(`infobip://${API_KEY}@xyz.api.infobip.com?callback_token=${TOKEN}`), { logger });

  it('accepts a report that carries the token, and rejects one with another or none', () => {
    assert.equal(withToken.callback.verify(request({ token: TOKEN })), true);
    assert.equal(withToken.callback.verify(request({ token: TOKEN.replace(/.$/, '0') })), false);
    assert.equal(withToken.callback.verify(request({ token: `${TOKEN}x` })), false);
    assert.equal(withToken.callback.verify(request({})), false);
    const without = createInfobipTransport('TWOFA_SMS_DSN', new URL(`infobip://${API_KEY}@xyz.api.infobip.com`), { logger });
    assert.equal(without.callback.verify(request({ token: TOKEN })), false);
  });

  it('maps DELIVERED (with the price it reports: pricePerMessage x smsCount), UNDELIVERABLE and EXPIRED, and skips PENDING', () => {
    const parsed = withToken.callback.parse(request({ token: TOKEN }), 99);
    assert.deepEqual(parsed, {
      ok: true,
      receipts: [
        { transport: 'infobip', providerMessageId: 'MESSAGE-ID-123-xyz', status: 'delivered', at: Date.parse('2019-11-09T16:00:00.000Z'), price: { amount: '0.0100', currency: 'EUR' } },
        { transport: 'infobip', providerMessageId: '12db39c3-7822-4e72-a3ec-c87442c0ffc5', status: 'undelivered', error: 'EC_ABSENT_SUBSCRIBER', at: Date.parse('2019-11-09T17:00:00.000Z') },
        { transport: 'infobip', providerMessageId: 'expired-1', status: 'undelivered', error: 'EXPIRED_EXPIRED', at: 99 },
      ],
    });
    assert.deepEqual(parseInfobipReport({ results: [{ messageId: 'r', status: { groupName: 'REJECTED', name: 'REJECTED_DESTINATION' } }] }, 1), [
      { transport: 'infobip', providerMessageId: 'r', status: 'undelivered', error: 'REJECTED_DESTINATION', at: 1 },
    ]);
  });

  it('rejects a report that is not in the documented shape', () => {
    for (const body of [undefined, 'text', { results: 'x' }, { results: [{ status: { groupName: 'DELIVERED' } }] }, { results: [{ messageId: 'x' }] }, { results: [7] }]) {
      const parsed = infobipCallback.parse({ url, headers: {}, query: { token: TOKEN }, body }, 0);
      assert.equal(parsed.ok, false, JSON.stringify(body));
    }
  });

  it('never logged the API key, the token or the PIN', () => {
    const joined = logLines.join('\n');
    assert.ok(!joined.includes(API_KEY) && !joined.includes(TOKEN) && !joined.includes(PIN));
  });
});
