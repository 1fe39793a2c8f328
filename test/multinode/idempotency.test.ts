// Idempotency-Key across three nodes on one PostgreSQL: concurrent repeats of one request spread over
// the nodes run it once (one PIN, one delivery); every other answer is a 409 or the replayed answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, expectOk } from '../support/json-client.js';
import { skipUnlessPostgres } from '../support/postgres.js';
import { startCluster, type Cluster } from './cluster.js';

const skip = await skipUnlessPostgres();

describe('Idempotency-Key on three nodes sharing PostgreSQL', { skip }, () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster(3, {}, 'idempotency'); });
  after(async () => { await cluster?.close(); });

  it('5 × 30 concurrent repeats of a send over 3 nodes: one PIN, one delivery, then replays of its answer', async () => {
    const clients = cluster.clients;
    const { applicationId, messageId } = await createAppAndTemplate(clients[0]!, { sendPinPerPhoneNumberLimit: '1000/1d' });
    for (let trial = 0; trial < 5; trial += 1) {
      const to = `4179630${String(1000 + trial).padStart(4, '0')}`;
      const key = `multinode-${process.pid}-${trial}`;
      const send = (i: number) => clients[i % 3]!.post('/2fa/2/pin', { applicationId, messageId, to }, { headers: { 'idempotency-key': key } });
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => send(i)));
      const ok = answers.filter((a) => a.status === 200);
      assert.ok(ok.length >= 1, `trial ${trial}: ${answers.map((a) => a.status).join(' ')}`);
      assert.deepEqual(answers.filter((a) => a.status !== 200).map((a) => a.status).filter((s) => s !== 409), [], `trial ${trial}: only 200 or 409`);
      const pinIds = new Set(ok.map((a) => a.body.pinId as string));
      assert.equal(pinIds.size, 1, `trial ${trial}: one PIN`);
      const [pinId] = pinIds;
      await cluster.receiver.waitForDeliveries([pinId!], 10_000);
      const repeats = await Promise.all([0, 1, 2].map((i) => send(i)));
      for (const repeat of repeats) {
        expectOk(repeat, 'replay');
        assert.equal(repeat.headers.get('idempotent-replayed'), 'true');
        assert.equal(repeat.body.pinId, pinId);
      }
      assert.equal(cluster.receiver.deliveries.filter((d) => d.to === to).length, 1, `trial ${trial}: one delivery`);
    }
  });
});
