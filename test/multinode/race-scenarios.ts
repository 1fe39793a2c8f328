// The race gates of issue 2, across three nodes on one PostgreSQL: concurrent requests spread round-
// robin over the nodes, and every guarantee holds as on one node. Written once, run with the limits
// counted in the database (races.test.ts) and in Redis (races-redis.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, expectOk, type JsonClient, type JsonResponse } from '../support/json-client.js';
import { startCluster, type Cluster } from './cluster.js';

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

const outcome = (r: JsonResponse) => `${r.status} ${r.body?.pinError ?? r.body?.requestError?.serviceException?.messageId ?? (r.body?.verified === true ? 'verified' : '')}`;

function wrongPinFor(pin: string): string {
  return `${pin.slice(0, -1)}${(Number(pin.at(-1)) + 1) % 10}`;
}

/** n requests at once, request i sent to node i mod 3. */
function acrossNodes<T>(clients: JsonClient[], n: number, request: (client: JsonClient, i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => request(clients[i % clients.length]!, i)));
}

export interface RaceOptions {
  trials: number;
  /** Environment of every node on top of the cluster's. */
  env?: Record<string, string>;
  /** Where the limits are counted: the database's bucket table fills, or stays empty (Redis). */
  limitsIn: 'database' | 'redis';
  label: string;
}

