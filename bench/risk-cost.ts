// What the risk score costs a send, as a user runs twofa: `twofa serve` compiled (as npm start runs
// it), over HTTP, logging every request, on SQLite, every PIN delivered by webhook to the bench's
// receiver. One server alternates rounds with its application's risk mode off and in shadow
// (switched through PUT /api/v1/applications/{id}/risk, so that both sides share the machine's load
// of the moment, the one that goes first alternating), each round the same number of sends, 50 in
// flight; the server's CPU (user + system, all its threads: /proc/<pid>/stat) from a round's first
// request until its last message has reached the receiver, per send. bench/hot-cpu.ts measures the
// same in process, without HTTP and its logs (a smaller denominator, for comparing changes).
//
//   npx tsx bench/risk-cost.ts [pairs=12] [sends per round=2000] [--sequential]
//
// Traffic: numbers spread over the whole range, 17 in 20 verified between rounds (lib/verify-most.ts:
// allowed, one decision in 20 recorded, as most real sends, each its own new number and blocks), or
// --sequential (never verified: every send shadow-blocked and its decision recorded, the costliest case). Writes bench/results/risk-cost-<time>.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { phoneOf } from './lib/identities.js';
import { buildForBench, PROJECT_ROOT } from './lib/processes.js';
import { cpuMs, loadAverage } from './lib/proc-stats.js';
import { BENCH_API_KEY, prepareTwofaDatabase } from './lib/twofa-fixture.js';
import { startReceiver, startTwofa, stopReceiver } from './lib/twofa-server.js';
import { digitsOf, verifyMostPins, type SentPins } from './lib/verify-most.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const pairs = Number(args[0] ?? 12);
const perRound = Number(args[1] ?? 2000);
const sequential = process.argv.includes('--sequential');
const inFlight = 50;
const headers = { authorization: `App ${BENCH_API_KEY}`, 'content-type': 'application/json' };

buildForBench();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-risk-cost-'));
const file = path.join(dir, 'twofa.db');
const fixture = await prepareTwofaDatabase({ file, rightPool: 10, wrongPool: 10, filler: 0 });
const receiver = await startReceiver({ keepCodes: true });
const server = await startTwofa(fixture);
const backlogDb = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
const backlog = backlogDb.prepare("select (select count(*) from pins where message_state = 'pending') + (select count(*) from outbox where state = 'pending') as n").pluck();

async function request(method: string, url: string, body: unknown): Promise<string> {
  const response = await fetch(`${server.url}${url}`, { method, headers, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return text;
}

const sent: SentPins = new Map();
/** Scattered traffic: most PINs of the round verified, as their users would, outside what is measured. */
async function verifyMost(): Promise<void> {
  if (sequential) return;
  await verifyMostPins(sent, receiver.url, async (pinId, pin) => {
    const { verified } = JSON.parse(await request('POST', `/2fa/2/pin/${pinId}/verify`, { pin })) as { verified: boolean };
    if (!verified) throw new Error(`PIN ${pinId} did not verify`);
  });
}

let next = 0;
/** `n` sends, `inFlight` at a time, then until the worker has delivered them all; the server's CPU per send. */
async function round(n: number): Promise<number> {
  const before = cpuMs(server.pid);
  let left = n;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (left-- > 0) {
      const i = next++;
      const { pinId, to } = JSON.parse(await request('POST', '/2fa/2/pin', { applicationId: fixture.appId, messageId: fixture.messageId, to: phoneOf(sequential ? 3_000_000 + (i % 1_000_000) : (i * 7_919_993) % 10_000_000) })) as { pinId: string; to: string };
      if (!sequential) sent.set(digitsOf(to), pinId);
    }
  }));
  while ((backlog.get() as number) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const used = ((cpuMs(server.pid) - before) * 1000) / n;
  await verifyMost();
  return used;
}

const setMode = (mode: string) => request('PUT', `/api/v1/applications/${fixture.appId}/risk`, { mode, blockScore: sequential ? 70 : 100 });

const loadBefore = loadAverage();
const results: { off: number; shadow: number }[] = [];
try {
  await setMode('off');
  await round(Math.min(2000, perRound)); // warm-up: JIT, caches, connections
  for (let r = 0; r < pairs; r++) {
    const cpu: Record<string, number> = {};
    for (const mode of r % 2 === 0 ? ['off', 'shadow'] : ['shadow', 'off']) {
      await setMode(mode);
      cpu[mode] = await round(perRound);
    }
    results.push({ off: cpu['off']!, shadow: cpu['shadow']! });
    process.stdout.write(`pair ${r + 1}: off ${cpu['off']!.toFixed(1)} µs, shadow ${cpu['shadow']!.toFixed(1)} µs per send, ratio ${(cpu['shadow']! / cpu['off']!).toFixed(3)}\n`);
  }
} finally {
  backlogDb.close();
  await server.stop();
  await stopReceiver();
  fs.rmSync(dir, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const total = (side: 'off' | 'shadow') => results.reduce((sum, p) => sum + p[side], 0);
const summary = {
  date: new Date().toISOString(), traffic: sequential ? 'sequential' : 'scattered', pairs, sendsPerRound: perRound, inFlight,
  loadBefore, loadAfter: loadAverage(), pairsMeasured: results,
  medianOffUs: median(results.map((p) => p.off)), medianShadowUs: median(results.map((p) => p.shadow)),
  medianRatio: median(results.map((p) => p.shadow / p.off)), ratioOfTotals: total('shadow') / total('off'),
};
process.stdout.write(`risk score over HTTP, ${summary.traffic} traffic, ${pairs} pairs of ${perRound} sends: median off ${summary.medianOffUs.toFixed(1)} µs, shadow ${summary.medianShadowUs.toFixed(1)} µs per send;`
  + ` median ratio ${summary.medianRatio.toFixed(3)}, ratio of the totals ${summary.ratioOfTotals.toFixed(3)} (load average ${summary.loadBefore.join(' ')} before, ${summary.loadAfter.join(' ')} after)\n`);
const out = path.join(PROJECT_ROOT, 'bench', 'results', `risk-cost-${summary.date.replace(/:/g, '-').replace(/\..*/, '')}.json`);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
process.stdout.write(`results: ${path.relative(PROJECT_ROOT, out)}\n`);
