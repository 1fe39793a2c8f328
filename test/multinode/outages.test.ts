// A node whose PostgreSQL (or Redis) goes away and comes back, as in a restart or failover: the node
// never crashes, answers 503 with Retry-After (database) or 500 (Redis) envelopes and /readyz 503
// meanwhile, and serves again by itself, its LISTEN connection included. The database and Redis are reached through TCP proxies the test cuts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createJsonClient, expectOk, waitForInboxMessage, type JsonClient } from '../support/json-client.js';
import { createTestDatabase, skipUnlessPostgres, skipUnlessRedis, TEST_REDIS_URL, type TestDatabase } from '../support/postgres.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const skip = (await skipUnlessPostgres()) || (await skipUnlessRedis());

async function eventually(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}

describe('a node through database and Redis outages', { skip }, () => {
  let database: TestDatabase;
  let databaseProxy: TcpProxy;
  let redisProxy: TcpProxy;
  let server: ServerProcess;
  let client: JsonClient;
  let app: { applicationId: string; messageId: string };
  let phone = 0;
  const to = () => `4179310${String(1000 + (phone += 1))}`;
  const readyz = async () => (await fetch(`${server.url}/readyz`)).status;
  const alive = async () => (await fetch(`${server.url}/healthz`)).status === 200;

  before(async () => {
    database = await createTestDatabase('outage');
    const pgTarget = new URL(database.url);
    databaseProxy = await startTcpProxy({ host: pgTarget.hostname, port: Number(pgTarget.port || 5432) });
    const redisTarget = new URL(TEST_REDIS_URL);
    redisProxy = await startTcpProxy({ host: redisTarget.hostname, port: Number(redisTarget.port || 6379) });
    server = await startServerProcess({
      TWOFA_DATABASE_URL: databaseProxy.via(database.url), TWOFA_REDIS_URL: redisProxy.via(TEST_REDIS_URL), TWOFA_NODE_ID: 'outage-node', TWOFA_DATABASE_POOL_SIZE: '4',
    });
    client = createJsonClient(server.url, server.key);
    app = await createAppAndTemplate(client, { sendPinPerPhoneNumberLimit: '100/1d', verifyPinLimit: '100/1s' });
  });

  after(async () => {
    await databaseProxy?.resume();
    await redisProxy?.resume();
    if (server) assert.equal(await server.stop(), 0, `the node exits cleanly after the outages\n${server.output().slice(-3000)}`);
    await databaseProxy?.close();
    await redisProxy?.close();
    await database?.drop();
  });

  it('PostgreSQL gone: 503 envelopes with Retry-After and /readyz 503, no crash; back: ready and delivering again by itself', async () => {
    expectOk(await client.post('/2fa/2/pin', { ...app, to: to() }), 'send before the outage');
    assert.equal(await readyz(), 200);

    await databaseProxy.pause();
    await eventually('/readyz to fail', 5000, async () => (await readyz()) === 503);
    const body = await (await fetch(`${server.url}/readyz`)).json();
    assert.deepEqual(body, { status: 'database unreachable' });
    const refused = await client.post('/2fa/2/pin', { ...app, to: to() });
    assert.equal(refused.status, 503);
    assert.equal(refused.body.requestError.serviceException.messageId, '0');
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
    // Long enough for the worker's polls, the purge and the LISTEN connection to fail a few times.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.ok(await alive(), 'the process is still alive');

    await databaseProxy.resume();
    await eventually('/readyz to recover', 15_000, async () => (await readyz()) === 200);
    const number = to();
    const sent = expectOk(await client.post('/2fa/2/pin', { ...app, to: number }), 'send after the outage');
    await waitForInboxMessage(client, number, sent.body.pinId as string, { timeoutMs: 10_000 });
    await eventually('the LISTEN connection to come back', 20_000, async () => server.output().includes('listening for database notifications again'));
    assert.match(server.output(), /database notifications lost; reconnecting/);
  });

  it('Redis gone: sends and verifies answer 500 and /readyz 503, no crash; back: served again', async () => {
    const number = to();
    const sent = expectOk(await client.post('/2fa/2/pin', { ...app, to: number }), 'send before the outage');
    await waitForInboxMessage(client, number, sent.body.pinId as string);

    await redisProxy.pause();
    await eventually('/readyz to fail', 5000, async () => (await readyz()) === 503);
    assert.equal((await client.post('/2fa/2/pin', { ...app, to: to() })).status, 500);
    assert.equal((await client.post(`/2fa/2/pin/${sent.body.pinId}/verify`, { pin: '000000' })).status, 500);
    assert.ok(await alive());

    await redisProxy.resume();
    await eventually('/readyz to recover', 10_000, async () => (await readyz()) === 200);
    expectOk(await client.post('/2fa/2/pin', { ...app, to: to() }), 'send after the outage');
    assert.match(server.output(), /Redis unreachable/);
  });
});
