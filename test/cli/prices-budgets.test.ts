// twofa prices / budget / spend against a real `twofa serve`, and the price list read again on SIGHUP.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, startServerProcess, type ServerProcess } from '../support/server-process.js';

describe('twofa prices, budget and spend', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-cli-prices-'));
  const prices = path.join(dir, 'prices.csv');
  let server: ServerProcess;
  let env: Record<string, string>;
  before(async () => {
    fs.writeFileSync(prices, 'transport,country,prefix,price,currency\nlog,CH,,0.0500,EUR\n');
    server = await startServerProcess({ TWOFA_PRICES_FILE: prices });
    env = { TWOFA_API_KEY: server.key };
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const cli = async (...args: string[]) => runCli([...args, '--url', server.url], env);

  it('checks a file offline, naming every bad line', async () => {
    const bad = path.join(dir, 'bad.csv');
    fs.writeFileSync(bad, 'log,CH,,0.05,EUR\nlog,Switzerland,,0.05,EUR\nlog,CH,,5 cents,EUR\n');
    const refused = await runCli(['prices', 'check', bad], {});
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /line 2: country "Switzerland"/);
    assert.match(refused.stderr, /line 3: price "5 cents"/);
    const good = await runCli(['prices', 'check', prices, '--json'], {});
    assert.equal(good.code, 0, good.stderr);
    assert.deepEqual(JSON.parse(good.stdout).lines, [{ transport: 'log', country: 'CH', prefix: null, amount: '0.0500', currency: 'EUR' }]);
  });

  it('reloads the list on SIGHUP and on `twofa prices reload`, keeping it when the file is invalid', async () => {
    fs.writeFileSync(prices, 'log,CH,,0.0500,EUR\nlog,GB,,0.0400,EUR\n');
    process.kill(server.pid, 'SIGHUP');
    const deadline = Date.now() + 10_000;
    let lines = 0;
    while (lines !== 2 && Date.now() < deadline) {
      lines = (JSON.parse((await cli('prices', 'show', '--json')).stdout) as { lines: unknown[] }).lines.length;
      if (lines !== 2) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(lines, 2, 'SIGHUP read the file again');
    fs.writeFileSync(prices, 'log,CH,,0.0500,EUR\nlog,GB,,free,EUR\n');
    const refused = await cli('prices', 'reload');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /line 2: price "free"/);
    assert.equal((JSON.parse((await cli('prices', 'show', '--json')).stdout) as { lines: unknown[] }).lines.length, 2);
    fs.writeFileSync(prices, 'log,CH,,0.0500,EUR\n');
    const reloaded = await cli('prices', 'reload');
    assert.equal(reloaded.code, 0, reloaded.stderr);
    assert.match(reloaded.stdout, /1 line\(s\) in force/);
  });

  it('sets, shows and removes budgets, and sums the spend', async () => {
    const set = await cli('budget', 'set', '--currency', 'eur', '--daily', '0.05', '--country', 'GB:daily=1,monthly=2', '--json');
    assert.equal(set.code, 0, set.stderr);
    assert.deepEqual(JSON.parse(set.stdout).countries, { GB: { daily: '1.0000', monthly: '2.0000' } });
    const app = await runCli(['apps', 'create', '--name', 'Shop', '--json', '--url', server.url], env);
    const applicationId = JSON.parse(app.stdout).applicationId as string;
    const template = await runCli(['templates', 'create', applicationId, '--text', 'Code {{pin}}', '--json', '--url', server.url], env);
    const messageId = JSON.parse(template.stdout).messageId as string;
    const first = await cli('send', '--app', applicationId, '--message', messageId, '--to', '41793026727', '--json');
    assert.equal(first.code, 0, first.stderr);
    const second = await cli('send', '--app', applicationId, '--message', messageId, '--to', '41793026728');
    assert.equal(second.code, 1);
    assert.match(second.stderr, /Budget exceeded: .*the account's daily budget of 0\.0500 EUR/);
    const shown = await cli('budget', 'show');
    assert.match(shown.stdout, /spent today\s+0\.0500/);
    // Delivered by the server's worker: the spend is recorded when the transport takes the message.
    const deadline = Date.now() + 10_000;
    let spend = { totals: [] as { amount: string }[] };
    while (spend.totals.length === 0 && Date.now() < deadline) {
      spend = JSON.parse((await cli('spend', '--json')).stdout);
      if (spend.totals.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(spend.totals, [{ currency: 'EUR', amount: '0.0500', messages: 1 }]);
    assert.equal((await cli('budget', 'remove')).code, 0);
    assert.equal((await cli('budget', 'show')).code, 1);
  });
});
