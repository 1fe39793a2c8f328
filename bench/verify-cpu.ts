// CPU per verify-wrong in one process, for before/after comparisons of a change to the verify path
// while the machine is too busy for `npm run bench` to tell (its figures are rates, which follow the
// load of the machine; CPU time per request follows it much less). A node on a seeded SQLite file
// answers POST /2fa/2/pin/{pinId}/verify through Fastify's inject(), `inFlight` requests at a time,
// wrong PINs round robin over live PINs (as the bench's verify-wrong), durability included.
//
//   npx tsx bench/verify-cpu.ts [requests=20000] [inFlight=50] [--pg]
//   BENCH_BUILD_DIR=<dir with src/> npx tsx bench/verify-cpu.ts    the same on another checkout's src/
//   --pg: on a scratch PostgreSQL database of the local server (bench/lib/pg-fixture.ts), dropped after
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { wrongPinOf } from './lib/identities.js';
import { dropDatabase, preparePgDatabase } from './lib/pg-fixture.js';
import { BENCH_API_KEY, BENCH_SECRET, prepareTwofaDatabase } from './lib/twofa-fixture.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const onPostgres = process.argv.includes('--pg');
const requests = Number(args[0] ?? 20_000);
const inFlight = Number(args[1] ?? 50);
const src = path.resolve(process.env['BENCH_BUILD_DIR'] ?? path.join(import.meta.dirname, '..'), 'src');
const { loadConfig } = await import(pathToFileURL(path.join(src, 'config.ts')).href) as typeof import('../src/config.js');
const { createLogger } = await import(pathToFileURL(path.join(src, 'logger.ts')).href) as typeof import('../src/logger.js');
const { createNode } = await import(pathToFileURL(path.join(src, 'main.ts')).href) as typeof import('../src/main.js');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-verify-cpu-'));
const file = path.join(dir, 'twofa.db');
const pgName = `twofa_verify_cpu_${process.pid}`;
const fixture = onPostgres ? await preparePgDatabase(pgName, 20_000) : await prepareTwofaDatabase({ file, rightPool: 10, wrongPool: 20_000, filler: 0 });
const databaseUrl = 'url' in fixture ? fixture.url : `sqlite:${file}`;
const config = loadConfig({ TWOFA_DATA_DIR: dir, TWOFA_DATABASE_URL: databaseUrl, TWOFA_SECRET: BENCH_SECRET, TWOFA_LOG_LEVEL: 'warn' });
const node = await createNode(config, createLogger(config.logLevel));
const headers = { authorization: `App ${BENCH_API_KEY}`, 'content-type': 'application/json' };

let next = 0;
async function one(): Promise<void> {
  const i = next++ % fixture.wrongPool.length;
  const response = await node.app.inject({ method: 'POST', url: `/2fa/2/pin/${fixture.wrongPool[i]}/verify`, headers, payload: JSON.stringify({ pin: wrongPinOf(i) }) });
  if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`);
}
async function run(n: number): Promise<{ cpuUs: number; wallMs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  let left = n;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (left-- > 0) await one();
  }));
  const used = process.cpuUsage(cpu);
  return { cpuUs: (used.user + used.system) / n, wallMs: performance.now() - start };
}

await run(Math.min(5000, requests)); // warm-up: JIT, caches
const rounds = [];
for (let r = 0; r < 3; r++) rounds.push(await run(requests));
const best = rounds.reduce((a, b) => (a.cpuUs < b.cpuUs ? a : b));
process.stdout.write(`verify-wrong in process${onPostgres ? ' (PostgreSQL)' : ''}: ${rounds.map((r) => r.cpuUs.toFixed(1)).join(' / ')} µs CPU per request (best ${best.cpuUs.toFixed(1)}; ${Math.round(requests / (best.wallMs / 1000))} req/s)\n`);
await node.stop();
if (onPostgres) await dropDatabase(pgName);
fs.rmSync(dir, { recursive: true, force: true });
