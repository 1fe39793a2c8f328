// T01 race-wrong-verifies, T02 race-double-spend, T03 race-mixed, T04 race-send-limit: concurrent
// requests released together against one real `twofa serve` process on a SQLite file, and against
// three processes on one PostgreSQL (requests spread round-robin), over repeated trials. A violation
// is any trial whose counted outcome differs from the exact expected one; the suite asserts 0.
// Standards: NIST SP 800-63B §5.1.3.2 (accept once), §5.2.2 (attempt limit); OWASP ASVS 4.0.3 2.2.1,
// 2.7.3, 11.1.6; ASVS 5.0 6.5.1, 6.6.3, 15.4.2, 2.3.4.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startCluster, startWebhookReceiver, type Cluster, type WebhookReceiver } from '../multinode/cluster.js';
import { createAppAndTemplate, createJsonClient, expectOk, type JsonClient, type JsonResponse } from '../support/json-client.js';
import { skipUnlessPostgres } from '../support/postgres.js';
import { startServerProcess, TEST_SECRET, type ServerProcess } from '../support/server-process.js';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import { verifyAuditChains } from '../../src/service/audit-log.js';
import { countBy, createResults, scale, wrongPinFor } from './support/results.js';

const results = createResults('races', {
  tests: ['T01', 'T02', 'T03', 'T04'],
  standards: ['NIST 800-63B §5.1.3.2', 'NIST 800-63B §5.2.2', 'ASVS 4.0.3 2.2.1', 'ASVS 4.0.3 2.7.3', 'ASVS 4.0.3 11.1.6', 'ASVS 5.0 6.5.1', 'ASVS 5.0 6.6.3', 'ASVS 5.0 15.4.2'],
  database: 'sqlite+postgres',
});
after(() => results.save());

const outcome = (r: JsonResponse) => `${r.status} ${r.body?.pinError ?? r.body?.requestError?.serviceException?.messageId ?? (r.body?.verified === true ? 'verified' : '')}`;
const PIN_ATTEMPTS = 3;

interface Target {
  label: string;
  clients: JsonClient[];
  receiver: WebhookReceiver;
}

/** n requests released together, request i to client i mod the number of processes. */
function together<T>(clients: JsonClient[], n: number, request: (client: JsonClient, i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => request(clients[i % clients.length]!, i)));
}

const RACE_DETAILS: Record<string, string> = {
  T01: '200 concurrent wrong verifies → exactly 3 WRONG_PIN, 197 NO_MORE_PIN_ATTEMPTS; right PIN refused afterwards',
  T02: '100 concurrent right verifies → exactly 1 verified:true, 99 ALREADY_VERIFIED, 1 audited "verified" decision',
  T03: '20 right + 180 wrong concurrent verifies → ≤ 1 success, ≤ 3 counted attempts, terminal state consistent',
  T04: '100 concurrent sends under 3/1d → exactly 3 accepted (Retry-After on the 97 × 429) and 3 delivered',
};
/** A T-id's verdict on one target once all its trials ran: passed when none of them had a violation. */
function checkTarget(test: string, label: string, violatedTrials: number) {
  results.check(test, violatedTrials === 0, `${RACE_DETAILS[test]}; ${violatedTrials} trial(s) with violations on ${label}`);
}

