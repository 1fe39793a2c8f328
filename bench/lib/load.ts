// Drives one process with autocannon for a bounded time and measures it from outside: requests/s,
// latency percentiles from every response (sub-millisecond, errors included), CPU per request from
// /proc/<pid>/stat and the scenario's peak RSS from VmHWM.
import autocannon from 'autocannon';
import { cpuMs, peakRssMb, resetPeakRss, rssMb } from './proc-stats.js';

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

export interface LoadOptions {
  url: string;
  /** The process whose CPU and memory are measured. */
  pid: number;
  connections: number;
  durationS: number;
  warmupS: number;
  /** Fixed total rate (requests/s); unset: as fast as the server answers. */
  overallRate?: number | undefined;
  headers?: Record<string, string>;
  /** The next request to send (called once per request). */
  next: () => BenchRequest;
}

export interface LoadResult {
  requestsPerSecond: number;
  total: number;
  durationS: number;
  latencyMs: { p50: number; p90: number; p99: number; mean: number; max: number };
  /** Responses by status code. */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Server CPU time (user + system) per answered request, in microseconds. */
  cpuUsPerRequest: number;
  /** Share of one core the server used (1 = one core busy all the time). */
  cpuCores: number;
  peakRssMb: number;
  /** CPU time the load generator itself used, in ms per second of run. */
  generatorCpuMsPerS: number;
  overallRate?: number | undefined;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

interface RawRun {
  latencies: Float64Array;
  count: number;
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  durationS: number;
}

function drive(options: LoadOptions, durationS: number): Promise<RawRun> {
  return new Promise((resolve, reject) => {
    let latencies = new Float64Array(1 << 16);
    let count = 0;
    const statuses: Record<string, number> = {};
    const started = process.hrtime.bigint();
    const instance = autocannon({
      url: options.url,
      connections: options.connections,
      duration: durationS,
      timeout: 10,
      ...(options.overallRate !== undefined ? { overallRate: options.overallRate } : {}),
      requests: [{
        setupRequest: (request) => {
          const next = options.next();
          request.method = next.method;
          request.path = next.path;
          request.headers = { ...options.headers, ...(next.body !== undefined ? { 'content-type': 'application/json' } : {}) };
          request.body = next.body ?? '';
          return request;
        },
      }],
    }, (err, result) => {
      if (err) return reject(err);
      const elapsedS = Number(process.hrtime.bigint() - started) / 1e9;
      resolve({ latencies, count, statuses, errors: result.errors, timeouts: result.timeouts, durationS: Math.min(elapsedS, result.duration || elapsedS) });
    });
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
      if (count === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2);
        bigger.set(latencies);
        latencies = bigger;
      }
      latencies[count++] = responseTimeMs;
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
  });
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (options.warmupS > 0) await drive(options, options.warmupS);
  const canResetPeak = resetPeakRss(options.pid);
  let sampledPeak = rssMb(options.pid);
  const sampler = setInterval(() => {
    try {
      sampledPeak = Math.max(sampledPeak, rssMb(options.pid));
    } catch { /* process gone */ }
  }, 200);
  const cpuBefore = cpuMs(options.pid);
  const generatorBefore = process.cpuUsage();
  const run = await drive(options, options.durationS).finally(() => clearInterval(sampler));
  return summarize(run, options.pid, canResetPeak, sampledPeak, cpuBefore, generatorBefore, options.overallRate);
}

function summarize(run: RawRun, pid: number, canResetPeak: boolean, sampledPeak: number, cpuBefore: number, generatorBefore: NodeJS.CpuUsage, overallRate: number | undefined): LoadResult {
  const cpuAfter = cpuMs(pid);
  const generator = process.cpuUsage(generatorBefore);
  const peak = canResetPeak ? Math.max(peakRssMb(pid), sampledPeak) : sampledPeak;

  const sorted = run.latencies.slice(0, run.count).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  const answered = run.count;
  return {
    requestsPerSecond: Math.round(answered / run.durationS),
    total: answered,
    durationS: round(run.durationS, 2),
    latencyMs: {
      p50: round(percentile(sorted, 50)), p90: round(percentile(sorted, 90)), p99: round(percentile(sorted, 99)),
      mean: round(answered > 0 ? sum / answered : 0), max: round(sorted.length > 0 ? sorted[sorted.length - 1]! : 0),
    },
    statuses: run.statuses,
    errors: run.errors,
    timeouts: run.timeouts,
    cpuUsPerRequest: answered > 0 ? round(((cpuAfter - cpuBefore) * 1000) / answered, 1) : 0,
    cpuCores: round((cpuAfter - cpuBefore) / 1000 / run.durationS, 2),
    peakRssMb: round(peak, 1),
    generatorCpuMsPerS: round((generator.user + generator.system) / 1000 / run.durationS, 0),
    ...(overallRate !== undefined ? { overallRate } : {}),
  };
}

