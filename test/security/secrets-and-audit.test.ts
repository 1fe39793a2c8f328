// T11 no-pin-in-responses, T12 no-secrets-in-logs (and every decision audited), T13 pin-at-rest, and
// the audit chain: a full flow against a real `twofa serve` process at log level trace, on SQLite and
// on PostgreSQL, SMS going to a webhook receiver (the only place a PIN may appear). Every response
// body and header, every log line and a dump of every table are scanned for each PIN, each PIN's HMAC,
// the API key and TWOFA_SECRET, and the logs and the audit log for full destinations. Then the audit
// chain is verified with `twofa audit verify`, and shown to break when an entry is edited or deleted.
// Standards: ASVS 4.0.3 7.1.1, 7.1.3, 7.2.1, 2.7.5, 13.1.3, 8.3.1; ASVS 5.0 16.2.5, 16.3.1, 16.3.3,
// 14.2.1, 6.5.2; NIST 800-63B §5.2.7.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { startWebhookReceiver, type WebhookReceiver } from '../multinode/cluster.js';
import { createAppAndTemplate, createJsonClient, type JsonResponse } from '../support/json-client.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';
import { runCli, startServerProcess, TEST_API_KEY, TEST_SECRET, type ServerProcess } from '../support/server-process.js';
import { createResults, findSecrets, wrongPinFor } from './support/results.js';

const results = createResults('secrets-and-audit', {
  tests: ['T11', 'T12', 'T13'],
  standards: ['ASVS 4.0.3 7.1.1', 'ASVS 4.0.3 7.2.1', 'ASVS 4.0.3 2.7.5', 'ASVS 4.0.3 13.1.3', 'ASVS 5.0 16.2.5', 'ASVS 5.0 16.3.1', 'ASVS 5.0 16.3.3', 'ASVS 5.0 14.2.1', 'NIST 800-63B §5.2.7'],
  database: 'sqlite+postgres',
});
after(() => results.save());

interface FlowOutcome {
  server: ServerProcess;
  responses: string[];
  pins: { pinId: string; pin: string; to: string }[];
  logs: string;
}

/** One full flow: sends, resends, wrong and right verifies, refusals and errors of every kind. */
async function flow(env: Record<string, string>, receiver: WebhookReceiver, label: string): Promise<FlowOutcome> {
  const server = await startServerProcess({
    TWOFA_LOG_LEVEL: 'trace', ...env,
    TWOFA_SMS_DSN: `webhook+http://127.0.0.1:${receiver.port}/${label}?secret=whsec_${randomBytes(32).toString('base64').replace(/\+/g, 'A')}`,
  }, { timeoutMs: 60_000 });
  const client = createJsonClient(server.url, server.key);
  const responses: string[] = [];
  const keep = (r: JsonResponse) => {
    responses.push(`${JSON.stringify([...r.headers.entries()])}\n${r.text}`);
    results.add('responsesScanned');
    return r;
  };
  const app = await createAppAndTemplate(client, { pinAttempts: 3, sendPinPerPhoneNumberLimit: '2/1d', verifyPinLimit: '100/1s' }, { pinLength: 8 });
  keep(await client.put(`/api/v1/applications/${app.applicationId}/security`, { enabled: true, perIpSendLimit: '100/1h', blockedCountries: ['FR'] }));
  const pins: FlowOutcome['pins'] = [];
  for (const [i, to] of ['41790000101', '41790000102', '41790000103'].entries()) {
    const sent = keep(await client.post('/2fa/2/pin', { ...app, to }));
    const pinId = sent.body.pinId as string;
    const pin = await receiver.pinFor(pinId, 20_000);
    pins.push({ pinId, pin, to });
    keep(await client.post(`/2fa/2/pin/${pinId}/resend`, {}));
    keep(await client.post(`/2fa/2/pin/${pinId}/verify`, { pin: wrongPinFor(pin) }));
    if (i === 0) keep(await client.post(`/2fa/2/pin/${pinId}/verify`, { pin }));
    if (i === 1) for (let k = 0; k < 3; k += 1) keep(await client.post(`/2fa/2/pin/${pinId}/verify`, { pin: wrongPinFor(pin) }));
    keep(await client.get(`/api/v1/pins/${pinId}`));
    keep(await client.get(`/2fa/2/applications/${app.applicationId}/verifications?msisdn=${to}`));
  }
  // Refusals and errors: over the limit, blocked country, bad bodies, unknown ids, bad key.
  keep(await client.post('/2fa/2/pin', { ...app, to: '41790000101' }));
  keep(await client.post('/2fa/2/pin', { ...app, to: '41790000101' }));
  keep(await client.post('/2fa/2/pin', { ...app, to: '33612345678' }));
  keep(await client.post(`/2fa/2/pin/${pins[2]!.pinId}/verify`, { pin: 12345678 }));
  keep(await client.post('/2fa/2/pin/0123456789ABCDEF0123456789ABCDEF/verify', { pin: pins[2]!.pin }));
  keep(await client.get('/2fa/2/applications', { key: 'wrong-key-0123456789' }));
  keep(await client.get(`/api/v1/audit?limit=1000`));
  keep(await client.get(`/api/v1/applications/${app.applicationId}/security`));
  keep(await client.get('/metrics'));
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { server, responses, pins, logs: server.output() };
}

