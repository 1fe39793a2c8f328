// `npm run bench`: twofa against its ceilings and its peer, in one run, on this machine.
//
//   npm run bench                  5 to 6 minutes: every scenario, scale of data at 10^4 and 10^6 PINs
//   npm run bench -- --quick       ~2 minutes: shorter runs, scale at 10^4 and 10^5
//   npm run bench -- --full        also 10^7 stored PINs (seeding alone takes about 10 minutes, 12 GB)
//   npm run bench -- --profile     also writes a CPU profile of the server under load, and its summary
//   npm run bench -- --only=twofa,ceiling   run some groups only (ceiling, storage, twofa, pg, peer, scale, timing, delivery)
//   npm run bench -- --only=delivery   time to the phone alone (~2 minutes); its section of BENCHMARKS.md is rewritten in place
//   npm run bench -- --only=delivery --delivery-pg   also on PostgreSQL with three nodes
//   npm run bench -- --hot         the hot paths only, ~2 minutes: both ceilings (empty route, pgbench -N),
//                                  send and verify-wrong on SQLite and PostgreSQL, with their half-rate runs
//   npm run bench -- --only=twofa --scenarios=verify-right,send   some of twofa's scenarios only (with --profile: one's profile)
//   npm run bench -- --no-half-rate   skip the fixed-rate latency runs of twofa's scenarios
//   npm run bench -- --label="api key cache"   names the run in the history table
//   npm run bench -- --no-report   measure, write the JSON, leave BENCHMARKS.md alone
//   npm run bench -- --report=bench/results/<date>.json   rewrite BENCHMARKS.md from a run already made
//   BENCH_BUILD_DIR=<dir> BENCH_PREBUILT=1 npm run bench -- ...   run another build of src/ (before/after)
//
// Every process under test is its own Node process on loopback (compiled JavaScript, NODE_ENV=production);
// autocannon runs in this process, on the same 2 cores: the load generator is included, as the targets say.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { phoneOf, pinOf, wrongPinOf } from './lib/identities.js';
import { runLoad, runOpenLoop, type BenchRequest, type LoadResult } from './lib/load.js';
import { buildForBench, BUILD_DIR, freePort, PROJECT_ROOT, SCRIPTS, startNodeProcess, type NodeProcess } from './lib/processes.js';
import { loadAverage, pressure } from './lib/proc-stats.js';
import { SERVE_NODE_OPTIONS } from '../src/cli/serve-command.js';
import { RECEIVER_SECRET, SERVER_ENV, startTwofa, stopReceiver } from './lib/twofa-server.js';
import { openStore } from '../src/store/open-store.js';
import { summarizeProfile } from './lib/profile.js';
import { measureCompareTiming } from './lib/compare-timing.js';
import { updateDeliverySection, writeReport, type BenchResults, type ScaleResult, type ScenarioResult } from './lib/report.js';
import { DELIVERY_SCENARIOS, runDeliveryScenario } from './lib/delivery-bench.js';
import { measureStorage } from './lib/storage-ceiling.js';
import { dropDatabase, pendingMessages, preparePgDatabase, recreateDatabase, runPgbench } from './lib/pg-fixture.js';
import { BENCH_API_KEY, RIGHT_POOL_DESTINATIONS, prepareTwofaDatabase, type TwofaFixture } from './lib/twofa-fixture.js';

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const quick = flag('quick');
const full = flag('full');
const hot = flag('hot');
const groups = new Set((option('only') ?? (hot ? 'ceiling,twofa,pg' : 'ceiling,storage,twofa,pg,peer,scale,timing,delivery')).split(','));
const scenarioFilter = option('scenarios')?.split(',') ?? (hot ? ['send', 'verify-wrong'] : undefined);
const wanted = (name: string) => scenarioFilter === undefined || scenarioFilter.includes(name);
const settings = {
  mode: quick ? 'quick' : full ? 'full' : hot ? 'hot' : 'default',
  connections: Number(option('connections') ?? 50),
  durationS: Number(option('duration') ?? (quick ? 4 : 10)),
  warmupS: quick ? 1 : 2,
  halfRateDurationS: quick ? 3 : 6,
  scaleDurationS: quick ? 3 : 5,
  storageSeconds: quick ? 1 : 2,
  scaleSizes: quick ? [10_000, 100_000] : full ? [10_000, 1_000_000, 10_000_000] : [10_000, 1_000_000],
  rightPool: quick ? 100_000 : 250_000,
  wrongPool: 20_000,
  peerRightPool: quick ? 15_000 : 40_000,
  peerWrongPool: 10_000,
  /** Live PINs of the PostgreSQL verify-wrong pool (as SQLite's: each stays below its 10 attempts). */
  pgWrongPool: 20_000,
  pgbenchClients: 32,
  pgbenchDurationS: quick ? 5 : 10,
};