function describeRaceTrials(target: () => Target, trials: number, phonePrefix: string) {
  let phone = 0;
  const trialsDone: Record<string, number> = {};
  const trialsViolated: Record<string, number> = {};
  const fresh = () => `${phonePrefix}${String(100000 + (phone += 1)).padStart(6, '0')}`;
  const record = (test: string, violations: string[]) => {
    const t = target();
    trialsDone[test] = (trialsDone[test] ?? 0) + 1;
    if (violations.length > 0) trialsViolated[test] = (trialsViolated[test] ?? 0) + 1;
    if (violations.length > 0 || trialsDone[test] === trials) checkTarget(test, `${t.label} (${trialsDone[test]} of ${trials} trials)`, trialsViolated[test] ?? 0);
    results.add(`raceTrials.${t.label}`, 1);
    results.add('raceTrials', 1);
    if (violations.length > 0) {
      results.add('raceViolations', 1);
      results.note(`${t.label} ${test}: ${violations.join('; ')}`);
    }
  };

  async function freshPin(configuration: Record<string, unknown>) {
    const t = target();
    const app = await createAppAndTemplate(t.clients[0]!, configuration);
    const to = fresh();
    const sent = expectOk(await t.clients[0]!.post('/2fa/2/pin', { ...app, to }), 'send');
    const pinId = sent.body.pinId as string;
    return { app, to, pinId, pin: await t.receiver.pinFor(pinId, 15_000) };
  }

  it(`T01: ${trials} × 200 concurrent wrong verifies count exactly pinAttempts (${PIN_ATTEMPTS}); the right PIN is refused afterwards`, async () => {
    const t = target();
    for (let trial = 0; trial < trials; trial += 1) {
      const { pinId, pin, to } = await freshPin({ pinAttempts: PIN_ATTEMPTS, verifyPinLimit: '100000/1s', sendPinPerPhoneNumberLimit: '1000/1d' });
      const answers = await together(t.clients, 200, (c) => c.post(`/2fa/2/pin/${pinId}/verify`, { pin: wrongPinFor(pin) }));
      results.add('raceRequests', 200);
      const counts = countBy(answers, outcome);
      const violations: string[] = [];
      if (counts['200 WRONG_PIN'] !== PIN_ATTEMPTS || counts['200 NO_MORE_PIN_ATTEMPTS'] !== 200 - PIN_ATTEMPTS) violations.push(`T01 trial ${trial}: ${JSON.stringify(counts)}`);
      const right = await t.clients[1 % t.clients.length]!.post(`/2fa/2/pin/${pinId}/verify`, { pin });
      if (right.body?.verified !== false || right.body?.pinError !== 'NO_MORE_PIN_ATTEMPTS') violations.push(`T01 trial ${trial}: right PIN after lock answered ${right.text}`);
      if (answers.some((a) => a.body?.msisdn !== to)) violations.push('an answer names another destination');
      record('T01', violations);
      assert.deepEqual(violations, []);
    }
  });

  it(`T02: ${trials} × 100 concurrent right verifies: exactly one verified:true, one audit "verified" decision`, async () => {
    const t = target();
    for (let trial = 0; trial < trials; trial += 1) {
      const { pinId, pin } = await freshPin({ pinAttempts: 1000, allowMultiplePinVerifications: false, verifyPinLimit: '100000/1s', sendPinPerPhoneNumberLimit: '1000/1d' });
      const answers = await together(t.clients, 100, (c) => c.post(`/2fa/2/pin/${pinId}/verify`, { pin }));
      results.add('raceRequests', 100);
      const counts = countBy(answers, outcome);
      const violations: string[] = [];
      if (counts['200 verified'] !== 1 || counts['200 ALREADY_VERIFIED'] !== 99) violations.push(`T02 trial ${trial}: ${JSON.stringify(counts)}`);
      const audit = expectOk(await t.clients[0]!.get(`/api/v1/audit?pinId=${pinId}&event=pin.verify&limit=1000`), 'audit');
      const decisions = countBy(audit.body.entries as { reason: string }[], (e) => e.reason);
      if (decisions['verified'] !== 1) violations.push(`T02 trial ${trial}: audit shows ${JSON.stringify(decisions)}`);
      record('T02', violations);
      assert.deepEqual(violations, []);
    }
  });

  it(`T03: ${trials} × (20 right + 180 wrong) concurrent verifies: at most one success, at most ${PIN_ATTEMPTS} counted failures`, async () => {
    const t = target();
    for (let trial = 0; trial < trials; trial += 1) {
      const { pinId, pin } = await freshPin({ pinAttempts: PIN_ATTEMPTS, allowMultiplePinVerifications: false, verifyPinLimit: '100000/1s', sendPinPerPhoneNumberLimit: '1000/1d' });
      // The right ones are spread among the wrong ones.
      const answers = await together(t.clients, 200, (c, i) => c.post(`/2fa/2/pin/${pinId}/verify`, { pin: i % 10 === 3 ? pin : wrongPinFor(pin) }));
      results.add('raceRequests', 200);
      const counts = countBy(answers, outcome);
      const successes = counts['200 verified'] ?? 0;
      const wrong = counts['200 WRONG_PIN'] ?? 0;
      const violations: string[] = [];
      if (successes > 1) violations.push(`T03 trial ${trial}: ${successes} successes`);
      if (wrong + successes > PIN_ATTEMPTS) violations.push(`T03 trial ${trial}: ${wrong} wrong + ${successes} right counted > ${PIN_ATTEMPTS}`);
      if (answers.some((a) => a.status >= 500)) violations.push(`T03 trial ${trial}: 5xx`);
      const details = expectOk(await t.clients[0]!.get(`/api/v1/pins/${pinId}`), 'pin details');
      if (successes === 1 && details.body.state !== 'verified') violations.push(`T03 trial ${trial}: verified but state ${details.body.state}`);
      if (details.body.attemptsRemaining < 0) violations.push('negative attempts');
      results.add('raceMixedSuccesses', successes);
      record('T03', violations);
      assert.deepEqual(violations, []);
    }
  });

  it(`T04: ${trials} × 100 concurrent sends to one number under 3/1d: exactly 3 accepted and delivered, 97 × 429 with Retry-After`, async () => {
    const t = target();
    const app = await createAppAndTemplate(t.clients[0]!, { sendPinPerPhoneNumberLimit: '3/1d', sendPinPerApplicationLimit: '1000000/1d' });
    for (let trial = 0; trial < trials; trial += 1) {
      const to = fresh();
      const answers = await together(t.clients, 100, (c) => c.post('/2fa/2/pin', { ...app, to }));
      results.add('raceRequests', 100);
      const counts = countBy(answers, outcome);
      const violations: string[] = [];
      if (counts['200 '] !== 3 || counts['429 TOO_MANY_REQUESTS'] !== 97) violations.push(`T04 trial ${trial}: ${JSON.stringify(counts)}`);
      if (answers.filter((a) => a.status === 429).some((a) => !/^[1-9][0-9]*$/.test(a.headers.get('retry-after') ?? ''))) violations.push('429 without Retry-After');
      const accepted = answers.filter((a) => a.status === 200).map((a) => a.body.pinId as string);
      await t.receiver.waitForDeliveries(accepted, 15_000);
      const delivered = t.receiver.deliveries.filter((d) => d.to === to && d.accepted).length;
      if (delivered !== 3) violations.push(`T04 trial ${trial}: ${delivered} deliveries to the number`);
      record('T04', violations);
      assert.deepEqual(violations, []);
    }
  });
}

