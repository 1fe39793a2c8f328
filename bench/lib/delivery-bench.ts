// Time to the phone: what a person waiting for a code feels is the time from the API's answer to the
// provider taking the message, not the rate at which the API accepts. Each scenario sends PINs to a
// twofa node whose SMS goes to the provider stand-in (bench/provider-server.ts) with a chosen latency,
// waits until the provider has received every accepted message, and reports
//   - delivered per second over the load plus the drain: messages received by the provider, divided by
//     the time from the first acceptance to the last receipt;
//   - accepted-to-provider p50/p99: for each message, the provider's receipt time minus the time the
//     server accepted it (the PIN's message_queued_at, written in the send's own transaction, just
//     before the answer), both on this machine's clock; the provider's own latency is not in it.
import http from 'node:http';
import type { LoadResult } from './load.js';

export interface DeliveryScenario {
  name: string;
  providerLatencyMs: number;
  /** The rate the scenario sets on the DSN (the rig's rateParameter: max_tps, or max_tps_global for several nodes). */
  maxTps?: number;
  load: { kind: 'burst'; sends: number } | { kind: 'steady'; rate: number; durationS: number } | { kind: 'full'; durationS: number };
  /** What the issue asks of it, checked against the figures. */
  target?: { what: string; met: (r: DeliveryResult) => boolean };
}

export interface DeliveryResult {
  name: string;
  stack: string;
  providerLatencyMs: number;
  maxTps?: number;
  accepted: number;
  /** Accepted per second while the load ran. */
  acceptedPerSecond: number;
  loadS: number;
  /** From the end of the load until the provider had received the last message. */
  drainS: number;
  delivered: number;
  deliveredPerSecond: number;
  acceptedToProviderMs: { p50: number; p90?: number; p99: number; max: number };
  /** The same from the moment the client had the API's answer (burst and steady, whose bodies the load generator reads). */
  answerToProviderMs?: { p50: number; p90: number; p99: number; max: number };
  /** The most requests the provider held at once. */
  providerMaxInFlight: number;
  target?: string;
  met?: boolean;
  /** A scenario the run could not finish (the drain timed out): what was missing. */
  incomplete?: string;
}

/** The issue's three targets on one node, SQLite (24: "Time to the phone"), and the rate held when max_tps is set. */
export const DELIVERY_SCENARIOS: DeliveryScenario[] = [
  {
    name: 'burst of 2,000, provider at 200 ms', providerLatencyMs: 200, load: { kind: 'burst', sends: 2000 },
    target: { what: 'delivered ≥ 500/s', met: (r) => r.deliveredPerSecond >= 500 },
  },
  {
    name: 'steady 300/s for 8 s, provider at 200 ms', providerLatencyMs: 200, load: { kind: 'steady', rate: 300, durationS: 8 },
    target: { what: 'answer-to-provider p99 < 50 ms', met: (r) => (r.answerToProviderMs ?? r.acceptedToProviderMs).p99 < 50 },
  },
  {
    name: 'full load 10 s, provider at once', providerLatencyMs: 0, load: { kind: 'full', durationS: 10 },
    target: { what: 'delivered/s ≥ 0.9 × accepted/s', met: (r) => r.deliveredPerSecond >= 0.9 * r.acceptedPerSecond },
  },
  {
    name: 'burst of 1,000, provider at 200 ms, a rate of 200/s', providerLatencyMs: 200, maxTps: 200, load: { kind: 'burst', sends: 1000 },
    target: { what: 'delivered/s within 5 % of 200', met: (r) => Math.abs(r.deliveredPerSecond - 200) <= 10 },
  },
];

