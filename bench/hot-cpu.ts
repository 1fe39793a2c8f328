// CPU (and, on PostgreSQL, statements) per request of the hot path in one process, for before/after
// comparisons of a change while the machine is too busy for `npm run bench` to tell (its figures are
// rates, which follow the load of the machine; CPU time per request follows it much less). A node on
// a seeded database answers through Fastify's inject(), `inFlight` requests at a time, durability
// included:
//   verify-wrong: POST /2fa/2/pin/{pinId}/verify with wrong PINs, round robin over live PINs (as the
//                 bench's verify-wrong);
//   send:         POST /2fa/2/pin to fresh numbers, every PIN delivered by webhook+http:// to the bench's
//                 receiver in its own process (as the bench's send); the CPU of each round includes
//                 delivering its backlog.
//
//   npx tsx bench/hot-cpu.ts [verify-wrong|send] [requests=20000] [inFlight=50] [--pg] [--statements]
//   BENCH_BUILD_DIR=<dir with src/> npx tsx bench/hot-cpu.ts ...   the same on another checkout's src/
//   BENCH_RISK_MODE=shadow npx tsx bench/hot-cpu.ts send ...   with the risk score on (off otherwise)
//   BENCH_RISK_MODE=ab npx tsx bench/hot-cpu.ts send [requests per round] ...   the risk score's cost: one
//     process alternates rounds with the score off and in shadow mode (the application's mode switched
//     through PUT /api/v1/applications/{id}/risk between rounds), so that both sides see the same
//     load of a shared machine; prints each pair's ratio and their median, for the whole process and
//     for the event loop's thread alone (process.threadCpuUsage: without the WAL checkpointer's
//     thread, the fsyncs and V8's helpers), and the bytes the process wrote per send (/proc/self/io). BENCH_RISK_TRAFFIC=scattered
//     sends to numbers spread over the whole range, 85 % of them verified with their code between rounds
//     (outside what is measured), as users do: allowed, one decision in 20 recorded, as most real sends
//     are; instead of sequential ones never verified (scored high: every send shadow-blocked and
//     recorded, the costliest case).
//   BENCH_AB_PROFILE_DIR=<dir>: with BENCH_RISK_MODE=ab, a V8 CPU profile of each round (off-1, shadow-1, ...)
//   --pg: on a scratch PostgreSQL database of the local server (bench/lib/pg-fixture.ts), dropped after
//   --statements (PostgreSQL): every statement sent to the database during one request of the
//   scenario, in order, and the statements per request over the measured rounds
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { phoneOf, wrongPinOf } from './lib/identities.js';
import { dropDatabase, pendingMessages, preparePgDatabase } from './lib/pg-fixture.js';
import { freePort } from './lib/processes.js';
import { digitsOf, verifyMostPins, type SentPins } from './lib/verify-most.js';
import { BENCH_API_KEY, BENCH_SECRET, prepareTwofaDatabase } from './lib/twofa-fixture.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const onPostgres = process.argv.includes('--pg');
const scenario = args[0] === 'send' ? 'send' : 'verify-wrong';
const requests = Number(args[1] ?? 20_000);
const inFlight = Number(args[2] ?? 50);
const src = path.resolve(process.env['BENCH_BUILD_DIR'] ?? path.join(import.meta.dirname, '..'), 'src');
const { loadConfig } = await import(pathToFileURL(path.join(src, 'config.ts')).href) as typeof import('../src/config.js');
const { createLogger } = await import(pathToFileURL(path.join(src, 'logger.ts')).href) as typeof import('../src/logger.js');
const { createNode } = await import(pathToFileURL(path.join(src, 'main.ts')).href) as typeof import('../src/main.js');

// Every statement a pool connection sends (node-postgres' Client.query), counted, and listed while `trace` is set.
let statements = 0;
let trace: string[] | undefined;
const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
pg.Client.prototype.query = function counted(this: pg.Client, ...a: unknown[]) {
  statements += 1;
  const first = a[0] as string | { text?: string };
  trace?.push((typeof first === 'string' ? first : first.text ?? '?').replace(/\s+/g, ' ').slice(0, 160));
  return query.apply(this, a);
} as typeof pg.Client.prototype.query;