export interface OpenLoopOptions extends Omit<LoadOptions, 'overallRate' | 'connections'> {
  /** Requests per second, sent at evenly spaced moments whatever the answers do (an open loop). */
  rate: number;
  /** Most requests in flight (keep-alive connections); a request due while all are busy waits for one. */
  maxInFlight?: number;
}

/**
 * A fixed request rate with evenly spaced sends, for latency below saturation. autocannon's fixed
 * rate paces each connection on its own timer, so its 50 connections fire together and every
 * answer waits behind a burst of 50; here one request leaves every 1/rate seconds. Latency is timed
 * from the moment a request was due, so a late send (the client or the server falling behind)
 * counts against the server as it would for a real caller.
 */
export async function runOpenLoop(options: OpenLoopOptions): Promise<LoadResult> {
  const { default: http } = await import('node:http');
  const target = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxInFlight ?? 50 });
  const drive = (durationS: number) => new Promise<RawRun>((resolve) => {
    let latencies = new Float64Array(Math.max(1024, Math.ceil(options.rate * durationS * 1.1)));
    let count = 0;
    let errors = 0;
    let inFlight = 0;
    const statuses: Record<string, number> = {};
    const interval = 1000 / options.rate;
    const started = performance.now();
    const end = started + durationS * 1000;
    let sent = 0;
    let finished = false;
    const done = () => {
      if (finished || inFlight > 0) return;
      // Timers may fire a little early against performance.now(): wait out the rest of the run.
      if (performance.now() < end) {
        if (sent >= options.rate * durationS) setTimeout(done, end - performance.now() + 1);
        return;
      }
      finished = true;
      resolve({ latencies, count, statuses, errors, timeouts: 0, durationS: (performance.now() - started) / 1000 });
    };
    const record = (dueAt: number, status: number | undefined) => {
      if (count === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2);
        bigger.set(latencies);
        latencies = bigger;
      }
      latencies[count++] = performance.now() - dueAt;
      if (status === undefined) errors += 1;
      else statuses[status] = (statuses[status] ?? 0) + 1;
      inFlight -= 1;
      done();
    };
    const send = (dueAt: number) => {
      const next = options.next();
      inFlight += 1;
      const request = http.request({
        host: target.hostname, port: target.port, path: next.path, method: next.method, agent,
        headers: { ...options.headers, ...(next.body !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(next.body) } : {}) },
      }, (response) => {
        response.resume();
        response.on('end', () => record(dueAt, response.statusCode));
      });
      request.on('error', () => record(dueAt, undefined));
      request.end(next.body);
    };
    const tick = () => {
      const now = performance.now();
      // Every request due by now leaves now: a late timer never lowers the rate.
      while (sent < options.rate * durationS && started + sent * interval <= now) {
        send(started + sent * interval);
        sent += 1;
      }
      if (now < end && sent < options.rate * durationS) setTimeout(tick, Math.max(0, started + sent * interval - performance.now()));
      // All sent: the run ends at its end time (or with the last answer after it).
      else done();
    };
    tick();
  });
  try {
    if (options.warmupS > 0) await drive(options.warmupS);
    const canResetPeak = resetPeakRss(options.pid);
    const cpuBefore = cpuMs(options.pid);
    const generatorBefore = process.cpuUsage();
    const run = await drive(options.durationS);
    return summarize(run, options.pid, canResetPeak, rssMb(options.pid), cpuBefore, generatorBefore, options.rate);
  } finally {
    agent.destroy();
  }
}
