// T30 soak (bounded): a real `twofa serve` process under a steady mixed load, 1 send : 3 verifies :
// 1 status, from a fixed number of lanes, for 12 s by default and 30 minutes with
// TWOFA_SECURITY_LONG=1. Memory and open file descriptors are read from /metrics at the start and
// the end and must stay bounded, and no answer may be a 5xx; the p99 of the first and the last fifth
// are reported, not gated.
// Standards: ASVS 5.0 16.5.3, 15.2.2; OWASP API4:2023.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startWebhookReceiver, type WebhookReceiver } from '../multinode/cluster.js';
import { createAppAndTemplate, createJsonClient, type JsonClient } from '../support/json-client.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { createResults, percentile, scale, wrongPinFor } from './support/results.js';

const results = createResults('soak', { tests: ['T30'], standards: ['ASVS 5.0 16.5.3', 'ASVS 5.0 15.2.2', 'OWASP API4:2023'] });

function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => !l.startsWith('#') && new RegExp(`^twofa_process_(process_)?${name}[ {]`).test(l));
  return line ? Number(line.split(' ').at(-1)) : NaN;
}

describe('bounded soak', () => {
  let receiver: WebhookReceiver;
  let server: ServerProcess;
  let client: JsonClient;

  before(async () => {
    receiver = await startWebhookReceiver();
    server = await startServerProcess({
      TWOFA_LOG_LEVEL: 'warn', TWOFA_PURGE_INTERVAL: '2s', TWOFA_PIN_RETENTION: '1s',
      TWOFA_SMS_DSN: `webhook+http://127.0.0.1:${receiver.port}/soak?secret=whsec_${randomBytes(32).toString('base64').replace(/\+/g, 'A')}`,
    });
    client = createJsonClient(server.url, server.key);
  });
  after(async () => {
    results.save();
    if (server) assert.equal(await server.stop(), 0, server.output().slice(-2000));
    await receiver?.close();
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it(`T30: ${scale(8, 1800)} s of mixed load: 0 × 5xx, memory and file descriptors bounded`, async () => {
    const app = await createAppAndTemplate(client, { sendPinPerPhoneNumberLimit: '100000/1d', sendPinPerApplicationLimit: '1000000/1d', verifyPinLimit: '100000/1s', pinAttempts: 100 });
    const durationMs = scale(8, 1800) * 1000;
    const before = await (await fetch(`${server.url}/metrics`)).text();
    const startedAt = Date.now();
    const samples: { at: number; ms: number; kind: string }[] = [];
    const statuses: Record<string, number> = {};
    let phone = 0;
    const lane = async () => {
      while (Date.now() - startedAt < durationMs) {
        const t0 = performance.now();
        const sent = await client.post('/2fa/2/pin', { ...app, to: `41791${String(100_000 + ((phone += 1) % 900_000)).padStart(6, '0')}` });
        samples.push({ at: Date.now() - startedAt, ms: performance.now() - t0, kind: 'send' });
        statuses[sent.status] = (statuses[sent.status] ?? 0) + 1;
        if (sent.status !== 200) continue;
        const pinId = sent.body.pinId as string;
        for (let v = 0; v < 3; v += 1) {
          const t1 = performance.now();
          const verified = await client.post(`/2fa/2/pin/${pinId}/verify`, { pin: wrongPinFor('123456') });
          samples.push({ at: Date.now() - startedAt, ms: performance.now() - t1, kind: 'verify' });
          statuses[verified.status] = (statuses[verified.status] ?? 0) + 1;
        }
        const t2 = performance.now();
        const status = await client.get(`/api/v1/pins/${pinId}`);
        samples.push({ at: Date.now() - startedAt, ms: performance.now() - t2, kind: 'status' });
        statuses[status.status] = (statuses[status.status] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: 4 }, lane));
    const after = await (await fetch(`${server.url}/metrics`)).text();
    const fifth = durationMs / 5;
    const first = samples.filter((s) => s.at < fifth).map((s) => s.ms);
    const last = samples.filter((s) => s.at >= durationMs - fifth).map((s) => s.ms);
    const p99First = percentile(first, 99);
    const p99Last = percentile(last, 99);
    const rssBefore = metric(before, 'resident_memory_bytes');
    const rssAfter = metric(after, 'resident_memory_bytes');
    const fdsBefore = metric(before, 'open_fds');
    const fdsAfter = metric(after, 'open_fds');
    const fiveXX = Object.entries(statuses).filter(([s]) => Number(s) >= 500).reduce((n, [, c]) => n + c, 0);
    results.add('soakRequests', samples.length);
    results.add('fiveXX', fiveXX);
    results.set('T30.durationS', durationMs / 1000);
    results.set('T30.rps', Number((samples.length / (durationMs / 1000)).toFixed(1)));
    results.set('T30.p50Ms', Number(percentile(samples.map((s) => s.ms), 50).toFixed(2)));
    results.set('T30.p99FirstMs', Number(p99First.toFixed(2)));
    results.set('T30.p99LastMs', Number(p99Last.toFixed(2)));
    results.set('T30.rssGrowth', Number((rssAfter / rssBefore).toFixed(3)));
    results.set('T30.openFds', `${fdsBefore} → ${fdsAfter}`);
    results.set('T30.statuses', JSON.stringify(statuses));
    const rssHeld = rssAfter < rssBefore * 1.5 + 32 * 1024 * 1024;
    const fdsHeld = fdsAfter <= fdsBefore + 20;
    // The p99 of the first and last fifths are figures, not a gate: on a shared 2-core machine a
    // latency says more about the neighbours than about a leak, which RSS and FDs show directly.
    results.check('T30', fiveXX === 0 && rssHeld && fdsHeld, `${durationMs / 1000} s, ${samples.length} requests (${(samples.length / (durationMs / 1000)).toFixed(0)}/s, 1 send : 3 verify : 1 status): ${fiveXX} × 5xx; p99 ${p99First.toFixed(1)} → ${p99Last.toFixed(1)} ms; RSS × ${(rssAfter / rssBefore).toFixed(2)}; FDs ${fdsBefore} → ${fdsAfter}`);
  });
});
