// Budgets on three nodes sharing PostgreSQL: each send's charge is counted in its PIN's own statement,
// on the budget's counter row, so concurrent sends through every node stop exactly at the cap.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, expectOk } from '../support/json-client.js';
import { skipUnlessPostgres } from '../support/postgres.js';
import { startCluster, type Cluster } from './cluster.js';

const skip = await skipUnlessPostgres();

describe('budgets on three nodes sharing PostgreSQL', { skip }, () => {
  let cluster: Cluster;
  let dir: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-budgets-'));
    const prices = path.join(dir, 'prices.csv');
    // The nodes' SMS go out through webhook+http (the cluster's receiver): 0.05 EUR a message to the UK.
    fs.writeFileSync(prices, 'transport,country,prefix,price,currency\nwebhook,GB,,0.0500,EUR\n');
    cluster = await startCluster(3, { TWOFA_PRICES_FILE: prices }, 'budgets');
  });
  after(async () => {
    await cluster?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('admits exactly the sends that fit under the cap, whichever node they reach', async () => {
    const [first] = cluster.clients;
    const app = await createAppAndTemplate(first!, { sendPinPerApplicationLimit: '100000/1d' });
    expectOk(await first!.put(`/api/v1/applications/${app.applicationId}/budget`, { currency: 'EUR', daily: '1.00' }), 'set the budget');
    // 60 sends at once, spread over the three nodes: 1.00 EUR holds 20 of them.
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) =>
      cluster.clients[i % 3]!.post('/2fa/2/pin', { ...app, to: `447400${String(900000 + i)}` })));
    const statuses = answers.map((a) => a.status);
    assert.equal(statuses.filter((s) => s === 200).length, 20, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, 40, statuses.join(','));
    for (const refused of answers.filter((a) => a.status === 429)) {
      assert.match((refused.body as { requestError: { serviceException: { text: string } } }).requestError.serviceException.text, /^Budget exceeded: /);
    }
    for (const client of cluster.clients) {
      const budget = await client.get(`/api/v1/applications/${app.applicationId}/budget`);
      assert.equal((budget.body as { spent: { daily: string } }).spent.daily, '1.0000');
    }
    // Every admitted send became a PIN and a message; no refused one left anything behind.
    const pins = await first!.get(`/api/v1/pins?applicationId=${app.applicationId}&limit=100`);
    assert.equal((pins.body as { pins: unknown[] }).pins.length, 20);
  });
});
