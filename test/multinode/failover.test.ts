// A node killed (SIGKILL) mid-delivery: while it lives, it renews the leases of the messages it is
// delivering, so no other node sends them however long the provider takes; once it is dead they stay
// leased to it until the lease (TWOFA_DELIVERY_LEASE, 3 s here) runs out, then the other nodes deliver
// them, once each, under the same webhook-id, so a provider that deduplicates on it never sends the PIN twice.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, expectOk } from '../support/json-client.js';
import { skipUnlessPostgres } from '../support/postgres.js';
import { startCluster, type Cluster } from './cluster.js';

const skip = await skipUnlessPostgres();
const LEASE_MS = 3000;

describe('a node dies mid-delivery', { skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster(3, { TWOFA_DELIVERY_LEASE: `${LEASE_MS}ms` }, 'failover');
  });
  after(async () => {
    await cluster?.close();
  });

  it('its claimed messages are delivered by another node once its lease has run out, each exactly once', async (t) => {
    const { receiver, clients } = cluster;
    const victim = cluster.name(0);
    // The provider takes the victim's requests and never answers: they are in flight when it dies.
    receiver.hold(victim);
    const app = await createAppAndTemplate(clients[0]!, { sendPinPerApplicationLimit: '1000/1d' });
    const pinIds: string[] = [];
    // Sent through the victim, whose worker is woken at once (in process); the other nodes' workers,
    // woken by the commit's NOTIFY, race it for each message, and on a loaded machine an idle node
    // may win many in a row. What this test is about starts once the victim holds some: so it sends
    // until the victim has deliveries in flight (12 at least, 120 at most).
    for (let i = 0; i < 120 && (i < 12 || receiver.held().length === 0); i += 1) {
      const sent = expectOk(await clients[0]!.post('/2fa/2/pin', { ...app, to: `417930${String(10000 + i)}` }), 'send');
      pinIds.push(sent.body.pinId as string);
      if (i >= 12) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Wait until every message is either delivered by another node or in flight from the victim.
    const deadline = Date.now() + 15_000;
    const settled = () => pinIds.every((id) => receiver.acceptedFor(id).length > 0 || receiver.held().some((d) => d.pinId === id));
    while (!settled()) {
      assert.ok(Date.now() < deadline, 'timed out after 15 s waiting for every message to be claimed by some node');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const inFlight = receiver.held();
    assert.ok(inFlight.length > 0, 'the victim had claimed messages in flight');
    // Longer than a lease (and shorter than the webhook transport's 10 s timeout): the victim's
    // heartbeat keeps its claims, so no other node has sent any of them meanwhile.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 1.5));
    for (const held of receiver.held()) assert.deepEqual(receiver.acceptedFor(held.pinId), [], `PIN ${held.pinId} stays with the node delivering it`);

    process.kill(cluster.nodes[0]!.pid, 'SIGKILL');
    const killedAt = Date.now();
    assert.equal(await cluster.nodes[0]!.stop(), null, 'the victim died of the signal');

    // A safety net, ten times the lease: the takeover itself is a lease and a poll after the kill.
    await receiver.waitForDeliveries(pinIds, LEASE_MS * 10);
    // A figure, not a gate: on a loaded machine a poll can come late.
    t.diagnostic(`taken over ${Date.now() - killedAt} ms after the kill (lease ${LEASE_MS} ms)`);
    for (const lost of inFlight) {
      const accepted = receiver.acceptedFor(lost.pinId);
      assert.equal(accepted.length, 1, `PIN ${lost.pinId} delivered once`);
      assert.notEqual(accepted[0]!.node, victim, 'by another node');
      assert.equal(accepted[0]!.webhookId, lost.webhookId, 'under the same webhook-id as the attempt that died');
    }
    for (const id of pinIds) assert.equal(receiver.acceptedFor(id).length, 1, `PIN ${id} delivered exactly once`);

    // The survivors recorded the deliveries: every message done after two attempts at most, every PIN sent.
    const recorded = () => cluster.database.query<{ pin_id: string; state: string; attempts: number; delivery_status: string }>(
      'select id as pin_id, message_state as state, message_attempts as attempts, delivery_status from pins where id = any($1)', [pinIds]);
    let rows = await recorded();
    // The provider's answer comes a moment before the node records it.
    for (let i = 0; i < 100 && rows.rows.some((r) => r.state !== 'done'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rows = await recorded();
    }
    assert.equal(rows.rows.length, pinIds.length);
    for (const row of rows.rows) {
      assert.equal(row.state, 'done');
      assert.equal(row.delivery_status, 'sent');
      const diedWithIt = inFlight.some((d) => d.pinId === row.pin_id);
      assert.equal(row.attempts, diedWithIt ? 2 : 1, `attempts of ${row.pin_id}`);
    }
  });
});