/** Scans one flow's answers, logs, database and audit log for secrets, and checks what is audited; returns what the scans found. */
function check(label: string, outcome: FlowOutcome, tables: { where: string; text: string | Buffer }[], pinHashes: string[], auditRows: { event: string; pin_id: string | null; destination: string | null; application_id: string | null; reason: string | null }[]) {
  const pinNeedles = outcome.pins.flatMap((p) => [{ label: `PIN of ${p.pinId}`, value: p.pin }]);
  const hashNeedles = pinHashes.map((h) => ({ label: 'PIN HMAC', value: h.split(':')[1] ?? h }));
  const keyNeedles = [{ label: 'API key', value: TEST_API_KEY }, { label: 'TWOFA_SECRET', value: TEST_SECRET }];
  const destinationNeedles = outcome.pins.map((p) => ({ label: `destination ${p.to.slice(0, 4)}…`, value: p.to }));

  const inResponses = findSecrets(outcome.responses.map((text, i) => ({ where: `response ${i}`, text })), [...pinNeedles, ...hashNeedles, ...keyNeedles]);
  const inLogs = findSecrets([{ where: 'logs', text: outcome.logs }], [...pinNeedles, ...hashNeedles, ...keyNeedles, ...destinationNeedles]);
  const inDatabase = findSecrets(tables, [...pinNeedles, ...keyNeedles]);
  const inAudit = findSecrets([{ where: 'audit_log', text: JSON.stringify(auditRows) }], [...pinNeedles, ...keyNeedles, ...destinationNeedles]);
  results.add('secretsInResponses', inResponses.length);
  results.add('secretsInLogs', inLogs.length);
  results.add('secretsInDatabase', inDatabase.length + inAudit.length);
  results.add('secretScans', outcome.responses.length + 1 + tables.length);
  assert.deepEqual(inResponses, [], `${label}: secrets in responses`);
  assert.deepEqual(inLogs, [], `${label}: secrets or full destinations in logs`);
  assert.deepEqual(inDatabase, [], `${label}: PIN, key or secret in the database`);
  assert.deepEqual(inAudit, [], `${label}: PIN, key or full destination in the audit log`);
  // The scan sees what is there: the destinations are in the pins table, the PINs reached the receiver.
  assert.ok(findSecrets(tables, destinationNeedles).length > 0, `${label}: the dump is really scanned`);
  // Every send and verify decision is in the audit log with its pinId, application and reason.
  for (const p of outcome.pins) {
    const entries = auditRows.filter((r) => r.pin_id === p.pinId);
    assert.ok(entries.some((e) => e.event === 'pin.send' && e.application_id !== null), `${label}: send of ${p.pinId} audited`);
    assert.ok(entries.some((e) => e.event === 'pin.verify' && e.reason === 'WRONG_PIN'), `${label}: wrong verify of ${p.pinId} audited`);
    assert.ok(entries.some((e) => e.event === 'delivery.sent'), `${label}: delivery of ${p.pinId} audited`);
    for (const e of entries) if (e.destination !== null) assert.ok(e.destination.includes('*'), `${label}: masked destination ${e.destination}`);
  }
  assert.ok(auditRows.some((r) => r.event === 'pin.send.refused' && r.reason === 'country'), `${label}: a guard refusal is audited`);
  assert.ok(auditRows.some((r) => r.event === 'pin.send.refused' && r.reason === 'send:to'), `${label}: a limit refusal is audited`);
  assert.ok(auditRows.some((r) => r.event === 'config.security.update'), `${label}: a configuration change is audited`);
  results.add('auditedDecisions', auditRows.length);
  return { inResponses, inLogs, inDatabase: [...inDatabase, ...inAudit] };
}

/** The verdicts of T11 (responses), T12 (logs; with `audit`, the chain checks too) and T13 (the database) for one flow's scan. */
function recordSecretChecks(where: string, found: ReturnType<typeof check>, audit?: { intact: boolean; editDetected: boolean; deletionDetected: boolean }) {
  results.check('T11', found.inResponses.length === 0, `${where}: ${found.inResponses.length} PINs or PIN HMACs in response bodies and headers (errors and refusals included)`);
  results.check('T13', found.inDatabase.length === 0, `${where}: ${found.inDatabase.length} PINs, keys or TWOFA_SECRET in ${where === 'SQLite' ? 'the database files (live and WAL)' : 'a dump of every table'}; stored: <keyId>:HMAC-SHA256(pinId‖pin)`);
  const chain = audit === undefined ? true : audit.intact && audit.editDetected && audit.deletionDetected;
  results.check('T12', found.inLogs.length === 0 && chain, `${where}: ${found.inLogs.length} PINs, keys, secrets or full destinations in trace-level logs; every send, refusal, verify decision, delivery and configuration change audited with pinId, application, masked destination and reason`
    + (audit === undefined ? '' : `; \`twofa audit verify\` ${audit.intact ? 'ok' : 'FAILED'}, and exit 1 after one entry was edited (${audit.editDetected ? 'detected' : 'MISSED'}) or deleted (${audit.deletionDetected ? 'detected' : 'MISSED'})`));
}

