// Routes on two nodes sharing PostgreSQL: the conversion counters the cheapest strategy reads are in
// the database, so PINs routed by one node and verified through the other are the figures both see.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, expectOk, pinFromText, type JsonClient } from '../support/json-client.js';
import { skipUnlessPostgres } from '../support/postgres.js';
import { startCluster, type Cluster } from './cluster.js';

const skip = await skipUnlessPostgres();

/** The PIN the local inbox of whichever node delivered it holds (log:// is each node's own). */
async function deliveredOnAnyNode(clients: JsonClient[], to: string, pinId: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    for (const client of clients) {
      const inbox = expectOk(await client.get(`/api/v1/inbox?to=${to}&limit=100`), 'inbox');
      const message = (inbox.body.messages as { pinId: string; text?: string }[]).find((m) => m.pinId === pinId);
      if (message) return pinFromText(message.text);
    }
    if (Date.now() > deadline) throw new Error(`PIN ${pinId} was not delivered`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('routes on two nodes sharing PostgreSQL', { skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster(2, {
      TWOFA_SMS_DSN: 'log://', TWOFA_RISK_DEFAULT_MODE: 'off',
      TWOFA_TRANSPORT_PRIMARY: 'log://', TWOFA_TRANSPORT_BACKUP: 'log://',
      TWOFA_ROUTES: JSON.stringify([{ name: 'france', channel: 'sms', countries: ['FR'], transports: ['primary', 'backup'], strategy: 'cheapest', minConversion: 0.5 }]),
    }, 'routes');
  });
  after(async () => {
    await cluster?.close();
  });

  it('counts what one node sent and the other verified, and every node reads the same figures', async () => {
    const [first, second] = cluster.clients as [JsonClient, JsonClient];
    const app = await createAppAndTemplate(first, {});
    for (let i = 0; i < 3; i++) {
      const to = `3361234560${i}`;
      const sent = expectOk(await first.post('/2fa/2/pin', { ...app, to }), 'send');
      const pin = await deliveredOnAnyNode(cluster.clients, to, sent.body.pinId as string);
      if (i < 2) expectOk(await second.post(`/2fa/2/pin/${sent.body.pinId as string}/verify`, { pin }), 'verify');
    }
    // Each node reads the shared counters (and keeps them for some seconds): the first to answer with
    // every PIN counted, then the other, whose first read comes after.
    const figures = async (client: JsonClient) => {
      const explained = expectOk(await client.get('/api/v1/routes/explain?channel=sms&to=33612345699'), 'explain');
      assert.equal(explained.body.rule.name, 'france');
      assert.match(explained.body.decision.reason, /no transport has 20 sends/);
      return explained.body.transports.map((t: { name: string; conversion: { sent: number; verified: number } }) => [t.name, t.conversion.sent, t.conversion.verified]);
    };
    const expected = [['primary', 3, 2], ['backup', 0, 0]];
    const deadline = Date.now() + 30_000;
    while (JSON.stringify(await figures(first)) !== JSON.stringify(expected) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(await figures(first), expected);
    assert.deepEqual(await figures(second), expected);
  });
});
