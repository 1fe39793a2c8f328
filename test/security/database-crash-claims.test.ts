// PostgreSQL goes away right after a delivery claim committed on it, before the node read the claim's
// answer (issue 23, item 15). First through a TCP proxy to the node's own test database, which the test
// stalls (the claim reaches the server and commits, its answer is held) and then cuts, as a crash does
// to every connection; then with a cluster of the test's own, killed with SIGKILL and started again.
// The claim's leases are this node's and nobody else's: with a lease of 60 s, a message left to wait
// out its lease would not arrive within this test's bounded waits (20 s). The node must take its own
// leases back once the database answers again and deliver the message.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startWebhookReceiver, type WebhookReceiver } from '../multinode/cluster.js';
import { createAppAndTemplate, createJsonClient, expectOk, type JsonClient } from '../support/json-client.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { skipUnlessThrowawayPostgres, startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwaway-postgres.js';

const skip = await skipUnlessPostgres();

const NODE_ID = 'crash-claims-node';
/** The test's bound on the redelivery: far below the lease, so a message that waits it out fails the test. */
const REDELIVERY_WAIT_MS = 20_000;

/** A PIN sent and delivered, its outcome recorded: a message that can be made due again. */
async function deliveredPin(client: JsonClient, app: { applicationId: string; messageId: string }, receiver: WebhookReceiver, query: Query, n: number): Promise<string> {
  const sent = expectOk(await client.post('/2fa/2/pin', { ...app, to: `4179200${String(1000 + n)}` }), 'send');
  const pinId = sent.body.pinId as string;
  await receiver.waitForDeliveries([pinId], 15_000);
  await waitFor('the delivery to be recorded', 15_000, async () => (await messageOf(query, pinId)).message_state === 'done' || undefined);
  return pinId;
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

type Query = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

/** The node's view of a PIN's own message, read past the proxy (or straight from the cluster). */
async function messageOf(query: Query, pinId: string) {
  const { rows } = await query<{ message_state: string; message_attempts: number; message_lease_holder: string | null; message_lease_until: string }>(
    'select message_state, message_attempts, message_lease_holder, message_lease_until from pins where id = $1', [pinId]);
  return rows[0]!;
}

/** Makes the PIN's message due again now, as a retry the worker scheduled would be; answers its attempts so far. */
async function makeDue(query: Query, pinId: string): Promise<number> {
  const { rows } = await query<{ message_attempts: number }>(
    `update pins set message_state = 'pending', message_due_at = $2, message_lease_until = 0, message_lease_holder = null where id = $1 returning message_attempts`,
    [pinId, Date.now()]);
  return rows[0]!.message_attempts;
}

/** Waits until the node's claim of the message committed on the server. */
async function claimCommitted(query: Query, pinId: string, attemptsBefore: number): Promise<void> {
  await waitFor('the claim to commit', 15_000, async () => {
    const message = await messageOf(query, pinId);
    return (message.message_lease_holder === NODE_ID && message.message_attempts > attemptsBefore && Number(message.message_lease_until) > Date.now()) || undefined;
  });
}

/** A connection that holds an exclusive lock on the outbox table: the claim of later messages waits on it while the claim of first messages commits. */
async function lockOutbox(url: string): Promise<pg.Client> {
  const locker = new pg.Client({ connectionString: url });
  locker.on('error', () => undefined);
  await locker.connect();
  await locker.query('begin');
  await locker.query('lock table outbox in access exclusive mode');
  return locker;
}

const webhookDsn = (receiver: WebhookReceiver) => `webhook+http://127.0.0.1:${receiver.port}/crash?secret=whsec_${randomBytes(32).toString('base64').replace(/\+/g, 'A')}`;

describe('PostgreSQL lost right after a delivery claim committed', { skip }, () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let receiver: WebhookReceiver;
  let server: ServerProcess;
  let client: JsonClient;
  let app: { applicationId: string; messageId: string };
  let phone = 0;

  before(async () => {
    database = await createTestDatabase('crash_claims');
    const target = new URL(database.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    receiver = await startWebhookReceiver();
    server = await startServerProcess({
      TWOFA_DATABASE_URL: proxy.via(database.url), TWOFA_DATABASE_POOL_SIZE: '4', TWOFA_LOG_LEVEL: 'warn', TWOFA_NODE_ID: NODE_ID,
      TWOFA_DELIVERY_LEASE: '60s',
      TWOFA_SMS_DSN: webhookDsn(receiver),
    }, { timeoutMs: 60_000 });
    client = createJsonClient(server.url, server.key);
    app = await createAppAndTemplate(client, { sendPinPerPhoneNumberLimit: '100/1d' });
  });
  after(async () => {
    proxy?.flow();
    await proxy?.resume();
    if (server) assert.equal(await server.stop(), 0, server.output().slice(-2000));
    await proxy?.close();
    await receiver?.close();
    await database?.drop();
  });

  const query: Query = (text, values) => database.query(text, values);

  /** Every connection cut and new ones refused for a moment, then the database is back. */
  async function crashAndReturn(whileDown: () => Promise<void> = async () => undefined): Promise<void> {
    await proxy.pause();
    proxy.flow();
    await whileDown();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await proxy.resume();
  }

  it('a claim whose answer was lost with the database is delivered once it is back, not after its lease', async () => {
    const pinId = await deliveredPin(client, app, receiver, query, (phone += 1));
    const deliveriesBefore = receiver.acceptedFor(pinId).length;
    // From here the server gets every statement but the node gets no answer: the claim commits unseen.
    proxy.stall({ repliesOnly: true });
    const attemptsBefore = await makeDue(query, pinId);
    await claimCommitted(query, pinId, attemptsBefore);
    await crashAndReturn();
    await waitFor('the message to be delivered again', REDELIVERY_WAIT_MS, () => receiver.acceptedFor(pinId).length > deliveriesBefore || undefined);
    await waitFor('the delivery to be recorded', 15_000, async () => (await messageOf(query, pinId)).message_state === 'done' || undefined);
    // Nothing else delivered it meanwhile: once, and recorded as sent.
    assert.equal(receiver.acceptedFor(pinId).length, deliveriesBefore + 1, 'delivered exactly once after the crash');
  });

  it('a claim that committed while its sibling statement failed is delivered, not dropped', async () => {
    const pinId = await deliveredPin(client, app, receiver, query, (phone += 1));
    const deliveriesBefore = receiver.acceptedFor(pinId).length;
    // The claim of later messages waits on the lock while the claim of first messages (the PIN's own)
    // commits and answers; the crash then fails the waiting one.
    const locker = await lockOutbox(database.url);
    try {
      const attemptsBefore = await makeDue(query, pinId);
      await claimCommitted(query, pinId, attemptsBefore);
      await crashAndReturn(() => locker.query('rollback').then(() => undefined));
    } finally {
      await locker.end().catch(() => undefined);
    }
    await waitFor('the message to be delivered again', REDELIVERY_WAIT_MS, () => receiver.acceptedFor(pinId).length > deliveriesBefore || undefined);
    await waitFor('the delivery to be recorded', 15_000, async () => (await messageOf(query, pinId)).message_state === 'done' || undefined);
    // Handed over although the database went away: its outcome is recorded once it is back, not sent again.
    assert.equal(receiver.acceptedFor(pinId).length, deliveriesBefore + 1, 'delivered exactly once after the crash');
  });

  it('a message delivered while the database is away is recorded once it is back, not sent again', async () => {
    const pinId = await deliveredPin(client, app, receiver, query, (phone += 1));
    const deliveriesBefore = receiver.acceptedFor(pinId).length;
    receiver.hold('crash');
    await makeDue(query, pinId);
    await waitFor('the delivery to reach the provider', 15_000, () => receiver.held().some((d) => d.pinId === pinId) || undefined);
    // The provider accepts the message just as the database goes away: its outcome cannot be written yet.
    await crashAndReturn(async () => receiver.answerHeld('crash'));
    await waitFor('the delivery to be recorded', REDELIVERY_WAIT_MS, async () => (await messageOf(query, pinId)).message_state === 'done' || undefined);
    assert.equal(receiver.acceptedFor(pinId).length, deliveriesBefore + 1, 'delivered once: recorded, not sent again');
  });
});

describe('PostgreSQL killed with SIGKILL right after a delivery claim committed', { skip: skip || skipUnlessThrowawayPostgres() }, () => {
  let cluster: ThrowawayPostgres;
  let receiver: WebhookReceiver;
  let server: ServerProcess;
  let client: JsonClient;
  let app: { applicationId: string; messageId: string };
  const query: Query = async (text, values) => {
    const direct = new pg.Client({ connectionString: cluster.url, connectionTimeoutMillis: 5000 });
    direct.on('error', () => undefined);
    await direct.connect();
    try {
      return await direct.query(text, values);
    } finally {
      await direct.end().catch(() => undefined);
    }
  };

  before(async () => {
    cluster = await startThrowawayPostgres();
    receiver = await startWebhookReceiver();
    server = await startServerProcess({
      TWOFA_DATABASE_URL: cluster.url, TWOFA_DATABASE_POOL_SIZE: '4', TWOFA_LOG_LEVEL: 'warn', TWOFA_NODE_ID: NODE_ID,
      TWOFA_DELIVERY_LEASE: '60s', TWOFA_SMS_DSN: webhookDsn(receiver),
    }, { timeoutMs: 60_000 });
    client = createJsonClient(server.url, server.key);
    app = await createAppAndTemplate(client, { sendPinPerPhoneNumberLimit: '100/1d' });
  });
  after(async () => {
    if (server) assert.equal(await server.stop(), 0, server.output().slice(-2000));
    await receiver?.close();
    await cluster?.destroy();
  });

  it('a message claimed just before the crash is delivered once the cluster is back, not after its lease', async () => {
    const pinId = await deliveredPin(client, app, receiver, query, 500);
    const deliveriesBefore = receiver.acceptedFor(pinId).length;
    const locker = await lockOutbox(cluster.url);
    try {
      const attemptsBefore = await makeDue(query, pinId);
      await claimCommitted(query, pinId, attemptsBefore);
      await cluster.kill();
    } finally {
      await locker.end().catch(() => undefined);
    }
    await cluster.start();
    await waitFor('the message to be delivered again', REDELIVERY_WAIT_MS, () => receiver.acceptedFor(pinId).length > deliveriesBefore || undefined);
    await waitFor('the delivery to be recorded', 15_000, async () => (await messageOf(query, pinId)).message_state === 'done' || undefined);
    assert.equal(receiver.acceptedFor(pinId).length, deliveriesBefore + 1, 'delivered exactly once after the crash');
  });
});