const log = (line: string) => process.stdout.write(`${line}\n`);
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-bench-'));
const resultsDir = path.join(PROJECT_ROOT, 'bench', 'results');
const profileDir = path.join(resultsDir, 'tmp');
const stamp = new Date().toISOString().replace(/:/g, '-').replace(/\..*/, '');
const authHeaders = { authorization: `App ${BENCH_API_KEY}` };

function describeRun(r: LoadResult): string {
  const codes = Object.entries(r.statuses).map(([code, n]) => `${code}:${n}`).join(' ');
  return `${String(r.requestsPerSecond).padStart(6)} req/s  p50 ${r.latencyMs.p50.toFixed(2)}  p90 ${r.latencyMs.p90.toFixed(2)}  p99 ${r.latencyMs.p99.toFixed(2)} ms  cpu ${r.cpuUsPerRequest} µs/req  rss ${r.peakRssMb} MB  [${codes}${r.errors ? ` errors:${r.errors}` : ''}${r.timeouts ? ` timeouts:${r.timeouts}` : ''}]`;
}

async function scenario(target: ScenarioResult['target'], name: string, proc: NodeProcess, next: () => BenchRequest, extra: { overallRate?: number; durationS?: number; warmupS?: number; headers?: Record<string, string>; note?: string } = {}): Promise<ScenarioResult> {
  const common = { url: proc.url, pid: proc.pid, durationS: extra.durationS ?? settings.durationS, warmupS: extra.warmupS ?? settings.warmupS, headers: extra.headers ?? authHeaders, next };
  // At a fixed rate, evenly spaced requests (autocannon's per-connection timers send bursts); at full load, autocannon.
  const result = extra.overallRate !== undefined
    ? await runOpenLoop({ ...common, rate: extra.overallRate, maxInFlight: settings.connections })
    : await runLoad({ ...common, connections: settings.connections });
  log(`  ${`${target} ${name}${extra.overallRate ? ` @${extra.overallRate}/s` : ''}`.padEnd(40)} ${describeRun(result)}`);
  return { target, name, ...(extra.note ? { note: extra.note } : {}), ...result };
}

function json(body: unknown): string {
  return JSON.stringify(body);
}

// --- twofa ---

/** Waits until the delivery worker has sent every queued message; returns how long that took. */
async function drainOutbox(file: string, timeoutMs = 120_000): Promise<number> {
  const started = Date.now();
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    // First messages on their PINs (migration 0019) and later ones in the outbox; only the latter before.
    const onPins = (db.prepare("select count(*) as n from pragma_table_info('pins') where name = 'message_state'").get() as { n: number }).n > 0;
    const pending = db.prepare(onPins
      ? "select (select count(*) from pins where message_state = 'pending') + (select count(*) from outbox where state = 'pending') as n"
      : "select count(*) as n from outbox where state = 'pending'");
    while (Date.now() - started < timeoutMs) {
      if ((pending.get() as { n: number }).n === 0) return (Date.now() - started) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return (Date.now() - started) / 1000;
  } finally {
    db.close();
  }
}

