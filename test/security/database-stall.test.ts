// PostgreSQL stalls (issue 23, item 14): the network to the node's own test database holds every byte,
// both ways, without closing anything, as a hung database or a black-holed route does. Every wait on
// the database is bounded (TWOFA_DATABASE_CONNECT_TIMEOUT, TWOFA_DATABASE_STATEMENT_TIMEOUT, 2 s here),
// so each request ends meanwhile in a 503 with Retry-After, in its dialect's error body, rather than
// hanging for as long as the stall lasts; nothing it tried to write is committed, and once the bytes
// flow again the node serves as before, with everything it acknowledged in place.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createJsonClient, expectOk, type JsonClient } from '../support/json-client.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const skip = await skipUnlessPostgres();

/**
 * How long the test waits for any answer during the stall: well above the node's bound (2 s for a
 * connection, 2 s + 1 s for a statement's answer). A request still unanswered then is a request the
 * stall holds: the test fails on it.
 */
const ANSWER_WAIT_MS = 15_000;

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

interface Answer {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

describe('PostgreSQL stalls', { skip }, () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let server: ServerProcess;
  let client: JsonClient;
  let twilioAuth: string;

  before(async () => {
    database = await createTestDatabase('stall');
    const target = new URL(database.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    server = await startServerProcess({
      TWOFA_DATABASE_URL: proxy.via(database.url), TWOFA_DATABASE_POOL_SIZE: '2', TWOFA_LOG_LEVEL: 'warn',
      TWOFA_DATABASE_CONNECT_TIMEOUT: '2s', TWOFA_DATABASE_STATEMENT_TIMEOUT: '2s',
    }, { timeoutMs: 60_000 });
    client = createJsonClient(server.url, server.key);
    const me = expectOk(await client.get('/api/v1/me'), 'me');
    twilioAuth = `Basic ${Buffer.from(`${me.body.accountSid as string}:${server.key}`).toString('base64')}`;
  });
  after(async () => {
    proxy?.flow();
    if (server) assert.equal(await server.stop(), 0, server.output().slice(-2000));
    await proxy?.close();
    await database?.drop();
  });

  /** One request, answered within ANSWER_WAIT_MS or failing the test. */
  async function ask(what: string, path: string, init: { method?: string; body?: string; headers?: Record<string, string> }): Promise<Answer> {
    let response: Response;
    try {
      response = await fetch(`${server.url}${path}`, { method: init.method ?? 'GET', headers: init.headers ?? {}, signal: AbortSignal.timeout(ANSWER_WAIT_MS), ...(init.body !== undefined ? { body: init.body } : {}) });
    } catch (err) {
      throw new Error(`${what}: no answer within ${ANSWER_WAIT_MS} ms while the database stalled (${(err as Error).message})`);
    }
    const text = await response.text();
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: text === '' ? undefined : JSON.parse(text) };
  }

  const infobip = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body), headers: { authorization: `App ${server.key}`, 'content-type': 'application/json' } });
  const twilio = (form: Record<string, string>) => ({ method: 'POST', body: new URLSearchParams(form).toString(), headers: { authorization: twilioAuth, ...FORM } });

  it('answers 503 with Retry-After in every dialect\'s error body, none held by the stall, and loses nothing acknowledged', async () => {
    const app = await createAppAndTemplate(client, { sendPinPerPhoneNumberLimit: '100/1d' });
    const service = await ask('create a Twilio service', '/v2/Services', twilio({ FriendlyName: 'Stall' }));
    assert.equal(service.status, 201);
    const serviceSid = (service.body as { sid: string }).sid;

    const acknowledged: string[] = [];
    const sendInfobip = () => ask('Infobip send', '/2fa/2/pin', infobip({ ...app, to: `4179200${String(1000 + acknowledged.length)}` }));
    const sendTwilio = () => ask('Twilio verification', `/v2/Services/${serviceSid}/Verifications`, twilio({ To: `+4179300${String(1000 + acknowledged.length)}`, Channel: 'sms' }));
    for (const send of [sendInfobip, sendTwilio]) {
      const answer = await send();
      assert.ok(answer.status === 200 || answer.status === 201, `acknowledged before the stall: ${JSON.stringify(answer.body)}`);
      acknowledged.push(String((answer.body as { pinId?: string; sid?: string }).pinId ?? (answer.body as { sid: string }).sid));
    }
    const pinId = acknowledged[0]!;

    proxy.stall();
    // More requests than the pool has connections: some wait on a stalled statement, others for a connection.
    const [infobipSend, infobipVerify, twilioSend, twilioCheck, apiPins] = await Promise.all([
      sendInfobip(),
      ask('Infobip verify', `/2fa/2/pin/${pinId}/verify`, infobip({ pin: '000000' })),
      sendTwilio(),
      ask('Twilio check', `/v2/Services/${serviceSid}/VerificationCheck`, twilio({ To: '+41793001000', Code: '000000' })),
      ask('/api/v1 PIN', `/api/v1/pins/${pinId}`, { headers: { authorization: `App ${server.key}` } }),
    ]);
    proxy.flow();

    for (const [what, answer] of Object.entries({ infobipSend, infobipVerify, apiPins })) {
      assert.equal(answer.status, 503, `${what}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.retryAfter ?? '', /^[1-9][0-9]*$/, `${what}: Retry-After`);
      const { requestError } = answer.body as { requestError: { serviceException: { messageId: string; text: string } } };
      assert.deepEqual(Object.keys(answer.body as object), ['requestError']);
      assert.deepEqual(Object.keys(requestError), ['serviceException']);
      assert.deepEqual(Object.keys(requestError.serviceException).sort(), ['messageId', 'text']);
      assert.equal(requestError.serviceException.messageId, '0', `${what}: Infobip's messageId of a 503`);
      assert.doesNotMatch(requestError.serviceException.text, /select|insert|postgres|timeout|ECONN|at .*\.(ts|js):\d+/i, `${what}: no detail of the database`);
    }
    for (const [what, answer] of Object.entries({ twilioSend, twilioCheck })) {
      assert.equal(answer.status, 503, `${what}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.retryAfter ?? '', /^[1-9][0-9]*$/, `${what}: Retry-After`);
      const body = answer.body as { code: number; message: string; more_info: string; status: number };
      assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'more_info', 'status']);
      assert.equal(body.code, 20503);
      assert.equal(body.status, 503);
      assert.equal(body.more_info, 'https://www.twilio.com/docs/errors/20503');
    }

    // The database answers again: the node serves without a restart, and kept what it acknowledged.
    const deadline = Date.now() + 20_000;
    while ((await fetch(`${server.url}/readyz`)).status !== 200) {
      assert.ok(Date.now() < deadline, 'ready again once the database answers');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const after = await sendInfobip();
    assert.equal(after.status, 200, JSON.stringify(after.body));
    const afterPinId = (after.body as { pinId: string }).pinId;
    const { rows } = await database.query<{ id: string }>('select id from pins');
    const stored = new Set(rows.map((r) => r.id));
    assert.ok(stored.has(pinId) && stored.has(afterPinId), 'the acknowledged Infobip sends are stored');
    // The two acknowledged verifications and the one after: the sends answered 503 wrote nothing.
    assert.equal(rows.length, 3, 'no PIN of a send answered 503');
    const attempts = await database.query<{ attempts_left: number }>('select attempts_left from pins where id = $1', [pinId]);
    const fresh = await database.query<{ attempts_left: number }>('select attempts_left from pins where id = $1', [afterPinId]);
    assert.equal(attempts.rows[0]!.attempts_left, fresh.rows[0]!.attempts_left, 'the verify answered 503 counted no attempt');
  });
});
