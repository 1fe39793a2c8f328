// `npx tsx bench/purge-scale.ts [--sizes=10000,1000000] [--churn=1000] [--runs=3]`: how long one run of
// the periodic purge takes (the server runs it every minute, on its event loop) as the number of stored
// ended PINs grows. Each database holds `size` ended PINs of the last 30 days (bench/lib/twofa-fixture.ts)
// and one minute's churn: `churn` PINs that expired a moment ago with their ciphertext and a pending
// message, and `churn` PINs past the 30-day retention with their outbox row and two delivery events.
// The first run has that churn to do; the later ones find nothing new. Goal: flat across sizes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { openStore } from '../src/store/open-store.js';
import { pinInsert, prepareTwofaDatabase } from './lib/twofa-fixture.js';

const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const sizes = (option('sizes') ?? '10000,1000000').split(',').map(Number);
const churn = Number(option('churn') ?? 1000);
const runs = Number(option('runs') ?? 3);
const RETENTION_MS = 30 * 86_400_000;
const log = (line: string) => process.stdout.write(`${line}\n`);

// Time spent in each statement, by its text (better-sqlite3 runs every statement synchronously).
const spent = new Map<string, number>();
const statement = Object.getPrototypeOf(new BetterSqlite3(':memory:').prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
for (const method of ['run', 'all', 'get'] as const) {
  const original = statement[method]!;
  statement[method] = function timed(this: { source: string }, ...args: unknown[]) {
    const started = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const key = this.source.replace(/\s+/g, ' ').slice(0, 90);
      spent.set(key, (spent.get(key) ?? 0) + Number(process.hrtime.bigint() - started) / 1e6);
    }
  };
}

function seedChurn(file: string, accountId: string, appId: string, messageId: string, now: number): void {
  const db = new BetterSqlite3(file);
  const insert = pinInsert(db);
  const outbox = db.prepare(`insert into outbox (id, pin_id, account_id, channel, request, state, attempts, next_attempt_at, lease_until, created_at, updated_at)
    values (?, ?, ?, 'sms', '{"placeholders":{}}', ?, 1, ?, 0, ?, ?)`);
  const event = db.prepare(`insert into delivery_events (id, pin_id, account_id, at, event, channel) values (?, ?, ?, ?, ?, 'sms')`);
  db.transaction(() => {
    for (let i = 0; i < 2 * churn; i++) {
      const id = randomBytes(16).toString('hex').toUpperCase();
      const old = i >= churn;
      const createdAt = old ? now - RETENTION_MS - 3_600_000 : now - 960_000;
      insert({
        id, account_id: accountId, application_id: appId, message_id: messageId, channel: 'sms', destination: `4179${String(i).padStart(7, '0')}`,
        pin_hash: `0000:${id}`, pin_ciphertext: old ? null : `0000:${id}`, attempts_left: 10, allow_multiple_verifications: 0, created_at: createdAt,
        expires_at: createdAt + 900_000, verified_at: null, locked_at: null, delivery_status: old ? 'sent' : 'queued', delivery_error: null, sent_at: null,
        send_count: 1, delivery_transport: null, provider_message_id: null, delivered_at: null,
      });
      outbox.run(`o-${id}`, id, accountId, old ? 'done' : 'pending', createdAt, createdAt, createdAt + 2_000);
      event.run(`e1-${id}`, id, accountId, createdAt, 'queued');
      if (old) event.run(`e2-${id}`, id, accountId, createdAt + 2_000, 'sent');
    }
  })();
  db.close();
}

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-purge-scale-'));
try {
  for (const size of sizes) {
    const file = path.join(workDir, `purge-${size}.db`);
    const fixture = await prepareTwofaDatabase({ file, rightPool: 0, wrongPool: 0, filler: size });
    const now = Date.now();
    seedChurn(file, fixture.accountId, fixture.appId, fixture.messageId, now);
    log(`${size.toLocaleString('en')} ended PINs stored (+${churn} just expired, +${churn} past retention), seeded in ${fixture.seedSeconds.toFixed(0)} s`);
    const store = await openStore(`sqlite:${file}`);
    try {
      for (let run = 1; run <= runs; run++) {
        spent.clear();
        const started = process.hrtime.bigint();
        const result = await store.purge(now + run, RETENTION_MS);
        await store.security.purge(now + run, now - 2 * 86_400_000);
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const top = [...spent].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([sql, t]) => `    ${t.toFixed(1).padStart(8)} ms  ${sql}`);
        log(`  run ${run}: ${ms.toFixed(1)} ms (erased ${result.erased}, deleted ${result.deleted}); slowest statements:\n${top.join('\n')}`);
      }
    } finally {
      await store.close();
    }
    fs.rmSync(file, { force: true });
  }
} finally {
  fs.rmSync(workDir, { recursive: true, force: true });
}