const riskAb = process.env['BENCH_RISK_MODE'] === 'ab';
const scattered = process.env['BENCH_RISK_TRAFFIC'] === 'scattered';
const receiverPort = await freePort();
const receiver = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'receiver-server.ts')], { env: { ...process.env, BENCH_PORT: String(receiverPort), ...(scattered ? { BENCH_RECEIVER_CODES: '1' } : {}) }, stdio: 'ignore' });
for (let tries = 0; ; tries++) {
  const up = await fetch(`http://127.0.0.1:${receiverPort}/`).then(() => true, () => false);
  if (up) break;
  if (tries > 100) throw new Error('the receiver did not start');
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-hot-cpu-'));
const file = path.join(dir, 'twofa.db');
const pgName = `twofa_hot_cpu_${process.pid}`;
const pool = scenario === 'send' ? 1000 : 20_000;
const fixture = onPostgres ? await preparePgDatabase(pgName, pool) : await prepareTwofaDatabase({ file, rightPool: 10, wrongPool: pool, filler: 0 });
const databaseUrl = 'url' in fixture ? fixture.url : `sqlite:${file}`;
const config = loadConfig({
  TWOFA_DATA_DIR: dir, TWOFA_DATABASE_URL: databaseUrl, TWOFA_SECRET: BENCH_SECRET, TWOFA_LOG_LEVEL: 'warn',
  TWOFA_SMS_DSN: `webhook+http://127.0.0.1:${receiverPort}/sms?secret=whsec_YmVuY2gtd2ViaG9vay1zZWNyZXQtMDEyMzQ1Njc4OQ==`,
  // Off unless asked: the sends go to sequential numbers never verified, which enforce would block.
  // BENCH_RISK_MODE=shadow scores and records every send (nearly all shadow-blocked: the costliest case).
  TWOFA_RISK_DEFAULT_MODE: riskAb ? 'off' : process.env['BENCH_RISK_MODE'] ?? 'off',
});
const node = await createNode(config, createLogger(config.logLevel));
if (scenario === 'send') node.worker.start();
const headers = { authorization: `App ${BENCH_API_KEY}`, 'content-type': 'application/json' };

/** The application's risk settings: under scattered traffic a threshold of 100, so that its sends are allowed (as most real ones). */
async function setRiskMode(mode: string): Promise<void> {
  const response = await node.app.inject({ method: 'PUT', url: `/api/v1/applications/${fixture.appId}/risk`, headers, payload: JSON.stringify({ mode, blockScore: scattered ? 100 : 70 }) });
  if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`);
}
if (!riskAb && scattered && process.env['BENCH_RISK_MODE'] === 'shadow') await setRiskMode('shadow');

let next = 0;
/** The PINs sent since the last verifyMost() (scattered traffic), by their number's digits. */
const sent: SentPins = new Map();
async function one(): Promise<void> {
  const i = next++;
  const response = scenario === 'send'
    ? await node.app.inject({ method: 'POST', url: '/2fa/2/pin', headers, payload: JSON.stringify({ applicationId: fixture.appId, messageId: fixture.messageId, to: phoneOf(scattered ? (i * 7_919_993) % 10_000_000 : 3_000_000 + (i % 1_000_000)) }) })
    : await node.app.inject({ method: 'POST', url: `/2fa/2/pin/${fixture.wrongPool[i % fixture.wrongPool.length]}/verify`, headers, payload: JSON.stringify({ pin: wrongPinOf(i % fixture.wrongPool.length) }) });
  if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`);
  if (scenario === 'send' && scattered) {
    const { pinId, to } = JSON.parse(response.body) as { pinId: string; to: string };
    sent.set(digitsOf(to), pinId);
  }
}

/** Scattered traffic: most PINs sent since the last call verified, as their users would (lib/verify-most.ts), outside the rounds measured. */
async function verifyMost(): Promise<void> {
  if (!scattered) return;
  await verifyMostPins(sent, `http://127.0.0.1:${receiverPort}`, async (pinId, pin) => {
    const response = await node.app.inject({ method: 'POST', url: `/2fa/2/pin/${pinId}/verify`, headers, payload: JSON.stringify({ pin }) });
    if (response.statusCode !== 200 || !(JSON.parse(response.body) as { verified: boolean }).verified) throw new Error(`${response.statusCode} ${response.body}`);
  });
}

let sqlitePending: BetterSqlite3.Statement | undefined;
/** Queued messages not delivered yet (the worker's backlog). */
async function backlog(): Promise<number> {
  if (onPostgres) return pendingMessages(databaseUrl);
  sqlitePending ??= new BetterSqlite3(file, { readonly: true, fileMustExist: true })
    .prepare("select (select count(*) from pins where message_state = 'pending') + (select count(*) from outbox where state = 'pending') as n").pluck();
  return sqlitePending.get() as number;
}

/** Bytes this process has written through write() and its kind (/proc/self/io wchar): the WAL, checkpoints, sockets. */
function bytesWritten(): number {
  return Number(/wchar: (\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))?.[1] ?? 0);
}

async function run(n: number): Promise<{ cpuUs: number; mainUs: number; wallMs: number; statements: number; writtenBytes: number }> {
  const written = bytesWritten();
  const cpu = process.cpuUsage();
  const mainCpu = process.threadCpuUsage();
  const start = performance.now();
  const before = statements;
  let left = n;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (left-- > 0) await one();
  }));
  const wallMs = performance.now() - start;
  // A send's cost includes its delivery: the round ends when the worker has caught up.
  if (scenario === 'send') while (await backlog() > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const used = process.cpuUsage(cpu);
  const main = process.threadCpuUsage(mainCpu);
  return { cpuUs: (used.user + used.system) / n, mainUs: (main.user + main.system) / n, wallMs, statements: (statements - before) / n, writtenBytes: (bytesWritten() - written) / n };
}