/** The request makers of twofa's scenarios, sharing cursors so no PIN is verified right twice. */
function twofaRequests(fixture: TwofaFixture) {
  let sendCounter = 0;
  let rightCursor = 0;
  let wrongCursor = 0;
  let statusCounter = 0;
  let pumpCounter = 0;
  const state = { rightPoolWrapped: false };
  const send = (): BenchRequest => ({
    method: 'POST', path: '/2fa/2/pin',
    body: json({ applicationId: fixture.appId, messageId: fixture.messageId, to: phoneOf(3_000_000 + (sendCounter++ % 1_000_000)) }),
  });
  const verifyRight = (): BenchRequest => {
    const i = rightCursor++ % fixture.rightPool.length;
    if (rightCursor > fixture.rightPool.length) state.rightPoolWrapped = true;
    return { method: 'POST', path: `/2fa/2/pin/${fixture.rightPool[i]}/verify`, body: json({ pin: pinOf(i) }) };
  };
  const verifyWrong = (): BenchRequest => {
    const i = wrongCursor++ % fixture.wrongPool.length;
    return { method: 'POST', path: `/2fa/2/pin/${fixture.wrongPool[i]}/verify`, body: json({ pin: wrongPinOf(i) }) };
  };
  const status = (): BenchRequest => ({
    method: 'GET', path: `/2fa/2/applications/${fixture.appId}/verifications?msisdn=${phoneOf((statusCounter++ * 7919) % RIGHT_POOL_DESTINATIONS)}`,
  });
  // A login day: every login sends a PIN and verifies it; one in five types a wrong PIN first; one
  // client in four polls the verification status. Per 20 requests: 8 sends, 8 right, 2 wrong, 2 status.
  const pattern = 'SRSRSRSRWSRSRSRSRWQQ';
  let mixedCounter = 0;
  const mixed = (): BenchRequest => {
    const kind = pattern[mixedCounter++ % pattern.length];
    return kind === 'S' ? send() : kind === 'R' ? verifyRight() : kind === 'W' ? verifyWrong() : status();
  };
  // SMS pumping: one script hammering 20 numbers of an application with Infobip's default limits (3/1d per number).
  const pump = (): BenchRequest => ({
    method: 'POST', path: '/2fa/2/pin',
    body: json({ applicationId: fixture.defaultsAppId, messageId: fixture.defaultsMessageId, to: phoneOf(4_000_000 + (pumpCounter++ % 20)) }),
  });
  return { send, verifyRight, verifyWrong, status, mixed, pump, state };
}

async function runTwofa(results: BenchResults): Promise<TwofaFixture> {
  log('twofa: seeding');
  const dataDir = path.join(workDir, 'twofa');
  fs.mkdirSync(dataDir);
  // The verify-right pool is only needed by the scenarios that spend it.
  const rightPool = ['verify-right', 'mixed', 'status'].some(wanted) ? settings.rightPool : 1_000;
  const fixture = await prepareTwofaDatabase({ file: path.join(dataDir, 'twofa.db'), rightPool, wrongPool: settings.wrongPool, filler: 0 });
  log(`  ${rightPool + settings.wrongPool} PINs seeded in ${fixture.seedSeconds.toFixed(1)} s`);
  fs.mkdirSync(profileDir, { recursive: true });
  const cpuProfileDir = flag('profile') ? fs.mkdtempSync(path.join(profileDir, `profile-${stamp}-`)) : undefined;
  const server = await startTwofa(fixture, cpuProfileDir);
  const make = twofaRequests(fixture);
  const maxRates: Record<string, number> = {};
  try {
    const plan = ([
      ['send', make.send, true],
      ['verify-wrong', make.verifyWrong, false],
      ['verify-right', make.verifyRight, false],
      ['status', make.status, false],
      ['mixed', make.mixed, true],
    ] as [string, () => BenchRequest, boolean][]).filter(([name]) => wanted(name));
    for (const [name, next, sends] of plan) {
      const result = await scenario('twofa', name, server, next);
      if (sends) {
        result.drainS = await drainOutbox(fixture.file);
        if (result.drainS > 0.2) log(`    the delivery worker needed ${result.drainS.toFixed(1)} s more to deliver the backlog`);
      }
      results.scenarios.push(result);
      maxRates[name] = result.requestsPerSecond;
    }
    if (wanted('send-refused')) {
      results.scenarios.push(await scenario('twofa', 'send-refused', server, make.pump, {
        note: 'SMS pumping: 20 numbers of an application with the default limits (3/1d per number), so almost every send is refused with 429',
      }));
    }
    if (wanted('healthz')) {
      results.scenarios.push(await scenario('twofa', 'healthz', server, () => ({ method: 'GET', path: '/healthz' }), {
        note: 'the whole app stack (hooks, metrics, logging) on a route with no work: what the app adds to the bare ceiling',
      }));
    }
    for (const [name, next, sends] of flag('no-half-rate') ? [] : plan) {
      const rate = Math.max(1, Math.round(maxRates[name]! / 2));
      const result = await scenario('twofa', name, server, next, { overallRate: rate, durationS: settings.halfRateDurationS, warmupS: 1 });
      if (sends) result.drainS = await drainOutbox(fixture.file);
      results.halfRate.push(result);
    }
    if (make.state.rightPoolWrapped) results.warnings.push('The verify-right pool ran out and wrapped around: some verify-right requests verified an already verified PIN.');
  } finally {
    await server.stop();
    const tail = server.stderr().trim();
    if (tail) log(`  server stderr: ${tail.slice(-500)}`);
  }
  if (cpuProfileDir) writeProfileSummary(cpuProfileDir, '');
  return fixture;
}

