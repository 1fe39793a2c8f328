// Writes BENCHMARKS.md and an SVG chart from a run's results (and the history of earlier runs kept
// in bench/results/*.json). bench/NOTES.md, written by hand, is appended as the analysis.
import fs from 'node:fs';
import path from 'node:path';
import type { CompareTiming } from './compare-timing.js';
import type { DeliveryResult } from './delivery-bench.js';
import type { LoadResult } from './load.js';
import type { StorageResult } from './storage-ceiling.js';

export interface ScenarioResult extends LoadResult {
  target: 'twofa' | 'ceiling' | 'peer' | 'twofa-pg' | 'pgbench';
  name: string;
  note?: string;
  /** Seconds the delivery worker needed after the run to deliver what was still queued. */
  drainS?: number;
}

export interface ScaleResult {
  storedPins: number;
  fillerPins: number;
  seedSeconds: number;
  fileMb: number;
  purgeMs?: number;
  purgeParts?: Record<string, number>;
  verifyMax: ScenarioResult;
  sendMax: ScenarioResult;
  verifyFixed: ScenarioResult;
  sendFixed: ScenarioResult;
}

export interface BenchResults {
  date: string;
  label: string | null;
  settings: Record<string, unknown>;
  machine: {
    cpus: number; cpuModel: string; memoryGb: number; node: string; platform: string; loadBefore: [number, number, number]; loadAfter: [number, number, number];
    pressureBefore?: { cpu: number | null; io: number | null }; pressureAfter?: { cpu: number | null; io: number | null };
  };
  code: string;
  scenarios: ScenarioResult[];
  halfRate: ScenarioResult[];
  storage: StorageResult[];
  scale: ScaleResult[];
  /** The constant-time comparisons (the `timing` group); absent from runs before it existed. */
  compareTiming?: CompareTiming[];
  /** Time to the phone (bench/lib/delivery-bench.ts); absent in runs made before it was measured. */
  delivery?: DeliveryResult[];
  warnings: string[];
  durationS: number;
}

const int = (n: number) => Math.round(n).toLocaleString('en');
const ms = (n: number) => n.toFixed(n < 10 ? 2 : 1);
/** The purge's first and steady runs, and its longest hold of the event loop (older runs: one figure). */
const purgeColumns = (s: ScaleResult) => {
  const parts = s.purgeParts ?? {};
  const first = parts['first run (catching up)'];
  const hold = parts['longest hold of the event loop'];
  if (s.purgeMs === undefined) return '— | —';
  return `${first === undefined ? '' : `${ms(first)} / `}${ms(s.purgeMs)} | ${hold === undefined ? '—' : ms(hold)}`;
};
/** The longest the purge held the event loop at once (one batch), when measured. */
const purgeHold = (s: ScaleResult) => {
  const hold = s.purgeParts?.['longest hold of the event loop'];
  return hold === undefined ? '' : `; the longest it held the event loop at once: ${ms(hold)} ms`;
};
const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
const x = (n: number, digits = 2) => `${n.toFixed(digits)}×`;

function find(results: BenchResults, target: ScenarioResult['target'], name: string, list: ScenarioResult[] = results.scenarios): ScenarioResult | undefined {
  return list.find((s) => s.target === target && s.name === name);
}

function statuses(s: ScenarioResult): string {
  return Object.entries(s.statuses).map(([code, n]) => `${code}: ${int(n)}`).join(', ') + (s.errors ? `, errors: ${s.errors}` : '');
}

interface Target {
  what: string;
  goal: string;
  measured: string;
  met: boolean | null;
}

/**
 * The ceiling a scenario is measured against, in the same run: the empty Fastify route for twofa on
 * SQLite (and for the ceiling itself), `pgbench -N` for twofa on PostgreSQL.
 */
export function ceilingOf(r: BenchResults, target: ScenarioResult['target']): ScenarioResult | undefined {
  return target === 'twofa-pg' || target === 'pgbench' ? find(r, 'pgbench', 'pgbench -N') : find(r, 'ceiling', 'empty-route');
}

const STACK = { twofa: 'SQLite', 'twofa-pg': 'PostgreSQL' } as Record<string, string>;

