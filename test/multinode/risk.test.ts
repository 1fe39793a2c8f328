// The risk score on three nodes sharing PostgreSQL: its counters live in the database, so traffic
// spread over the nodes gets the decisions one node gives it; a mode set through one node is the mode
// on every node (risk_settings is configuration the nodes' caches are told about).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, expectOk, type JsonClient } from '../support/json-client.js';
import { skipUnlessPostgres } from '../support/postgres.js';
import { startCluster, type Cluster } from './cluster.js';

const skip = await skipUnlessPostgres();

/** Sends to 40 sequential numbers from `first`, request i through client i mod the clients; each answer's status. */
async function sequentialRun(clients: JsonClient[], app: { applicationId: string; messageId: string }, first: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 40; i += 1) {
    const r = await clients[i % clients.length]!.post('/2fa/2/pin', { ...app, to: `447400${String(first + i).padStart(6, '0')}` });
    statuses.push(r.status);
  }
  return statuses;
}

describe('the risk score on three nodes sharing PostgreSQL', { skip }, () => {
  let three: Cluster;
  let one: Cluster;
  before(async () => {
    three = await startCluster(3, { TWOFA_RISK_DEFAULT_MODE: 'enforce' }, 'risk-three');
    one = await startCluster(1, { TWOFA_RISK_DEFAULT_MODE: 'enforce' }, 'risk-one');
  });
  after(async () => {
    await three?.close();
    await one?.close();
  });

  it('gives traffic spread over three nodes the answers one node gives it', async () => {
    const spread = await sequentialRun(three.clients, await createAppAndTemplate(three.clients[0]!, { sendPinPerApplicationLimit: '100000/1d' }), 200000);
    const single = await sequentialRun(one.clients, await createAppAndTemplate(one.clients[0]!, { sendPinPerApplicationLimit: '100000/1d' }), 200000);
    assert.ok(spread.filter((s) => s === 403).length >= 20, `blocked: ${spread.join(',')}`);
    assert.deepEqual(spread, single);
  });

  it('a mode set through one node holds on the others at once', async () => {
    const app = await createAppAndTemplate(three.clients[0]!, { sendPinPerApplicationLimit: '100000/1d' });
    expectOk(await three.clients[1]!.put(`/api/v1/applications/${app.applicationId}/risk`, { mode: 'shadow' }), 'set shadow');
    const shadow = await sequentialRun(three.clients, app, 300000);
    assert.deepEqual(shadow.filter((s) => s !== 200), [], 'shadow mode refuses nothing on any node');
    expectOk(await three.clients[2]!.put(`/api/v1/applications/${app.applicationId}/risk`, { mode: 'enforce' }), 'set enforce');
    const enforced = await sequentialRun(three.clients, app, 300040);
    assert.ok([0, 1, 2].every((node) => enforced.some((s, i) => i % 3 === node && s === 403)), `every node blocks: ${enforced.join(',')}`);
  });
});