// --- time to the phone: delivered per second and accepted-to-provider latency (bench/lib/delivery-bench.ts) ---

async function runDelivery(results: BenchResults): Promise<void> {
  const providerPort = await freePort();
  const provider = await startNodeProcess({ script: SCRIPTS.provider, env: { BENCH_PORT: String(providerPort) }, port: providerPort, readyPath: '/receipts' });
  fs.mkdirSync(profileDir, { recursive: true });
  const cpuProfileDir = flag('profile') ? fs.mkdtempSync(path.join(profileDir, `profile-delivery-${stamp}-`)) : undefined;
  const scenarios = DELIVERY_SCENARIOS.filter((s) => scenarioFilter === undefined || scenarioFilter.some((wantedName) => s.name.includes(wantedName)));
  const providerDsn = (query: string) => `webhook+${provider.url}/sms?secret=${RECEIVER_SECRET}${query === '' ? '' : `&${query}`}`;
  let sendCounter = 0;
  /** Runs every scenario on one stack: `start` starts its node(s) with an SMS DSN; `acceptedAt` reads the PINs' acceptance times. */
  const runOn = async (stack: string, fixture: { appId: string; messageId: string }, start: (smsDsn: string) => Promise<NodeProcess>, acceptedAt: (pinIds: string[]) => Promise<Map<string, number>>) => {
    for (const scenario of scenarios) {
      (results.delivery ??= []).push(await runDeliveryScenario({
        stack, rateParameter: stack.includes('1 node') ? 'max_tps' : 'max_tps_global', headers: authHeaders, log, startServer: start, acceptedAt,
        nextSend: () => json({ applicationId: fixture.appId, messageId: fixture.messageId, to: phoneOf(7_000_000 + (sendCounter++ % 1_000_000)) }),
        runLoad: (o) => runLoad({ ...o, warmupS: 0, headers: authHeaders, connections: settings.connections }),
      }, provider.url, providerDsn, scenario));
    }
  };
  try {
    log('delivery: time to the phone, SMS to a provider stand-in; SQLite, one node');
    const dataDir = path.join(workDir, 'delivery');
    fs.mkdirSync(dataDir);
    const fixture = await prepareTwofaDatabase({ file: path.join(dataDir, 'twofa.db'), rightPool: 1_000, wrongPool: 1_000, filler: 0 });
    const db = new BetterSqlite3(fixture.file, { readonly: true, fileMustExist: true });
    const queuedAt = db.prepare('select id, message_queued_at as at from pins where id in (select value from json_each(?))');
    try {
      await runOn('SQLite, 1 node', fixture, async (smsDsn) => {
        const port = await freePort();
        return startNodeProcess({
          script: SCRIPTS.server, args: ['serve'], port, readyPath: '/readyz', cpuProfileDir,
          env: { ...SERVER_ENV(dataDir, `sqlite:${fixture.file}`, port, provider.url), TWOFA_SMS_DSN: smsDsn, NODE_OPTIONS: SERVE_NODE_OPTIONS },
        });
      }, async (pinIds) => new Map((queuedAt.all(JSON.stringify(pinIds)) as { id: string; at: number }[]).map((r) => [r.id, Number(r.at)])));
    } finally {
      db.close();
    }
    if (flag('delivery-pg')) await runDeliveryPg(runOn, dataDir);
  } finally {
    await provider.stop();
  }
  if (cpuProfileDir) writeProfileSummary(cpuProfileDir, 'delivery');
}

const PG_DELIVERY_DB = 'twofa_bench_delivery';

/**
 * The same scenarios on PostgreSQL with three nodes: the load goes to the first node, and all three
 * deliver (the send's NOTIFY wakes every node's worker; claims skip what another node holds).
 */
