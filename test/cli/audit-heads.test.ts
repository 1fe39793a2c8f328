// Truncation of the audit log, on SQLite and PostgreSQL: a node records a signed head of each account's
// chain when it stops (and on its timer), logs it and keeps a copy in its data folder; `twofa audit
// head` prints the heads. Then, as someone with write access to the database only: deleting the
// newest entries, the whole chain, or also the audit_heads rows, or forging a head, makes
// `twofa audit verify` exit 1 naming the truncation; untouched, it passes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { authenticate } from '../../src/service/api-keys.js';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';
import { createTestDatabase, skipUnlessPostgres } from '../support/postgres.js';
import { runCli } from '../support/server-process.js';

const HARNESS_SECRET = 'test-secret-0123456789-0123456789-abcdef';

interface Target {
  env: Record<string, string>;
  url(h: Harness): string;
  exec(h: Harness, sql: string, values: unknown[]): Promise<void>;
  done(): Promise<void>;
}

/** Writes audit entries for account a: an application, sends, deliveries and verifications. */
async function writeEntries(h: Harness): Promise<string> {
  const app = await createAppAndTemplate(h);
  for (const to of ['41794000001', '41794000002', '41794000003']) {
    const sent = await h.request('POST', '/2fa/2/pin', { body: { ...app, to } });
    const pin = await deliveredPin(h, sent.body.pinId as string);
    await h.request('POST', `/2fa/2/pin/${sent.body.pinId as string}/verify`, { body: { pin } });
  }
  const principal = await authenticate(h.node.store, `App ${h.keys.a}`);
  assert.ok(principal);
  return principal.accountId;
}

async function truncationScenario(target: Target): Promise<void> {
  const h = await createHarness(target.env);
  try {
    const accountId = await writeEntries(h);
    const entries = await h.node.store.audit.list(accountId, {}, 10_000);
    const newest = entries.at(-1)!.seq;
    assert.ok(newest >= 5, `entries written: ${newest}`);
    // Stopping records the heads: in the table, in the data folder, in the log.
    await h.node.stop();
    const logged = h.logs.map((l) => JSON.parse(l) as { msg?: string; accountId?: string; seq?: number; auditHead?: string })
      .find((l) => l.msg === 'audit chain head recorded' && l.accountId === accountId);
    assert.equal(logged?.seq, newest);
    const headFile = path.join(h.dir, 'audit-heads.json');
    assert.ok(fs.existsSync(headFile));

    const env = { TWOFA_DATABASE_URL: target.url(h), TWOFA_SECRET: HARNESS_SECRET, TWOFA_DATA_DIR: h.dir };
    const intact = await runCli(['audit', 'verify', '--json'], env);
    assert.equal(intact.code, 0, intact.stdout + intact.stderr);
    assert.ok((JSON.parse(intact.stdout) as { checkedHeads: number }).checkedHeads >= 2);
    const printed = await runCli(['audit', 'head'], env);
    assert.equal(printed.code, 0, printed.stderr);
    const heads = printed.stdout.trim();
    assert.ok(heads.split('\n').includes(logged!.auditHead!), 'audit head prints the head the server logged');

    // The newest two entries deleted: the chain is consistent, shorter than its head.
    await target.exec(h, 'delete from audit_log where account_id = $1 and seq > $2', [accountId, newest - 2]);
    const truncated = await runCli(['audit', 'verify'], env);
    assert.equal(truncated.code, 1, truncated.stdout);
    assert.match(truncated.stdout, new RegExp(`account ${accountId}.*chain truncated: entries ${newest - 1} to ${newest} are missing`));
    // Taking a head then keeps the one that names the deleted entries.
    assert.equal((await runCli(['audit', 'head'], env)).code, 1);
    assert.equal((await runCli(['audit', 'verify'], env)).code, 1);

    // A forged head in the table (lowered to the shortened chain) does not verify.
    await target.exec(h, 'update audit_heads set seq = $1 where account_id = $2', [newest - 2, accountId]);
    assert.match((await runCli(['audit', 'verify'], env)).stdout, /invalid signature/);
    // The table's heads and this node's copy removed too: the head kept elsewhere still tells.
    await target.exec(h, 'delete from audit_heads where account_id = $1', [accountId]);
    fs.rmSync(headFile);
    assert.equal((await runCli(['audit', 'verify'], env)).code, 0, 'nothing left to compare with');
    const given = await runCli(['audit', 'verify', '--head', heads], env);
    assert.equal(given.code, 1);
    assert.match(given.stdout, /chain truncated/);

    // The whole chain deleted.
    await target.exec(h, 'delete from audit_log where account_id = $1', [accountId]);
    const deleted = await runCli(['audit', 'verify', '--json', '--head', heads], env);
    assert.equal(deleted.code, 1);
    const report = JSON.parse(deleted.stdout) as { problems: { accountId: string; problem: string }[] };
    assert.ok(report.problems.some((p) => p.accountId === accountId && /chain deleted/.test(p.problem)), deleted.stdout);
  } finally {
    await h.close();
    await target.done();
  }
}

const skipPostgres = await skipUnlessPostgres();

describe('audit chain heads', () => {
  it('SQLite: deleting the newest entries or the whole chain fails twofa audit verify', async () => {
    await truncationScenario({
      env: {},
      url: (h) => `sqlite:${h.dbFile}`,
      async exec(h, sql, values) {
        const db = new Database(h.dbFile);
        try {
          db.prepare(sql.replace(/\$\d+/g, '?')).run(...values);
        } finally {
          db.close();
        }
      },
      done: async () => undefined,
    });
  });

  it('PostgreSQL: deleting the newest entries or the whole chain fails twofa audit verify', { skip: skipPostgres }, async () => {
    const database = await createTestDatabase('audit_heads');
    await truncationScenario({
      env: { TWOFA_DATABASE_URL: database.url, TWOFA_DATABASE_POOL_SIZE: '3' },
      url: () => database.url,
      exec: async (_h, sql, values) => {
        await database.query(sql, values);
      },
      done: () => database.drop(),
    });
  });
});