export function describeRaces(title: string, options: RaceOptions): void {
  describe(title, () => {
    let cluster: Cluster;
    let clients: JsonClient[];
    /** Every send a node acknowledged with 200 during the whole file. */
    const acknowledged = new Set<string>();
    let phone = 0;
    const freshPhone = () => `4179${options.limitsIn === 'redis' ? 5 : 4}${String(100000 + (phone += 1)).padStart(6, '0')}`;

    const send = async (client: JsonClient, body: Record<string, unknown>) => {
      const response = await client.post('/2fa/2/pin', body);
      if (response.status === 200) acknowledged.add(response.body.pinId as string);
      return response;
    };

    /** The nodes' error log lines, to explain an unexpected 500 in a failure message. */
    const errors = () => cluster.nodes.flatMap((n) => n.output().split('\n').filter((l) => l.includes('"level":50'))).slice(-5).join('\n');

    before(async () => {
      cluster = await startCluster(3, options.env ?? {}, options.label);
      clients = cluster.clients;
    });

    after(async () => {
      await cluster?.close();
    });

    it(`${options.trials} × 200 concurrent wrong verifies spread over 3 nodes count exactly pinAttempts (5)`, async () => {
      const { applicationId, messageId } = await createAppAndTemplate(clients[0]!, { pinAttempts: 5, verifyPinLimit: '10000/1s', sendPinPerPhoneNumberLimit: '1000/1d' });
      for (let trial = 0; trial < options.trials; trial += 1) {
        const to = freshPhone();
        const sent = expectOk(await send(clients[trial % 3]!, { applicationId, messageId, to }), 'send');
        const pinId = sent.body.pinId as string;
        const pin = await cluster.receiver.pinFor(pinId);
        const answers = await acrossNodes(clients, 200, (c) => c.post(`/2fa/2/pin/${pinId}/verify`, { pin: wrongPinFor(pin) }));
        assert.deepEqual(countBy(answers, outcome), { '200 WRONG_PIN': 5, '200 NO_MORE_PIN_ATTEMPTS': 195 }, `trial ${trial}\n${errors()}`);
        const remaining = answers.filter((a) => a.body.pinError === 'WRONG_PIN').map((a) => a.body.attemptsRemaining as number).sort();
        assert.deepEqual(remaining, [0, 1, 2, 3, 4], `trial ${trial}: no attempt counted twice`);
        const right = await clients[(trial + 1) % 3]!.post(`/2fa/2/pin/${pinId}/verify`, { pin });
        assert.deepEqual(right.body, { pinId, msisdn: to, verified: false, attemptsRemaining: 0, pinError: 'NO_MORE_PIN_ATTEMPTS' });
      }
    });

    it(`${options.trials} × 100 concurrent right verifies over 3 nodes, without allowMultiplePinVerifications: exactly one succeeds`, async () => {
      const { applicationId, messageId } = await createAppAndTemplate(clients[1]!, {
        pinAttempts: 1000, allowMultiplePinVerifications: false, verifyPinLimit: '10000/1s', sendPinPerPhoneNumberLimit: '1000/1d',
      });
      for (let trial = 0; trial < options.trials; trial += 1) {
        const to = freshPhone();
        const sent = expectOk(await send(clients[trial % 3]!, { applicationId, messageId, to }), 'send');
        const pinId = sent.body.pinId as string;
        const pin = await cluster.receiver.pinFor(pinId);
        const answers = await acrossNodes(clients, 100, (c) => c.post(`/2fa/2/pin/${pinId}/verify`, { pin }));
        assert.deepEqual(countBy(answers, outcome), { '200 verified': 1, '200 ALREADY_VERIFIED': 99 }, `trial ${trial}\n${errors()}`);
      }
    });

    it(`${options.trials} × 100 concurrent sends to one number over 3 nodes accept exactly sendPinPerPhoneNumberLimit (10)`, async () => {
      const { applicationId, messageId } = await createAppAndTemplate(clients[2]!, { sendPinPerPhoneNumberLimit: '10/1d', sendPinPerApplicationLimit: '100000/1d' });
      for (let trial = 0; trial < options.trials; trial += 1) {
        const to = freshPhone();
        const answers = await acrossNodes(clients, 100, (c) => send(c, { applicationId, messageId, to }));
        assert.deepEqual(countBy(answers, outcome), { '200 ': 10, '429 TOO_MANY_REQUESTS': 90 }, `trial ${trial}\n${errors()}`);
        for (const a of answers.filter((x) => x.status === 429)) assert.match(a.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
      }
    });

    it('60 concurrent sends to 60 numbers over 3 nodes accept exactly sendPinPerApplicationLimit (7); verifyPinLimit 3/1m admits 3 of 30 verifies', async () => {
      const limited = await createAppAndTemplate(clients[0]!, { sendPinPerApplicationLimit: '7/1d' });
      const sends = await acrossNodes(clients, 60, (c) => send(c, { ...limited, to: freshPhone() }));
      assert.deepEqual(countBy(sends, outcome), { '200 ': 7, '429 TOO_MANY_REQUESTS': 53 });

      const verifyLimited = await createAppAndTemplate(clients[1]!, { verifyPinLimit: '3/1m', pinAttempts: 10 });
      const sent = expectOk(await send(clients[2]!, { ...verifyLimited, to: freshPhone() }), 'send');
      const pin = await cluster.receiver.pinFor(sent.body.pinId as string);
      const verifies = await acrossNodes(clients, 30, (c) => c.post(`/2fa/2/pin/${sent.body.pinId}/verify`, { pin: wrongPinFor(pin) }));
      assert.deepEqual(countBy(verifies, outcome), { '200 WRONG_PIN': 3, '429 TOO_MANY_REQUESTS': 27 });
    });

    it('every acknowledged send is delivered exactly once (150 more concurrent sends over 3 nodes), by whichever node is free', async () => {
      const app = await createAppAndTemplate(clients[0]!, { sendPinPerApplicationLimit: '100000/1d' });
      const answers = await acrossNodes(clients, 150, (c) => send(c, { ...app, to: freshPhone() }));
      assert.equal(answers.filter((a) => a.status === 200).length, 150);

      await cluster.receiver.waitForDeliveries(acknowledged, 30_000);
      // A duplicate would come after the first delivery: give one a moment to show up.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const deliveries = cluster.receiver.deliveries;
      const byWebhookId = countBy(deliveries, (d) => d.webhookId);
      const repeated = Object.entries(byWebhookId).filter(([, n]) => n > 1);
      assert.deepEqual(repeated, [], 'no outbox row was delivered twice');
      for (const pinId of acknowledged) assert.equal(cluster.receiver.acceptedFor(pinId).length, 1, `PIN ${pinId} delivered once`);
      assert.deepEqual(deliveries.filter((d) => !acknowledged.has(d.pinId)), [], 'nothing delivered that was not acknowledged');
      assert.ok(acknowledged.size >= 150 + 3 * options.trials * 2);

      const perNode = countBy(deliveries, (d) => d.node);
      assert.ok(Object.keys(perNode).length >= 2, `deliveries are shared by the nodes: ${JSON.stringify(perNode)}`);

      const buckets = await cluster.database.query<{ n: string }>('select count(*) as n from rate_limit_buckets');
      if (options.limitsIn === 'redis') assert.equal(Number(buckets.rows[0]?.n), 0, 'with TWOFA_REDIS_URL the database counts no limit');
      else assert.ok(Number(buckets.rows[0]?.n) > 0);
    });
  });
}