async function runDeliveryPg(
  runOn: (stack: string, fixture: { appId: string; messageId: string }, start: (smsDsn: string) => Promise<NodeProcess>, acceptedAt: (pinIds: string[]) => Promise<Map<string, number>>) => Promise<void>,
  dataDir: string,
): Promise<void> {
  log('delivery: PostgreSQL, three nodes');
  const fixture = await preparePgDatabase(PG_DELIVERY_DB, 1_000);
  const client = new pg.Client({ connectionString: fixture.url });
  await client.connect();
  try {
    await runOn('PostgreSQL, 3 nodes', fixture, async (smsDsn) => {
      const nodes = await Promise.all([0, 1, 2].map(async (i) => {
        const port = await freePort();
        const nodeDir = path.join(dataDir, `pg-node-${i}`);
        fs.mkdirSync(nodeDir, { recursive: true });
        return startNodeProcess({
          script: SCRIPTS.server, args: ['serve'], port, readyPath: '/readyz',
          env: { ...SERVER_ENV(nodeDir, fixture.url, port, ''), TWOFA_SMS_DSN: smsDsn, TWOFA_NODE_ID: `bench-${i}`, NODE_OPTIONS: SERVE_NODE_OPTIONS },
        });
      }));
      // Each node counts the others every 2 s for max_tps_global: the shares settle before the load.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      return { ...nodes[0]!, stop: async () => { await Promise.all(nodes.map((n) => n.stop())); } };
    }, async (pinIds) => {
      const { rows } = await client.query<{ id: string; at: string }>('select id, message_queued_at as at from pins where id = any($1)', [pinIds]);
      return new Map(rows.map((r) => [r.id, Number(r.at)]));
    });
  } finally {
    await client.end();
    await dropDatabase(PG_DELIVERY_DB).catch(() => undefined);
  }
}

// --- PostgreSQL: pgbench -N as the ceiling, twofa's send and verify-wrong on a database of their own ---

const PG_TWOFA_DB = 'twofa_bench_run';
const PG_PGBENCH_DB = 'twofa_bench_pgbench';