describe('races on one process (SQLite file)', () => {
  let server: ServerProcess;
  let receiver: WebhookReceiver;
  let target: Target;

  before(async () => {
    receiver = await startWebhookReceiver();
    server = await startServerProcess({ TWOFA_SMS_DSN: `webhook+http://127.0.0.1:${receiver.port}/single?secret=whsec_${Buffer.alloc(32, 7).toString('base64')}`, TWOFA_LOG_LEVEL: 'warn' });
    target = { label: 'sqlite-1', clients: [createJsonClient(server.url, server.key)], receiver };
  });
  after(async () => {
    if (server) assert.equal(await server.stop(), 0, server.output().slice(-2000));
    await receiver?.close();
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  describeRaceTrials(() => target, scale(2, 50), '41796');
});

const skip = await skipUnlessPostgres();

describe('races on three processes (one PostgreSQL)', { skip }, () => {
  let cluster: Cluster;
  let target: Target;
  before(async () => {
    cluster = await startCluster(3, { TWOFA_LOG_LEVEL: 'warn' }, 'security_races');
    target = { label: 'postgres-3', clients: cluster.clients, receiver: cluster.receiver };
  });
  after(async () => {
    await cluster?.close();
  });

  describeRaceTrials(() => target, scale(2, 50), '41797');

  it('the audit chain written concurrently by three processes is unbroken', async () => {
    const { openStore } = await import('../../src/store/open-store.js');
    const store = await openStore(cluster.database.url, { migrate: false });
    try {
      const report = await verifyAuditChains(store, new PinKeyring(TEST_SECRET));
      results.add('auditEntriesVerified', report.entries);
      results.add('auditChainProblems', report.problems.length);
      assert.deepEqual(report.problems, []);
      assert.ok(report.entries > 1000);
    } finally {
      await store.close();
    }
  });
});