export function targets(r: BenchResults): Target[] {
  const out: Target[] = [];
  const vsCeiling = (target: 'twofa' | 'twofa-pg', name: string, goal: number) => {
    const s = find(r, target, name);
    const ceiling = ceilingOf(r, target);
    if (!s || !ceiling) return;
    const unit = target === 'twofa' ? 'req/s' : 'req/s vs tps';
    const share = ratio(s.requestsPerSecond, ceiling.requestsPerSecond);
    out.push({ what: `${STACK[target]} ${name} vs ${ceiling.name === 'pgbench -N' ? '`pgbench -N`' : 'the empty-route ceiling'}`, goal: `≥ ${goal.toFixed(2)}`, measured: `${share.toFixed(3)} (${int(s.requestsPerSecond)} of ${int(ceiling.requestsPerSecond)} ${unit})${share < goal ? `: short by ${int(goal * ceiling.requestsPerSecond - s.requestsPerSecond)} req/s, ${x(goal / Math.max(share, 1e-9), 1)} to go` : ''}`, met: share >= goal });
  };
  vsCeiling('twofa', 'verify-wrong', 0.25);
  vsCeiling('twofa', 'send', 0.10);
  vsCeiling('twofa-pg', 'verify-wrong', 0.30);
  vsCeiling('twofa-pg', 'send', 0.15);
  const twofaHalf = r.halfRate.filter((s) => s.target === 'twofa' || s.target === 'twofa-pg');
  if (twofaHalf.length > 0) {
    const worst = twofaHalf.reduce((a, b) => (b.latencyMs.p99 > a.latencyMs.p99 ? b : a));
    const each = twofaHalf.map((s) => `${STACK[s.target]} ${s.name} ${ms(s.latencyMs.p99)}`).join(', ');
    out.push({ what: 'p99 at half of the maximum rate (every twofa scenario)', goal: '< 10 ms', measured: `${each} ms; worst ${STACK[worst.target]} ${worst.name} at ${int(worst.overallRate ?? 0)} req/s`, met: worst.latencyMs.p99 < 10 });
  }
  const vsPeer = (ours: string, theirs: string, goal: number) => {
    const a = find(r, 'twofa', ours);
    const b = find(r, 'peer', theirs);
    if (!a || !b) return;
    const times = ratio(a.requestsPerSecond, b.requestsPerSecond);
    out.push({ what: `${ours} vs the peer's ${theirs}`, goal: `≥ ${goal}×`, measured: `${x(times, 1)} (${int(a.requestsPerSecond)} vs ${int(b.requestsPerSecond)} req/s)${times < goal ? `: a factor of ${(goal / Math.max(times, 1e-9)).toFixed(1)} short` : ''}`, met: times >= goal });
  };
  void vsPeer;
  if (r.scale.length >= 2) {
    const small = r.scale[0]!;
    const big = r.scale[r.scale.length - 1]!;
    for (const [label, key] of [['verify', 'verifyFixed'], ['send', 'sendFixed']] as const) {
      const a = small[key].latencyMs;
      const b = big[key].latencyMs;
      const p50 = ratio(b.p50, a.p50);
      const p99 = ratio(b.p99, a.p99);
      out.push({
        what: `${label} latency at ${int(big.fillerPins)} vs ${int(small.fillerPins)} stored PINs (same fixed rate)`, goal: '≤ 1.5×',
        measured: `p50 ${x(p50)} (${ms(a.p50)} → ${ms(b.p50)} ms), p99 ${x(p99)} (${ms(a.p99)} → ${ms(b.p99)} ms)`, met: p50 <= 1.5 && p99 <= 1.5,
      });
    }
  }
  if (r.scale.length >= 2 && r.scale[0]!.purgeMs !== undefined && r.scale[r.scale.length - 1]!.purgeMs !== undefined) {
    const small = r.scale[0]!;
    const big = r.scale[r.scale.length - 1]!;
    out.push({
      what: `purge of ended PINs at ${int(big.fillerPins)} vs ${int(small.fillerPins)} stored (the run every minute, once caught up)`, goal: 'flat: ≤ 1.5× or ≤ 5 ms more',
      measured: `${ms(big.purgeMs!)} ms vs ${ms(small.purgeMs!)} ms (${x(ratio(big.purgeMs!, small.purgeMs!))})${purgeHold(big)}`, met: big.purgeMs! <= Math.max(1.5 * small.purgeMs!, small.purgeMs! + 5),
    });
  }
  for (const d of r.delivery ?? []) {
    if (d.target === undefined) continue;
    out.push({ what: `time to the phone, ${d.stack}: ${d.name}`, goal: d.target, measured: deliveryFigures(d), met: d.met ?? false });
  }
  const rss = [...r.scenarios, ...r.halfRate, ...r.scale.flatMap((s) => [s.verifyMax, s.sendMax, s.verifyFixed, s.sendFixed])].filter((s) => s.target === 'twofa' || s.target === 'twofa-pg');
  if (rss.length > 0) {
    const peak = rss.reduce((a, b) => (b.peakRssMb > a.peakRssMb ? b : a));
    out.push({ what: 'peak RSS of the server, every run', goal: '< 200 MB', measured: `${peak.peakRssMb.toFixed(0)} MB (${peak.name})`, met: peak.peakRssMb < 200 });
  }
  return out;
}