async function runPg(results: BenchResults): Promise<void> {
  log(`pgbench -N: ${settings.pgbenchClients} clients, ${settings.pgbenchDurationS} s, on a scratch database of its own`);
  try {
    await recreateDatabase(PG_PGBENCH_DB);
    const ceiling = runPgbench(PG_PGBENCH_DB, settings.pgbenchClients, settings.pgbenchDurationS);
    log(`  ${'pgbench -N'.padEnd(40)} ${String(Math.round(ceiling.tps)).padStart(6)} tps  latency average ${ceiling.latencyMs} ms`);
    results.scenarios.push({
      target: 'pgbench', name: 'pgbench -N', note: `${ceiling.clients} clients, ${ceiling.durationS} s, scale 10: PostgreSQL's own ceiling on this machine (TPC-B-like, no branch/teller updates)`,
      requestsPerSecond: Math.round(ceiling.tps), total: Math.round(ceiling.tps * ceiling.durationS), durationS: ceiling.durationS,
      latencyMs: { p50: ceiling.latencyMs, p90: 0, p99: 0, mean: ceiling.latencyMs, max: 0 }, statuses: {}, errors: 0, timeouts: 0,
      cpuUsPerRequest: 0, cpuCores: 0, peakRssMb: 0, generatorCpuMsPerS: 0,
    });
  } catch (err) {
    results.warnings.push(`pgbench could not run: ${(err as Error).message.split('\n')[0]}`);
    log(`  pgbench failed: ${(err as Error).message}`);
    return;
  } finally {
    await dropDatabase(PG_PGBENCH_DB).catch(() => undefined);
  }
  log('twofa on PostgreSQL: seeding');
  const dataDir = path.join(workDir, 'twofa-pg');
  fs.mkdirSync(dataDir);
  const fixture = await preparePgDatabase(PG_TWOFA_DB, settings.pgWrongPool);
  const cpuProfileDir = flag('profile') ? fs.mkdtempSync(path.join(profileDir, `profile-pg-${stamp}-`)) : undefined;
  const server = await startTwofa({ file: path.join(dataDir, 'unused.db') }, cpuProfileDir, fixture.url);
  let sendCounter = 0;
  let wrongCursor = 0;
  const send = (): BenchRequest => ({
    method: 'POST', path: '/2fa/2/pin',
    body: json({ applicationId: fixture.appId, messageId: fixture.messageId, to: phoneOf(6_000_000 + (sendCounter++ % 1_000_000)) }),
  });
  const verifyWrong = (): BenchRequest => {
    const i = wrongCursor++ % fixture.wrongPool.length;
    return { method: 'POST', path: `/2fa/2/pin/${fixture.wrongPool[i]}/verify`, body: json({ pin: wrongPinOf(i) }) };
  };
  const drain = async (): Promise<number> => {
    const started = Date.now();
    while (Date.now() - started < 120_000 && await pendingMessages(fixture.url) > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    return (Date.now() - started) / 1000;
  };
  const maxRates: Record<string, number> = {};
  try {
    const plan = ([['send', send, true], ['verify-wrong', verifyWrong, false]] as [string, () => BenchRequest, boolean][]).filter(([name]) => wanted(name));
    for (const [name, next, sends] of plan) {
      const result = await scenario('twofa-pg', name, server, next);
      if (sends) result.drainS = await drain();
      results.scenarios.push(result);
      maxRates[name] = result.requestsPerSecond;
    }
    for (const [name, next, sends] of flag('no-half-rate') ? [] : plan) {
      const rate = Math.max(1, Math.round(maxRates[name]! / 2));
      const result = await scenario('twofa-pg', name, server, next, { overallRate: rate, durationS: settings.halfRateDurationS, warmupS: 1 });
      if (sends) result.drainS = await drain();
      results.halfRate.push(result);
    }
  } finally {
    await server.stop();
    const tail = server.stderr().trim();
    if (tail) log(`  server stderr: ${tail.slice(-500)}`);
    await dropDatabase(PG_TWOFA_DB).catch(() => undefined);
  }
  if (cpuProfileDir) writeProfileSummary(cpuProfileDir, 'pg');
}

function writeProfileSummary(cpuProfileDir: string, suffix: string): void {
  const profiles = fs.readdirSync(cpuProfileDir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(cpuProfileDir, f));
  const biggest = profiles.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
  if (!biggest) return;
  const summary = summarizeProfile(biggest, path.join(profileDir, `flame-${stamp}${suffix}.svg`));
  fs.writeFileSync(path.join(profileDir, `profile-${stamp}${suffix}.txt`), summary);
  log(`\nCPU profile of the server (${biggest}):\n${summary}`);
}

// --- the ceilings ---

async function runCeiling(results: BenchResults): Promise<void> {
  log('ceiling: the same Fastify stack, empty route');
  const port = await freePort();
  const proc = await startNodeProcess({ script: SCRIPTS.ceiling, env: { BENCH_PORT: String(port), TWOFA_LOG_LEVEL: 'info' }, port, readyPath: '/empty' });
  try {
    const result = await scenario('ceiling', 'empty-route', proc, () => ({ method: 'GET', path: '/empty' }), { headers: {} });
    results.scenarios.push(result);
    results.halfRate.push(await scenario('ceiling', 'empty-route', proc, () => ({ method: 'GET', path: '/empty' }), {
      headers: {}, overallRate: Math.round(result.requestsPerSecond / 2), durationS: settings.halfRateDurationS, warmupS: 1,
    }));
  } finally {
    await proc.stop();
  }
}

async function runStorage(results: BenchResults): Promise<void> {
  log('storage: the hot paths\' SQL in a tight loop, no HTTP');
  const dir = path.join(workDir, 'storage');
  fs.mkdirSync(dir);
  const fixture = await prepareTwofaDatabase({ file: path.join(dir, 'twofa.db'), rightPool: 60_000, wrongPool: 0, filler: 0 });
  for (const r of measureStorage(fixture, settings.storageSeconds)) {
    log(`  ${`${r.name} [synchronous=${r.synchronous}]`.padEnd(70)} ${String(r.opsPerSecond).padStart(7)} ops/s  ${r.usPerOp} µs/op`);
    results.storage.push(r);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

// --- the peer ---

async function runPeer(results: BenchResults): Promise<void> {
  log('peer: Better Auth phone-number OTP');
  const port = await freePort();
  const seed = settings.peerRightPool + settings.peerWrongPool;
  let proc: NodeProcess;
  try {
    proc = await startNodeProcess({
      script: SCRIPTS.peer, port, readyPath: '/api/auth/ok',
      env: { BENCH_PORT: String(port), BENCH_PEER_DB: path.join(workDir, 'peer.db'), BENCH_PEER_SEED: String(seed) },
    });
  } catch (err) {
    results.warnings.push(`The peer (better-auth) could not be started: ${(err as Error).message.split('\n')[0]}`);
    log(`  could not start the peer: ${(err as Error).message}`);
    return;
  }
  let sendCounter = 0;
  let rightCursor = 0;
  let wrongCursor = 0;
  const send = (): BenchRequest => ({ method: 'POST', path: '/api/auth/phone-number/send-otp', body: json({ phoneNumber: `+${phoneOf(5_000_000 + sendCounter++)}` }) });
  const right = (disableSession: boolean) => (): BenchRequest => {
    const i = rightCursor++ % settings.peerRightPool;
    return { method: 'POST', path: '/api/auth/phone-number/verify', body: json({ phoneNumber: `+${phoneOf(i)}`, code: pinOf(i), ...(disableSession ? { disableSession: true } : {}) }) };
  };
  const wrong = (): BenchRequest => {
    const i = settings.peerRightPool + (wrongCursor++ % settings.peerWrongPool);
    return { method: 'POST', path: '/api/auth/phone-number/verify', body: json({ phoneNumber: `+${phoneOf(i)}`, code: wrongPinOf(i) }) };
  };
  try {
    const plan: [string, () => BenchRequest, string | undefined][] = [
      ['send', send, undefined],
      ['verify-wrong', wrong, 'Better Auth answers a wrong code with 400 INVALID_OTP (twofa with 200 and pinError)'],
      ['verify-right', right(true), 'with disableSession: checks and consumes the code and marks the user\'s number verified; the nearest to twofa\'s verify'],
      ['verify-right+session', right(false), 'its default: also creates a session (a login)'],
    ];
    const maxRates: Record<string, number> = {};
    for (const [name, next, note] of plan) {
      const result = await scenario('peer', name, proc, next, { headers: {}, ...(note ? { note } : {}) });
      results.scenarios.push(result);
      maxRates[name] = result.requestsPerSecond;
    }
    for (const [name, next] of [plan[0]!, plan[2]!]) {
      results.halfRate.push(await scenario('peer', name[0] === 's' ? 'send' : 'verify-right', proc, next, {
        headers: {}, overallRate: Math.max(1, Math.round(maxRates[name]! / 2)), durationS: settings.halfRateDurationS, warmupS: 1,
      }));
    }
    if (rightCursor > settings.peerRightPool) results.warnings.push('The peer\'s verify-right pool ran out and wrapped around: some of its verify-right requests found no code (400).');
  } finally {
    await proc.stop();
  }
}

// --- scale of data ---

/**
 * How long the server's periodic purge takes on this database, with the store's own purge timed in
 * this process: the first run after seeding (it catches up with the seeded history, in batches) and
 * the next one, which is what the server pays every minute once it keeps up. The purge yields to
 * other work between batches, so what a request can wait behind is the longest batch: the event
 * loop's largest delay while the purges ran.
 */
async function timePurge(file: string): Promise<{ totalMs: number; parts: Record<string, number> }> {
  const store = await openStore(`sqlite:${file}`);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const timed = async () => {
    const started = process.hrtime.bigint();
    await store.purge(Date.now(), 30 * 86_400_000);
    return Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
  };
  try {
    delay.enable();
    const first = await timed();
    const steady = await timed();
    delay.disable();
    return { totalMs: steady, parts: { 'first run (catching up)': first, 'steady run': steady, 'longest hold of the event loop': Math.round(delay.max / 1e5) / 10 } };
  } finally {
    await store.close();
  }
}

async function runScale(results: BenchResults): Promise<void> {
  let fixedRates: { send: number; verify: number } | undefined;
  for (const size of settings.scaleSizes) {
    log(`scale: ${size.toLocaleString('en')} PINs stored`);
    const dir = path.join(workDir, `scale-${size}`);
    fs.mkdirSync(dir);
    const fixture = await prepareTwofaDatabase({ file: path.join(dir, 'twofa.db'), rightPool: quick ? 40_000 : 80_000, wrongPool: 0, filler: size, log });
    const fileMb = Math.round(fs.statSync(fixture.file).size / 1e6);
    log(`  seeded in ${fixture.seedSeconds.toFixed(1)} s (${fileMb} MB)`);
    const purge = await timePurge(fixture.file);
    const purgeMs = purge.totalMs;
    log(`  purge of ended PINs (the server runs it every minute): ${Object.entries(purge.parts).map(([k, v]) => `${k} ${v} ms`).join(', ')}`);
    const server = await startTwofa(fixture);
    const make = twofaRequests(fixture);
    try {
      const run = (name: string, next: () => BenchRequest, overallRate?: number) =>
        scenario('twofa', `${name} @${size}`, server, next, { durationS: settings.scaleDurationS, warmupS: 1, ...(overallRate ? { overallRate } : {}) });
      const verifyMax = await run('verify-right', make.verifyRight);
      const sendMax = await run('send', make.send);
      await drainOutbox(fixture.file);
      // Latency compared at one fixed rate for every size: half of what the smallest database allowed.
      fixedRates ??= { send: Math.max(1, Math.round(sendMax.requestsPerSecond / 2)), verify: Math.max(1, Math.round(verifyMax.requestsPerSecond / 2)) };
      const verifyFixed = await run('verify-right', make.verifyRight, fixedRates.verify);
      const sendFixed = await run('send', make.send, fixedRates.send);
      await drainOutbox(fixture.file);
      const entry: ScaleResult = { storedPins: size + fixture.rightPool.length, fillerPins: size, seedSeconds: fixture.seedSeconds, fileMb, purgeMs, purgeParts: purge.parts, verifyMax, sendMax, verifyFixed, sendFixed };
      results.scale.push(entry);
    } finally {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

// --- main ---

function gitDescription(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim() !== '';
    // Another build of src/ (a before/after pair): the processes under test are not this checkout's.
    if (process.env['BENCH_PREBUILT'] === '1') return `the build in ${BUILD_DIR} (bench from ${commit})`;
    return `${commit}${dirty ? ' + uncommitted changes in src/' : ''}`;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const reportFrom = option('report');
  if (reportFrom !== undefined) {
    // Rewrites BENCHMARKS.md from a run already measured (after bench/NOTES.md changed, say).
    const results = JSON.parse(fs.readFileSync(reportFrom, 'utf8')) as BenchResults;
    const written = writeReport(results, { projectRoot: PROJECT_ROOT, resultsDir, stamp: path.basename(reportFrom, '.json') });
    log(`report: ${written.map((f) => path.relative(PROJECT_ROOT, f)).join(', ')}`);
    return;
  }
  const started = Date.now();
  log(`twofa bench (${settings.mode}); building…`);
  buildForBench();
  const results: BenchResults = {
    date: new Date().toISOString(),
    label: option('label') ?? null,
    settings,
    machine: {
      cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', memoryGb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version, platform: `${os.type()} ${os.release()}`, loadBefore: loadAverage(), loadAfter: [0, 0, 0],
      pressureBefore: pressure(), pressureAfter: pressure(),
    },
    code: gitDescription(),
    scenarios: [], halfRate: [], storage: [], scale: [], delivery: [], warnings: [], durationS: 0,
  };
  log(`load average before: ${results.machine.loadBefore.join(' ')}; CPU pressure (share of time something waited for a CPU, last 60 s): ${results.machine.pressureBefore?.cpu ?? "?"} %`);
  const cpuPressure = results.machine.pressureBefore?.cpu ?? 0;
  if (results.machine.loadBefore[0] > results.machine.cpus * 0.5 || cpuPressure > 20) {
    results.warnings.push(`The machine was busy when the run started (load average ${results.machine.loadBefore.join(' ')} on ${results.machine.cpus} cores, CPU pressure ${cpuPressure} %): figures are lower and noisier than on an idle machine.`);
  }
  try {
    if (groups.has('ceiling')) await runCeiling(results);
    if (groups.has('storage')) await runStorage(results);
    if (groups.has('twofa')) await runTwofa(results);
    if (groups.has('pg')) await runPg(results);
    if (groups.has('peer')) await runPeer(results);
    if (groups.has('scale')) await runScale(results);
    if (groups.has('timing')) {
      log('timing: constant-time comparisons, in process');
      results.compareTiming = await measureCompareTiming(quick ? 5_000 : 20_000);
      for (const t of results.compareTiming) log(`  ${t.name}: ${t.inputs.map((i) => `${i.label} median ${i.medianNs} ns`).join(', ')}; Welch t ${t.welchT}`);
    }
    if (groups.has('delivery')) await runDelivery(results);
  } finally {
    await stopReceiver();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  results.machine.loadAfter = loadAverage();
  results.machine.pressureAfter = pressure();
  results.durationS = Math.round((Date.now() - started) / 1000);
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${stamp}.json`);
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  log(`\nresults: ${path.relative(PROJECT_ROOT, file)} (${results.durationS} s in all; load average after: ${results.machine.loadAfter.join(' ')})`);
  if (!flag('no-report')) {
    // The delivery group alone rewrites its own section of BENCHMARKS.md and keeps the rest.
    const written = [...groups].every((g) => g === 'delivery')
      ? updateDeliverySection(results, { projectRoot: PROJECT_ROOT, resultsDir, stamp })
      : writeReport(results, { projectRoot: PROJECT_ROOT, resultsDir, stamp });
    log(`report: ${written.map((f) => path.relative(PROJECT_ROOT, f)).join(', ')}`);
  }
  for (const warning of results.warnings) log(`warning: ${warning}`);
}

await main();