describe('secrets and the audit log (SQLite)', () => {
  it('T11, T12, T13 on SQLite: 0 secrets in responses, logs and the database file; every decision audited; the chain verifies and breaks when tampered with', async () => {
    const receiver = await startWebhookReceiver();
    let outcome: FlowOutcome | undefined;
    try {
      outcome = await flow({}, receiver, 'sqlite');
      assert.equal(await outcome.server.stop(), 0);
      const dbFile = path.join(outcome.server.dataDir, 'twofa.db');
      const files = fs.readdirSync(outcome.server.dataDir).filter((f) => f.startsWith('twofa.db')).map((f) => ({ where: f, text: fs.readFileSync(path.join(outcome!.server.dataDir, f)) }));
      const db = new Database(dbFile);
      const pinHashes = (db.prepare('select pin_hash from pins').all() as { pin_hash: string }[]).map((r) => r.pin_hash);
      const auditRows = db.prepare('select * from audit_log order by seq').all() as { seq: number; account_id: string; event: string; pin_id: string | null; destination: string | null; application_id: string | null; reason: string | null }[];
      const found = check('sqlite', outcome, files, pinHashes, auditRows);

      const env = { TWOFA_DATABASE_URL: `sqlite:${dbFile}`, TWOFA_SECRET: TEST_SECRET, TWOFA_DATA_DIR: outcome.server.dataDir };
      const intact = await runCli(['audit', 'verify', '--json'], env);
      assert.equal(intact.code, 0, intact.stdout + intact.stderr);
      const report = JSON.parse(intact.stdout) as { ok: boolean; entries: number };
      assert.equal(report.ok, true);
      results.add('auditEntriesVerified', report.entries);
      // Edit one entry: detected.
      const middle = auditRows[Math.floor(auditRows.length / 2)]!;
      db.prepare('update audit_log set reason = ? where account_id = ? and seq = ?').run('verified', middle.account_id, middle.seq);
      const edited = await runCli(['audit', 'verify', '--json'], env);
      assert.equal(edited.code, 1);
      assert.match(edited.stdout, new RegExp(`"seq": ${middle.seq}`));
      db.prepare('update audit_log set reason = ? where account_id = ? and seq = ?').run(middle.reason, middle.account_id, middle.seq);
      // Delete one entry: detected.
      db.prepare('delete from audit_log where account_id = ? and seq = ?').run(middle.account_id, middle.seq - 1);
      const deleted = await runCli(['audit', 'verify'], env);
      assert.equal(deleted.code, 1);
      assert.match(deleted.stdout, /missing/);
      db.close();
      const tampering = { intact: intact.code === 0 && report.ok, editDetected: edited.code === 1, deletionDetected: deleted.code === 1 };
      results.add('auditTamperingDetected', Number(tampering.editDetected) + Number(tampering.deletionDetected));
      recordSecretChecks('SQLite', found, tampering);
    } finally {
      await outcome?.server.stop();
      if (outcome) fs.rmSync(outcome.server.dataDir, { recursive: true, force: true });
      await receiver.close();
    }
  });
});

const skip = await skipUnlessPostgres();

describe('secrets and the audit log (PostgreSQL)', { skip }, () => {
  it('T11, T12, T13 on PostgreSQL: 0 secrets in responses, logs and a dump of every table', async () => {
    const receiver = await startWebhookReceiver();
    const database: TestDatabase = await createTestDatabase('security_secrets');
    let outcome: FlowOutcome | undefined;
    try {
      outcome = await flow({ TWOFA_DATABASE_URL: database.url, TWOFA_DATABASE_POOL_SIZE: '4' }, receiver, 'postgres');
      assert.equal(await outcome.server.stop(), 0);
      const tableNames = (await database.query<{ tablename: string }>("select tablename from pg_tables where schemaname = 'public'")).rows.map((r) => r.tablename);
      const tables: { where: string; text: string }[] = [];
      for (const t of tableNames) {
        const rows = await database.query<{ row: string }>(`select row_to_json(t)::text as row from "${t}" t`);
        tables.push({ where: `table ${t}`, text: rows.rows.map((r) => r.row).join('\n') });
      }
      const pinHashes = (await database.query<{ pin_hash: string }>('select pin_hash from pins')).rows.map((r) => r.pin_hash);
      const auditRows = (await database.query('select * from audit_log order by seq')).rows as never[];
      recordSecretChecks('PostgreSQL', check('postgres', outcome, tables, pinHashes, auditRows));
    } finally {
      await outcome?.server.stop();
      if (outcome) fs.rmSync(outcome.server.dataDir, { recursive: true, force: true });
      await receiver.close();
      await database.drop();
    }
  });
});