export interface DeliveryRig {
  stack: string;
  /** How the rate of a scenario is set: max_tps on one node, max_tps_global for several sharing it. */
  rateParameter: 'max_tps' | 'max_tps_global';
  /** Starts twofa with this SMS DSN; the node's URL and how to stop it. */
  startServer(smsDsn: string): Promise<{ url: string; pid: number; stop(): Promise<void> }>;
  /** When the server accepted each of these PINs (Unix ms). */
  acceptedAt(pinIds: string[]): Promise<Map<string, number>>;
  /** The next send request's body. */
  nextSend(): string;
  headers: Record<string, string>;
  runLoad(options: { url: string; pid: number; durationS: number; next: () => { method: 'POST'; path: string; body: string } }): Promise<LoadResult>;
  log(line: string): void;
}

export async function runDeliveryScenario(rig: DeliveryRig, providerUrl: string, providerDsn: (query: string) => string, scenario: DeliveryScenario): Promise<DeliveryResult> {
  await request('POST', `${providerUrl}/reset`, JSON.stringify({ latencyMs: scenario.providerLatencyMs }));
  const server = await rig.startServer(providerDsn(scenario.maxTps === undefined ? '' : `${rig.rateParameter}=${scenario.maxTps}`));
  const next = () => ({ method: 'POST' as const, path: '/2fa/2/pin', body: rig.nextSend() });
  let accepted: number;
  let loadS: number;
  try {
    // Messages accepted before this scenario (the last answers of a full-load run, uncounted by the
    // load generator, may reach the provider after its reset) are left out of its figures.
    const scenarioStartedAt = Date.now();
    const started = performance.now();
    // When each answer reached the client, where the load generator reads the bodies (burst, steady);
    // autocannon's full load does not, and falls back to the PIN's row.
    let answeredAt = new Map<string, number>();
    if (scenario.load.kind === 'full') {
      const result = await rig.runLoad({ url: server.url, pid: server.pid, durationS: scenario.load.durationS, next });
      accepted = result.statuses['200'] ?? 0;
      loadS = result.durationS;
    } else {
      const sent = scenario.load.kind === 'burst'
        ? await burst(server.url, rig.headers, scenario.load.sends, 50, () => next().body)
        : await steady(server.url, rig.headers, scenario.load.rate, scenario.load.durationS, () => next().body);
      accepted = sent.ok;
      answeredAt = sent.answeredAt;
      loadS = (performance.now() - started) / 1000;
    }
    const loadEnded = performance.now();
    const receipts = await waitForReceipts(providerUrl, accepted, 180_000);
    const drainS = (performance.now() - loadEnded) / 1000;
    const accepts = await rig.acceptedAt(receipts.receipts.map(([pinId]) => pinId));
    const waits: number[] = [];
    const fromAnswer: number[] = [];
    let firstAccepted = Infinity;
    let lastReceipt = 0;
    const ours = receipts.receipts.filter(([pinId]) => (accepts.get(pinId) ?? 0) >= scenarioStartedAt);
    for (const [pinId, at] of ours) {
      const acceptedAt = accepts.get(pinId) as number;
      waits.push(at - acceptedAt);
      // The worker may have sent it before the client read its answer: then the user waited nothing.
      const answered = answeredAt.get(pinId);
      if (answered !== undefined) fromAnswer.push(Math.max(0, at - answered));
      firstAccepted = Math.min(firstAccepted, acceptedAt);
      lastReceipt = Math.max(lastReceipt, at);
    }
    waits.sort((a, b) => a - b);
    fromAnswer.sort((a, b) => a - b);
    const delivered = new Set(ours.map(([pinId]) => pinId)).size;
    const result: DeliveryResult = {
      name: scenario.name, stack: rig.stack, providerLatencyMs: scenario.providerLatencyMs, ...(scenario.maxTps !== undefined && { maxTps: scenario.maxTps }),
      accepted, acceptedPerSecond: Math.round(accepted / loadS), loadS: round(loadS), drainS: round(drainS), delivered,
      deliveredPerSecond: Math.round(delivered / Math.max(0.001, (lastReceipt - firstAccepted) / 1000)),
      acceptedToProviderMs: { p50: percentile(waits, 50), p90: percentile(waits, 90), p99: percentile(waits, 99), max: waits[waits.length - 1] ?? 0 },
      ...(fromAnswer.length > 0 && { answerToProviderMs: { p50: percentile(fromAnswer, 50), p90: percentile(fromAnswer, 90), p99: percentile(fromAnswer, 99), max: fromAnswer[fromAnswer.length - 1] ?? 0 } }),
      providerMaxInFlight: receipts.maxInFlight,
      ...(delivered < accepted && { incomplete: `${accepted - delivered} of ${accepted} accepted messages had not reached the provider after 180 s` }),
    };
    if (scenario.target) {
      result.target = scenario.target.what;
      result.met = result.incomplete === undefined && scenario.target.met(result);
    }
    rig.log(`  ${`${rig.stack} · ${scenario.name}`.padEnd(60)} accepted ${accepted} (${result.acceptedPerSecond}/s), delivered ${delivered} at ${result.deliveredPerSecond}/s (drain ${result.drainS} s), accepted→provider p50 ${result.acceptedToProviderMs.p50} ms p90 ${result.acceptedToProviderMs.p90} ms p99 ${result.acceptedToProviderMs.p99} ms${result.answerToProviderMs ? `, answer→provider p50 ${result.answerToProviderMs.p50} ms p90 ${result.answerToProviderMs.p90} ms p99 ${result.answerToProviderMs.p99} ms` : ''}, provider held ≤ ${result.providerMaxInFlight}${result.target ? `; ${result.target}: ${result.met ? 'met' : 'NOT met'}` : ''}`);
    return result;
  } finally {
    await server.stop();
  }
}