await run(Math.min(2000, requests)); // warm-up: JIT, caches
await verifyMost();
if (process.argv.includes('--statements')) {
  await new Promise((resolve) => setTimeout(resolve, 500));
  trace = [];
  await one();
  if (scenario === 'send') while (await backlog() > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setTimeout(resolve, 300));
  process.stdout.write(`statements of one ${scenario} (its delivery included; the backlog polls of this script are the 'count(*)' ones):\n${trace.map((t, k) => `  ${k + 1}. ${t}`).join('\n')}\n`);
  trace = undefined;
}
/** BENCH_AB_PROFILE_DIR: each round of the A/B profiled on its own (V8's profiler, through the inspector), a .cpuprofile per round. */
const profileDir = process.env['BENCH_AB_PROFILE_DIR'];
const profiler = profileDir === undefined ? undefined : await (async () => {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  // Every 100 µs rather than V8's 1 ms: a send is about a millisecond.
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  fs.mkdirSync(profileDir, { recursive: true });
  return {
    start: () => session.post('Profiler.start'),
    stop: async (name: string) => {
      const { profile } = await session.post('Profiler.stop');
      fs.writeFileSync(path.join(profileDir, `${name}.cpuprofile`), JSON.stringify(profile));
    },
  };
})();
if (riskAb) {
  const pairs: { off: number; on: number; mainOff: number; mainOn: number }[] = [];
  for (let r = 0; r < Number(process.env['BENCH_AB_PAIRS'] ?? 6); r++) {
    // Which side goes first alternates, so that neither always follows the other's backlog.
    const order = r % 2 === 0 ? ['off', 'shadow'] : ['shadow', 'off'];
    const cpu: Record<string, number> = {};
    const mainCpu: Record<string, number> = {};
    const writtenBytes: Record<string, number> = {};
    for (const mode of order) {
      await setRiskMode(mode);
      await profiler?.start();
      const round = await run(requests);
      await profiler?.stop(`${mode}-${r + 1}`);
      await verifyMost();
      cpu[mode] = round.cpuUs;
      mainCpu[mode] = round.mainUs;
      writtenBytes[mode] = round.writtenBytes;
    }
    pairs.push({ off: cpu['off']!, on: cpu['shadow']!, mainOff: mainCpu['off']!, mainOn: mainCpu['shadow']! });
    process.stdout.write(`pair ${r + 1}: off ${cpu['off']!.toFixed(1)} µs, shadow ${cpu['shadow']!.toFixed(1)} µs, ratio ${(cpu['shadow']! / cpu['off']!).toFixed(3)}`
      + ` (event loop's thread: ${mainCpu['off']!.toFixed(1)} / ${mainCpu['shadow']!.toFixed(1)} µs, ratio ${(mainCpu['shadow']! / mainCpu['off']!).toFixed(3)};`
      + ` bytes written per send: ${Math.round(writtenBytes['off']!)} / ${Math.round(writtenBytes['shadow']!)})\n`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const total = (side: 'off' | 'on' | 'mainOff' | 'mainOn') => pairs.reduce((sum, p) => sum + p[side], 0);
  process.stdout.write(`risk score, ${scattered ? 'scattered' : 'sequential'} traffic, ${pairs.length} pairs of ${requests} sends: median off ${median(pairs.map((p) => p.off)).toFixed(1)} µs, shadow ${median(pairs.map((p) => p.on)).toFixed(1)} µs;`
    + ` median ratio ${median(pairs.map((p) => p.on / p.off)).toFixed(3)}, ratio of the totals ${(total('on') / total('off')).toFixed(3)};`
    + ` the event loop's thread alone: median ratio ${median(pairs.map((p) => p.mainOn / p.mainOff)).toFixed(3)}, ratio of the totals ${(total('mainOn') / total('mainOff')).toFixed(3)}\n`);
}
const rounds = [];
for (let r = 0; r < (riskAb ? 0 : 3); r++) rounds.push(await run(requests));
const best = rounds.reduce((a, b) => (a.cpuUs < b.cpuUs ? a : b), { cpuUs: Infinity, wallMs: 0, statements: 0 });
if (rounds.length > 0) process.stdout.write(`${scenario} in process${onPostgres ? ' (PostgreSQL)' : ''}: ${rounds.map((r) => r.cpuUs.toFixed(1)).join(' / ')} µs CPU per request (best ${best.cpuUs.toFixed(1)}; ${Math.round(requests / (best.wallMs / 1000))} req/s`
  + `${onPostgres ? `; ${rounds.map((r) => r.statements.toFixed(2)).join(' / ')} statements per request` : ''})\n`);
await node.stop();
receiver.kill();
if (onPostgres) await dropDatabase(pgName);
fs.rmSync(dir, { recursive: true, force: true });