function deliveryFigures(d: DeliveryResult): string {
  return `${int(d.deliveredPerSecond)} delivered/s of ${int(d.acceptedPerSecond)} accepted/s, accepted→provider p50 ${ms(d.acceptedToProviderMs.p50)} / p99 ${ms(d.acceptedToProviderMs.p99)} ms${d.incomplete ? ` (${d.incomplete})` : ''}`;
}

const DELIVERY_START = '<!-- delivery:start -->';
const DELIVERY_END = '<!-- delivery:end -->';

/** The "Time to the phone" section: this run's delivery scenarios, and those of the latest "before" run of the last 3 hours. */
function deliverySection(r: BenchResults, past: BenchResults[]): string[] {
  const rows = r.delivery ?? [];
  if (rows.length === 0) return [];
  const L: string[] = [DELIVERY_START, '## Time to the phone', ''];
  L.push(`What a user waiting for a code feels: the time from the API's answer to the provider taking the message. Run of ${r.date.replace('T', ' ').slice(0, 16)} UTC, code ${r.code}; load average ${r.machine.loadBefore.join(' / ')} before, ${r.machine.loadAfter.join(' / ')} after${r.machine.pressureBefore?.cpu != null ? ` (CPU pressure ${r.machine.pressureBefore.cpu} % before)` : ''}. One twofa node on SQLite with default settings (and, with \`--delivery-pg\`, three nodes on one PostgreSQL database, the load sent to the first, all three delivering) sends each PIN to a provider stand-in in its own process (bench/provider-server.ts) through \`TWOFA_SMS_DSN=webhook+http://…\` (window 200 per node, no rate unless the scenario sets one: \`max_tps\` on one node, \`max_tps_global\` on three); the stand-in answers after the given latency and notes when each message arrived. *delivered/s*: messages the provider received divided by the time from the first acceptance to the last receipt (the load plus the drain); *accepted→provider*: per message, the provider's receipt minus the server's acceptance (the PIN's \`message_queued_at\`, written in the send's transaction just before the answer), the provider's own latency not included; *answer→provider*: the same from the moment the load generator had the API's answer (0 when the provider had the message first), what the user waits for, in the burst and steady scenarios (whose answers the bench reads; autocannon's full load does not); *held*: the most requests the provider had at once.`, '');
  const table = (list: DeliveryResult[]) => {
    L.push('| stack · scenario | provider latency | accepted | accepted/s | delivered/s | drain s | accepted→provider p50 ms | p90 ms | p99 ms | max ms | answer→provider p50 / p90 / p99 ms | held | target | met |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|');
    for (const d of list) {
      L.push(`| ${d.stack} · ${d.name} | ${d.providerLatencyMs} ms | ${int(d.accepted)} | ${int(d.acceptedPerSecond)} | ${int(d.deliveredPerSecond)} | ${d.drainS.toFixed(1)} | ${ms(d.acceptedToProviderMs.p50)} | ${d.acceptedToProviderMs.p90 === undefined ? '—' : ms(d.acceptedToProviderMs.p90)} | ${ms(d.acceptedToProviderMs.p99)} | ${ms(d.acceptedToProviderMs.max)} | ${d.answerToProviderMs ? `${ms(d.answerToProviderMs.p50)} / ${ms(d.answerToProviderMs.p90)} / ${ms(d.answerToProviderMs.p99)}` : '—'} | ${int(d.providerMaxInFlight)} | ${d.target ?? '—'} | ${d.met === undefined ? '—' : d.met ? 'yes' : '**no**'}${d.incomplete ? ` (${d.incomplete})` : ''} |`);
    }
    L.push('');
  };
  table(rows);
  const before = [...past].reverse().find((h) => h.date < r.date && (h.label ?? '').startsWith('before') && (h.delivery ?? []).length > 0
    && Date.parse(r.date) - Date.parse(h.date) <= 3 * 60 * 60_000);
  if (before) {
    L.push(`Before: the run of ${before.date.replace('T', ' ').slice(0, 16)} UTC (“${before.label}”, code ${before.code}), same bench and machine, load average ${before.machine.loadBefore.join(' / ')} before it.`, '');
    table(before.delivery ?? []);
  }
  L.push(DELIVERY_END, '');
  return L;
}