/** The sends of a scenario: how many were answered 200, and when each PIN's answer arrived (Unix ms, by pinId). */
interface Sent {
  ok: number;
  answeredAt: Map<string, number>;
}

/** One POST /2fa/2/pin; notes when its 200 arrived, under the pinId it carries. */
function sendOne(target: URL, agent: http.Agent, headers: Record<string, string>, payload: string, sent: Sent): Promise<void> {
  return new Promise<void>((resolve) => {
    const req = http.request({
      host: target.hostname, port: target.port, path: '/2fa/2/pin', method: 'POST', agent,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        if (response.statusCode === 200) {
          sent.ok += 1;
          const pinId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { pinId?: string }).pinId;
          if (pinId !== undefined) sent.answeredAt.set(pinId, Date.now());
        }
        resolve();
      });
    });
    req.on('error', () => resolve());
    req.end(payload);
  });
}

/** Sends `count` requests as fast as `concurrency` keep-alive connections allow. */
async function burst(url: string, headers: Record<string, string>, count: number, concurrency: number, body: () => string): Promise<Sent> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const sent: Sent = { ok: 0, answeredAt: new Map() };
  let started = 0;
  const lane = async () => {
    while (started < count) {
      started += 1;
      await sendOne(target, agent, headers, body(), sent);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, lane));
  } finally {
    agent.destroy();
  }
  return sent;
}

/** `rate` requests a second, evenly spaced, for `durationS`, whatever the answers do (an open loop). */
async function steady(url: string, headers: Record<string, string>, rate: number, durationS: number, body: () => string): Promise<Sent> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
  const sent: Sent = { ok: 0, answeredAt: new Map() };
  const pending: Promise<void>[] = [];
  const started = performance.now();
  const total = Math.round(rate * durationS);
  try {
    for (let i = 0; i < total; i++) {
      const dueAt = started + (i * 1000) / rate;
      const wait = dueAt - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      pending.push(sendOne(target, agent, headers, body(), sent));
    }
    await Promise.all(pending);
  } finally {
    agent.destroy();
  }
  return sent;
}

async function waitForReceipts(providerUrl: string, expected: number, timeoutMs: number): Promise<{ maxInFlight: number; receipts: [string, number][] }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = JSON.parse(await request('GET', `${providerUrl}/receipts`)) as { maxInFlight: number; receipts: [string, number][] };
    if (state.receipts.length >= expected || Date.now() > deadline) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function request(method: 'GET' | 'POST', url: string, body?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
