// A provider's rate shared by several nodes: three `twofa serve` processes on one PostgreSQL database
// send SMS to one provider stand-in through a DSN with max_tps_global. Each node counts the live nodes
// (their connections, named after their ids) and holds a third of the rate; together they never start
// more than the global rate within a second, and every message arrives.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CountingProvider } from '../delivery/peers/counting-provider.js';
import { createAppAndTemplate, expectOk, type JsonClient } from '../support/json-client.js';
import { skipUnlessPostgres } from '../support/postgres.js';
import { startCluster, type Cluster } from './cluster.js';

const skip = await skipUnlessPostgres();
const GLOBAL_TPS = 30;

/** The value of a gauge on one node's /metrics (labels as written there), or undefined. */
async function gauge(client: JsonClient, name: string, labels: string): Promise<number | undefined> {
  const text = (await client.get('/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('max_tps_global shared by three nodes', { skip }, () => {
  let cluster: Cluster;
  let provider: CountingProvider;
  before(async () => {
    provider = await new CountingProvider(5).start();
    cluster = await startCluster(3, { TWOFA_SMS_DSN: provider.dsn(`max_tps_global=${GLOBAL_TPS}&max_in_flight=50`) }, 'global_rate');
  });
  after(async () => {
    await cluster?.close();
    await provider?.stop();
  });

  it('each node holds a third of the rate, and together they never exceed it', async () => {
    const { clients } = cluster;
    // Each node takes its share once it has counted the others (bounded wait, not a timing claim).
    for (const client of clients) {
      let share: number | undefined;
      for (let i = 0; i < 200 && share !== GLOBAL_TPS / 3; i++) {
        share = await gauge(client, 'twofa_transport_max_tps', 'transport="webhook"');
        if (share !== GLOBAL_TPS / 3) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(share, GLOBAL_TPS / 3, 'a third of the global rate');
    }
    const app = await createAppAndTemplate(clients[0]!, { sendPinPerApplicationLimit: '1000/1d' });
    const pinIds: string[] = [];
    for (let i = 0; i < 90; i++) {
      const sent = expectOk(await clients[i % 3]!.post('/2fa/2/pin', { ...app, to: `417931${String(10000 + i)}` }), 'send');
      pinIds.push(sent.body.pinId as string);
    }
    for (let i = 0; i < 600 && provider.accepted.length < pinIds.length; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual([...new Set(provider.accepted)].sort(), [...pinIds].sort(), 'every message arrived');
    // Counted over a little less than a second: loopback may deliver two requests closer together than they were sent.
    assert.ok(provider.mostWithin(950) <= GLOBAL_TPS, `at most ${GLOBAL_TPS} within a second from the three nodes together, saw ${provider.mostWithin(950)}`);
  });
});