/** Rewrites the "Time to the phone" section of BENCHMARKS.md in place (a run of the delivery group alone), keeping the rest. */
export function updateDeliverySection(r: BenchResults, where: { projectRoot: string; resultsDir: string; stamp: string }): string[] {
  const out = path.join(where.projectRoot, 'BENCHMARKS.md');
  const text = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '# Benchmarks\n';
  const section = deliverySection(r, history(where.resultsDir)).join('\n');
  const start = text.indexOf(DELIVERY_START);
  const end = text.indexOf(DELIVERY_END);
  let updated: string;
  if (start !== -1 && end > start) updated = `${text.slice(0, start)}${section.trimEnd()}${text.slice(end + DELIVERY_END.length)}`;
  else {
    // Before the full-load tables: it is the figure a user feels first.
    const at = text.indexOf('## Throughput at full load');
    updated = at === -1 ? `${text.trimEnd()}\n\n${section}` : `${text.slice(0, at)}${section}\n${text.slice(at)}`;
  }
  fs.writeFileSync(out, updated);
  return [out];
}

function chart(r: BenchResults): string {
  const rows = r.scenarios;
  const barHeight = 20;
  const left = 260;
  const width = 900;
  const colors = { ceiling: '#9aa5b1', twofa: '#2f6f8f', peer: '#c8553d', pgbench: '#9aa5b1', 'twofa-pg': '#4f8f2f' };
  const parts: string[] = [];
  let y = 30;
  // Two panels: everything to the ceiling's scale, then twofa and the peer on their own scale.
  const panel = (title: string, list: ScenarioResult[]) => {
    const max = Math.max(1, ...list.map((s) => s.requestsPerSecond));
    const scale = (width - left - 170) / max;
    parts.push(`<text x="10" y="${y + 12}" font-size="13" font-style="italic">${title}</text>`);
    y += 20;
    for (const s of list) {
      const w = Math.max(1, s.requestsPerSecond * scale);
      parts.push(`<text x="${left - 8}" y="${y + 14}" text-anchor="end" font-size="12">${s.target} · ${s.name}</text>`
        + `<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="${barHeight}" fill="${colors[s.target]}"/>`
        + `<text x="${(left + w + 6).toFixed(1)}" y="${y + 14}" font-size="12">${int(s.requestsPerSecond)} req/s · p99 ${ms(s.latencyMs.p99)} ms</text>`);
      y += barHeight + 5;
    }
    y += 10;
  };
  panel('All processes, to the scale of the empty-route ceiling', rows);
  panel('twofa and Better Auth only, on their own scale', rows.filter((s) => s.target !== 'ceiling' && s.target !== 'pgbench' && s.name !== 'healthz'));
  const height = y + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="10" y="18" font-size="14" font-weight="bold">Requests per second at full load, ${settingsLine(r)} (${r.date.slice(0, 10)})</text>
${parts.join('\n')}
</svg>
`;
}

function settingsLine(r: BenchResults): string {
  return `${r.settings['connections']} connections, ${r.settings['durationS']} s per scenario, ${r.machine.cpus} cores shared with the load generator`;
}

function history(resultsDir: string): BenchResults[] {
  return fs.readdirSync(resultsDir).filter((f) => f.endsWith('.json')).sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(resultsDir, f), 'utf8')) as BenchResults);
}

export function writeReport(r: BenchResults, where: { projectRoot: string; resultsDir: string; stamp: string }): string[] {
  const chartFile = path.join(where.resultsDir, `${where.stamp}.svg`);
  fs.writeFileSync(chartFile, chart(r));
  const rel = (f: string) => path.relative(where.projectRoot, f);
  const L: string[] = [];
  L.push('# Benchmarks', '');
  L.push(`<!-- Generated by \`npm run bench\` (bench/run.ts) from ${rel(path.join(where.resultsDir, `${where.stamp}.json`))}; the analysis at the end is bench/NOTES.md. -->`, '');
  L.push(`Run of ${r.date.replace('T', ' ').slice(0, 16)} UTC${r.label ? ` (“${r.label}”)` : ''}, code ${r.code}, mode \`${r.settings['mode']}\`, ${r.durationS} s in all.`);
  const psi = (p?: { cpu: number | null; io: number | null }) => (p && p.cpu !== null ? `; CPU pressure ${p.cpu} %, I/O pressure ${p.io} %` : '');
  L.push(`Machine: ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.memoryGb} GB, ${r.machine.platform}, Node ${r.machine.node}. Load average ${r.machine.loadBefore.join(' / ')} before the run${psi(r.machine.pressureBefore)}, ${r.machine.loadAfter.join(' / ')} after${psi(r.machine.pressureAfter)} (load: 1/5/15 min; pressure: share of the last minute in which some task waited for a CPU or for I/O, from /proc/pressure).`);
  L.push(`Load: autocannon, ${settingsLine(r)}, after ${r.settings['warmupS']} s of warm-up.`, '');
  for (const w of r.warnings) L.push(`> **Note:** ${w}`, '');
  L.push(`![Requests per second](${rel(chartFile)})`, '');

  L.push('## Targets', '', '| target | goal | measured | met |', '|---|---|---|---|');
  for (const t of targets(r)) L.push(`| ${t.what} | ${t.goal} | ${t.measured} | ${t.met === null ? '—' : t.met ? 'yes' : '**no**'} |`);
  L.push('');

  L.push(...deliverySection(r, history(where.resultsDir)));

  L.push('## Throughput at full load', '');
  L.push('As fast as the process answers, with every connection busy. *× ceiling* is the share of the same run\'s ceiling of the stack: the empty Fastify route for twofa on SQLite, `pgbench -N` (transactions per second, 32 clients, on a scratch database of its own) for twofa on PostgreSQL (twofa-pg). Latency is measured by the load generator for every response (errors included); CPU is the process\'s user + system time (from /proc) divided by the responses; RSS is the process\'s peak resident set during the scenario (VmHWM).', '');
  L.push('| process · scenario | req/s | × ceiling | p50 ms | p90 ms | p99 ms | CPU µs/req | CPU cores | peak RSS MB | responses |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const s of r.scenarios) {
    const ceiling = ceilingOf(r, s.target);
    // pgbench reports its average latency only, and its processes are not ours to measure.
    const external = s.target === 'pgbench';
    const dash = (v: string) => (external ? '—' : v);
    L.push(`| ${s.target} · ${s.name} | ${int(s.requestsPerSecond)} | ${ceiling ? x(ratio(s.requestsPerSecond, ceiling.requestsPerSecond), 3) : '—'} | ${external ? `${ms(s.latencyMs.mean)} (mean)` : ms(s.latencyMs.p50)} | ${dash(ms(s.latencyMs.p90))} | ${dash(ms(s.latencyMs.p99))} | ${dash(int(s.cpuUsPerRequest))} | ${dash(s.cpuCores.toFixed(2))} | ${dash(s.peakRssMb.toFixed(0))} | ${external ? 'transactions' : statuses(s)} |`);
  }
  L.push('');
  const notes = r.scenarios.filter((s) => s.note || (s.drainS !== undefined && s.drainS > 0.2));
  for (const s of notes) {
    const parts = [s.note, s.drainS !== undefined && s.drainS > 0.2 ? `after the run the delivery worker needed ${s.drainS.toFixed(1)} s more to deliver what was queued (sends are accepted faster than the worker renders and records them)` : undefined].filter(Boolean);
    L.push(`- ${s.target} · ${s.name}: ${parts.join('; ')}.`);
  }
  if (notes.length > 0) L.push('');
  L.push('Scenarios: **send** `POST /2fa/2/pin` to a new number each time; **verify-wrong** a wrong PIN (20,000 PINs round robin, each stays below its 10 attempts); **verify-right** the right PIN, each PIN once; **status** `GET /2fa/2/applications/{appId}/verifications?msisdn=` (about 2.5 PINs per number); **mixed** a login day: per 20 requests 8 sends, 8 right verifies, 2 wrong verifies, 2 status queries; **send-refused** SMS pumping against Infobip\'s default limits; **healthz** the app\'s own stack on a route that does nothing.', '');

  L.push('## Latency at half of the maximum rate', '', 'The same scenarios at a fixed rate of half what each reached above, in an open loop: one request every 1/rate seconds, evenly spaced (autocannon\'s fixed rate paces each connection on its own timer, so its 50 connections fire together and measure the queue behind a burst), at most 50 in flight. Latency is timed from the moment each request was due, so a request that had to wait for a free connection counts that wait.', '');
  L.push('| process · scenario | rate req/s | p50 ms | p90 ms | p99 ms | max ms | CPU µs/req | p99 < 10 ms |', '|---|---:|---:|---:|---:|---:|---:|---|');
  for (const s of r.halfRate) L.push(`| ${s.target} · ${s.name} | ${int(s.overallRate ?? s.requestsPerSecond)} | ${ms(s.latencyMs.p50)} | ${ms(s.latencyMs.p90)} | ${ms(s.latencyMs.p99)} | ${ms(s.latencyMs.max)} | ${int(s.cpuUsPerRequest)} | ${s.latencyMs.p99 < 10 ? 'yes' : '**no**'} |`);
  L.push('');

  const peerRows = r.scenarios.filter((s) => s.target === 'peer');
  if (peerRows.length > 0) {
    L.push('## Against the peer: Better Auth phone-number OTP', '');
    L.push('| scenario | twofa req/s | Better Auth req/s | twofa ÷ Better Auth | twofa CPU µs/req | Better Auth CPU µs/req | twofa p99 ms | Better Auth p99 ms |', '|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const p of peerRows) {
      const ours = find(r, 'twofa', p.name.replace('+session', ''));
      L.push(`| ${p.name} | ${ours ? int(ours.requestsPerSecond) : '—'} | ${int(p.requestsPerSecond)} | ${ours ? x(ratio(ours.requestsPerSecond, p.requestsPerSecond), 1) : '—'} | ${ours ? int(ours.cpuUsPerRequest) : '—'} | ${int(p.cpuUsPerRequest)} | ${ours ? ms(ours.latencyMs.p99) : '—'} | ${ms(p.latencyMs.p99)} |`);
    }
    L.push('');
    for (const p of peerRows.filter((s) => s.note)) L.push(`- ${p.name}: ${p.note}.`);
    L.push('');
  }

  if (r.storage.length > 0) {
    L.push('## The storage ceiling', '', 'The hot paths\' SQL statements, prepared once and run in a tight loop on one better-sqlite3 connection: no HTTP, no Kysely, no event loop; a request\'s statements as the server runs them (sqlite/pin-statements.ts, the crypto of the PIN and the audit chain included), with a commit each or one per 16 requests (the server\'s shared transaction under load). With `synchronous=FULL` every commit waits for its own fsync; with `synchronous=OFF` what is left is the statements\' own cost: the floor of a request\'s CPU before any HTTP.', '');
    L.push('| statements | synchronous | ops/s | µs/op | commits/op |', '|---|---|---:|---:|---:|');
    for (const s of r.storage) L.push(`| ${s.name} | ${s.synchronous} | ${int(s.opsPerSecond)} | ${s.usPerOp} | ${s.commitsPerOp} |`);
    L.push('');
  }

  if (r.compareTiming !== undefined && r.compareTiming.length > 0) {
    L.push('## Constant-time comparisons', '', 'In process, each pair measured interleaved (bench/lib/compare-timing.ts). The attack suite proves these by construction (T15: every candidate PIN is one `timingSafeEqual` of two 32-byte HMACs; T21: every API key one lookup by the digest of the whole key); these are the wall-clock figures, with Welch\'s t of the two means (|t| well under 4: no difference the noise does not explain).', '');
    L.push('| comparison | input | mean ns | median ns | Welch t |', '|---|---|---:|---:|---:|');
    for (const t of r.compareTiming) {
      t.inputs.forEach((input, i) => L.push(`| ${i === 0 ? `${t.name}, ${int(t.samples)} each` : ''} | ${input.label} | ${int(input.meanNs)} | ${int(input.medianNs)} | ${i === 0 ? t.welchT.toFixed(2) : ''} |`));
    }
    L.push('');
  }

  if (r.scale.length > 0) {
    L.push('## Scale of data', '', `The same server on databases already holding many PINs (ended PINs of the last 30 days, as the default retention keeps them, seeded in bulk before the server starts). Besides them, each database holds the live PINs the verify runs use (${int(r.scale[0]!.storedPins - r.scale[0]!.fillerPins)}), and each ended PIN its outbox row and two delivery events. Maximum rate, then one fixed rate for every size (half of what the smallest database allowed). *purge ms*: the periodic purge of ended PINs on that database (the server runs it every minute): its first run after seeding, which catches up with the seeded history in batches of 100 rows, then the next run, what it costs every minute once caught up; *hold ms*: the longest it kept the event loop at once (one batch: requests wait at most that long behind it).`, '');
    L.push('| ended PINs stored | file MB | seeding s | purge ms: first / next | hold ms | verify req/s | send req/s | verify p50 / p99 ms at fixed rate | send p50 / p99 ms at fixed rate | peak RSS MB |', '|---:|---:|---:|---:|---:|---:|---:|---|---|---:|');
    for (const s of r.scale) {
      const rss = Math.max(s.verifyMax.peakRssMb, s.sendMax.peakRssMb, s.verifyFixed.peakRssMb, s.sendFixed.peakRssMb);
      L.push(`| ${int(s.fillerPins)} | ${int(s.fileMb)} | ${s.seedSeconds.toFixed(0)} | ${purgeColumns(s)} | ${int(s.verifyMax.requestsPerSecond)} | ${int(s.sendMax.requestsPerSecond)} | ${ms(s.verifyFixed.latencyMs.p50)} / ${ms(s.verifyFixed.latencyMs.p99)} (${int(s.verifyFixed.overallRate ?? 0)}/s) | ${ms(s.sendFixed.latencyMs.p50)} / ${ms(s.sendFixed.latencyMs.p99)} (${int(s.sendFixed.overallRate ?? 0)}/s) | ${rss.toFixed(0)} |`);
    }
    L.push('');
  }

  const past = history(where.resultsDir);
  // A "before" run counts only if it was made shortly before this one, on the same kind of machine:
  // otherwise the pair would compare machines, not code.
  const before = [...past].reverse().find((h) => h.date < r.date && (h.label ?? '').startsWith('before')
    && Date.parse(r.date) - Date.parse(h.date) <= 3 * 60 * 60_000 && h.machine.cpuModel === r.machine.cpuModel);
  if (before) {
    L.push('## Before and after', '');
    L.push(`Before: the run of ${before.date.replace('T', ' ').slice(0, 16)} UTC (“${before.label}”, code ${before.code}) on the same machine with the same bench. After: this run. Machine load differs between two runs, so each scenario is shown as its share of the ceiling of its stack measured in the same run (the empty route for SQLite, \`pgbench -N\` for PostgreSQL). See bench/NOTES.md for what changed.`, '');
    L.push('| scenario | req/s before | × ceiling before | req/s after | × ceiling after | ratio after ÷ before | CPU µs/req before | after | p99 ms at half rate before (rate) | after (rate) |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const s of r.scenarios.filter((x) => x.target !== 'peer')) {
      const b = find(before, s.target, s.name);
      if (!b) continue;
      const bc = ceilingOf(before, s.target);
      const ac = ceilingOf(r, s.target);
      const br = bc ? ratio(b.requestsPerSecond, bc.requestsPerSecond) : 0;
      const ar = ac ? ratio(s.requestsPerSecond, ac.requestsPerSecond) : 0;
      const bh = find(before, s.target, s.name, before.halfRate);
      const ah = find(r, s.target, s.name, r.halfRate);
      L.push(`| ${s.target} · ${s.name} | ${int(b.requestsPerSecond)} | ${br.toFixed(3)} | ${int(s.requestsPerSecond)} | ${ar.toFixed(3)} | ${x(ratio(ar, br))} | ${int(b.cpuUsPerRequest)} | ${int(s.cpuUsPerRequest)} | ${bh ? `${ms(bh.latencyMs.p99)} (${int(bh.overallRate ?? 0)}/s)` : '—'} | ${ah ? `${ms(ah.latencyMs.p99)} (${int(ah.overallRate ?? 0)}/s)` : '—'} |`);
    }
    L.push('');
  }
  if (past.length > 1) {
    L.push('## History', '', 'Every run kept in bench/results/ (machine load differs between runs: compare ratios as much as absolute figures).', '');
    L.push('| run | label | ceiling req/s | send | verify-right | verify-wrong | status | mixed | peer send | peer verify | load avg | CPU pressure % |', '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const h of past) {
      const g = (t: ScenarioResult['target'], n: string) => {
        const s = find(h, t, n);
        return s ? int(s.requestsPerSecond) : '—';
      };
      L.push(`| ${h.date.slice(0, 16).replace('T', ' ')} | ${h.label ?? ''} | ${g('ceiling', 'empty-route')} | ${g('twofa', 'send')} | ${g('twofa', 'verify-right')} | ${g('twofa', 'verify-wrong')} | ${g('twofa', 'status')} | ${g('twofa', 'mixed')} | ${g('peer', 'send')} | ${g('peer', 'verify-right')} | ${h.machine.loadBefore[0]} | ${h.machine.pressureBefore?.cpu ?? '—'} |`);
    }
    L.push('');
  }

  L.push('## How to reproduce', '');
  L.push('```sh', 'npm ci', 'npm run bench               # 5 to 6 minutes; writes bench/results/<date>.json and .svg, and this file', 'npm run bench -- --quick    # about 2 minutes: shorter runs, scale at 10^4 and 10^5', 'npm run bench -- --full     # also 10^7 stored PINs (seeding takes about 10 minutes and 12 GB of disk)', 'npm run bench -- --profile  # also a CPU profile of the server under load: bench/results/tmp/profile-*.txt and flame-*.svg', 'npm run bench -- --only=twofa,ceiling --label="what changed"', 'npm run bench -- --hot      # about 2 minutes: both ceilings, send and verify-wrong on SQLite and PostgreSQL',
    'npm run bench -- --report=bench/results/<date>.json   # rewrite this file from a run already made',
    'BENCH_BUILD_DIR=<dir> BENCH_PREBUILT=1 npm run bench -- --label="before: …"   # another build of src/, for before/after pairs', '```', '');
  L.push('Each process under test runs on its own, on loopback, compiled to JavaScript (`tsc` into .bench-build/), with `NODE_ENV=production`; the load generator (autocannon) runs in the bench process on the same cores. twofa runs as `twofa serve` with SQLite in a temporary folder (WAL), `TWOFA_LOG_LEVEL=info` (every request logged, to /dev/null) and `TWOFA_SMS_DSN=webhook+http://…`: the delivery worker really renders every PIN and POSTs it, signed, to a receiver in its own process (bench/receiver-server.ts), as to an SMS gateway. On PostgreSQL (twofa-pg) the same server runs on a scratch database of the local PostgreSQL (`BENCH_POSTGRES_URL`, default postgres://postgres@127.0.0.1:5432/postgres), with 20,000 live PINs for verify-wrong; `pgbench -N` runs on a scratch database of its own just before, 32 clients. The bench application has Infobip\'s defaults except its three limits, set to the most the grammar allows (1,000,000/1d), so nothing but send-refused is refused; the limits are still checked and counted on every request. PINs to verify are seeded before the server starts, hashed and encrypted with the server\'s secret as a send stores them. Better Auth runs with its defaults, its rate limiter off, a no-op `sendOTP`, on better-sqlite3 in WAL mode with `synchronous=FULL`, so that its commits are durable when they return, as twofa\'s are before anything is answered (twofa: `synchronous=NORMAL` plus group commit). The scale runs seed the database in bulk (direct SQL in big transactions, one fsync at the end) before the server starts.', '');

  const notesFile = path.join(where.projectRoot, 'bench', 'NOTES.md');
  if (fs.existsSync(notesFile)) L.push(fs.readFileSync(notesFile, 'utf8').trim(), '');
  const out = path.join(where.projectRoot, 'BENCHMARKS.md');
  fs.writeFileSync(out, `${L.join('\n')}\n`);
  return [out, chartFile];
}
