// The risk score against simulated traffic (docs/security.md, "Risk score"): normal users of many
// countries (most verify within a minute, some never) mixed with SMS pumping attacks of several
// shapes, on one in-process node with a simulated clock, through Twilio Verify's API (a Service with
// CustomCodeEnabled, so that a user "reads" the code it chose). Once in enforce mode, once in shadow
// mode, each on its own Service. Prints, per shape and overall, the share of sends blocked (enforce)
// or shadow-blocked (shadow), the attacks' after their first 50 sends, and the CPU the run took.
//
//   npx tsx bench/fraud-simulation.ts [--scale 1]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createNode } from '../src/main.js';
import { createApiKey } from '../src/service/api-keys.js';

const scaleArg = process.argv.indexOf('--scale');
const SCALE = scaleArg > 0 ? Number(process.argv[scaleArg + 1]) : 1;
const HOURS = 6;
const T0 = Date.UTC(2026, 10, 2, 6, 0, 0);

/** A seeded generator, so that every run (and both modes) sees the same traffic. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const digits = (rnd: () => number, n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 10)).join('');

/** Mobile number ranges of the countries normal users come from (E.164 without +): a prefix and how many digits follow. */
const NORMAL_RANGES: [string, number][] = [
  ['447712', 6], ['447911', 6], ['33612', 6], ['33698', 6], ['4915112', 6], ['4917612', 6], ['3934712', 5], ['3933312', 5],
  ['34612', 6], ['34699', 6], ['61412', 6], ['61433', 6], ['5511987', 6], ['5521998', 6], ['91981', 7], ['91987', 7],
  ['1415555', 4], ['1212555', 4], ['81901', 7], ['4670', 7],
];

type Shape = 'normal' | 'sequential' | 'premium_range' | 'slow_drip' | 'many_addresses' | 'new_country';

interface Event {
  at: number;
  shape: Shape;
  to: string;
  deviceIp: string;
  /** When the user types the code; undefined: never. */
  verifyAt?: number;
}

function traffic(): Event[] {
  const rnd = random(26);
  const events: Event[] = [];
  const span = HOURS * 3_600_000;
  const users = Math.round(3000 * SCALE);
  for (let i = 0; i < users; i += 1) {
    const [prefix, n] = NORMAL_RANGES[Math.floor(rnd() * NORMAL_RANGES.length)]!;
    const at = T0 + Math.floor(rnd() * span);
    // 92 % verify, within 5 to 60 s; the rest never do.
    const verifies = rnd() < 0.92;
    events.push({ at, shape: 'normal', to: prefix + digits(rnd, n), deviceIp: `198.51.${Math.floor(rnd() * 256)}.${Math.floor(rnd() * 256)}`, ...(verifies ? { verifyAt: at + 5000 + Math.floor(rnd() * 55_000) } : {}) });
  }
  const attack = (shape: Shape, count: number, start: number, every: number, to: (i: number) => string, ip: (i: number) => string) => {
    for (let i = 0; i < count; i += 1) events.push({ at: start + i * every, shape, to: to(i), deviceIp: ip(i) });
  };
  const count = Math.round(300 * SCALE);
  // Sequential numbers in three prefixes of a country the application serves, one every 3 s, from one address.
  attack('sequential', count, T0 + 3_600_000, 3000, (i) => `${['447712', '33612', '4915112'][i % 3]}${String(400000 + Math.floor(i / 3)).padStart(6, '0')}`, () => '203.0.113.10');
  // A spread over a premium-rate range (UK 09xx), one every 10 s.
  attack('premium_range', count, T0 + 2 * 3_600_000, 10_000, () => `44909${digits(rnd, 7)}`, (i) => `203.0.113.${20 + (i % 5)}`);
  // A slow drip over the whole run into a range of a country few users come from, from rotating addresses.
  attack('slow_drip', count, T0 + 60_000, Math.floor(span / count), () => `628123${digits(rnd, 6)}`, (i) => `192.0.2.${i % 250}`);
  // Many client addresses, numbers spread over a few thousand-blocks of a served country, one every 5 s.
  attack('many_addresses', count, T0 + 3 * 3_600_000, 5000, () => `3369812${digits(rnd, 1)}${digits(rnd, 3)}`, (i) => `100.${64 + (i % 60)}.${i % 250}.${(i * 7) % 250}`);
  // A country the application never served, spread over its mobile range, one every 8 s.
  attack('new_country', count, T0 + 4 * 3_600_000, 8000, () => `2348${['0', '1'][Math.floor(rnd() * 2)]}${digits(rnd, 8)}`, (i) => `203.0.113.${100 + (i % 50)}`);
  return events.sort((a, b) => a.at - b.at);
}

interface Tally { sends: number; refused: number; afterFirst50: number; refusedAfterFirst50: number; invalid: number }

async function run(mode: 'enforce' | 'shadow') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-fraud-sim-'));
  let now = T0 - 86_400_000;
  const config = loadConfig({ TWOFA_DATA_DIR: dir, TWOFA_SECRET: 'fraud-simulation-secret-0123456789-0123456789', TWOFA_LOG_LEVEL: 'warn', TWOFA_SMS_DSN: 'none://' });
  const node = await createNode(config, createLogger(config.logLevel), { clock: () => now });
  const key = (await createApiKey(node.store, { accountName: 'sim', now })).key;
  const me = JSON.parse((await node.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: `App ${key}` } })).body) as { accountSid: string };
  const basic = `Basic ${Buffer.from(`${me.accountSid}:${key}`).toString('base64')}`;
  const form = (url: string, body: Record<string, string>) => node.app.inject({
    method: 'POST', url, headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(body).toString(),
  });
  const service = JSON.parse((await form('/v2/Services', { FriendlyName: 'Shop', CustomCodeEnabled: 'true' })).body) as { sid: string };
  const appId = service.sid.slice(2).toUpperCase();
  const set = await node.app.inject({ method: 'PUT', url: `/api/v1/applications/${appId}/risk`, headers: { authorization: `App ${key}` }, payload: { mode } });
  if (set.statusCode !== 200) throw new Error(set.body);

  const tallies = new Map<Shape, Tally>();
  /** Each accepted send's shape and rank in it, by destination and time: how shadow decisions are told apart. */
  const sent = new Map<string, { shape: Shape; n: number }>();
  const seen = new Map<Shape, number>();
  const checks: { at: number; to: string }[] = [];
  const cpu = process.cpuUsage();
  for (const e of traffic()) {
    while (checks.length > 0 && checks[0]!.at <= e.at) {
      const check = checks.shift()!;
      now = check.at;
      await form(`/v2/Services/${service.sid}/VerificationCheck`, { To: `+${check.to}`, Code: '482913' });
    }
    now = e.at;
    const t = tallies.get(e.shape) ?? { sends: 0, refused: 0, afterFirst50: 0, refusedAfterFirst50: 0, invalid: 0 };
    tallies.set(e.shape, t);
    const started = await form(`/v2/Services/${service.sid}/Verifications`, { To: `+${e.to}`, Channel: 'sms', CustomCode: '482913', DeviceIp: e.deviceIp });
    const body = JSON.parse(started.body) as { code?: number };
    if (started.statusCode === 400 && body.code === 60200) { t.invalid += 1; continue; }
    const n = (seen.get(e.shape) ?? 0) + 1;
    seen.set(e.shape, n);
    t.sends += 1;
    sent.set(`${e.to}@${e.at}`, { shape: e.shape, n });
    const refused = mode === 'enforce' ? body.code === 60410 : false;
    if (refused) t.refused += 1;
    if (n > 50) t.afterFirst50 += 1;
    if (refused && n > 50) t.refusedAfterFirst50 += 1;
    if (!refused && e.verifyAt !== undefined) {
      checks.push({ at: e.verifyAt, to: e.to });
      checks.sort((a, b) => a.at - b.at);
    }
  }
  const used = process.cpuUsage(cpu);
  if (mode === 'shadow') {
    // Shadow mode refuses nothing: count the decisions it recorded as shadow blocks, by destination.
    const shadowBlocked = new Set<string>();
    let cursor: string | null = null;
    do {
      const page: { decisions: { destination: string; createdAt: number }[]; next: string | null } = JSON.parse((await node.app.inject({
        method: 'GET', url: `/api/v1/risk/decisions?applicationId=${appId}&decision=shadow_block&limit=1000${cursor ? `&cursor=${cursor}` : ''}`, headers: { authorization: `App ${key}` },
      })).body);
      for (const d of page.decisions) shadowBlocked.add(`${d.destination}@${d.createdAt}`);
      cursor = page.next;
    } while (cursor);
    for (const key of shadowBlocked) {
      const found = sent.get(key);
      if (!found) continue;
      const t = tallies.get(found.shape)!;
      t.refused += 1;
      if (found.n > 50) t.refusedAfterFirst50 += 1;
    }
  }
  await node.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  return { tallies, cpuMs: (used.user + used.system) / 1000 };
}

const pct = (a: number, b: number) => (b === 0 ? '-' : `${(100 * a / b).toFixed(1)} %`);
const lines: string[] = [];
for (const mode of ['enforce', 'shadow'] as const) {
  const { tallies, cpuMs } = await run(mode);
  lines.push(`\n${mode} mode (${cpuMs.toFixed(0)} ms CPU):`, '| traffic | sends | blocked | blocked after the first 50 | invalid numbers skipped |', '|---|---|---|---|---|');
  let attacks = 0;
  let attacksBlocked = 0;
  for (const [shape, t] of tallies) {
    lines.push(`| ${shape} | ${t.sends} | ${pct(t.refused, t.sends)} | ${shape === 'normal' ? '' : pct(t.refusedAfterFirst50, t.afterFirst50)} | ${t.invalid} |`);
    if (shape !== 'normal') { attacks += t.afterFirst50; attacksBlocked += t.refusedAfterFirst50; }
  }
  lines.push(`| all attacks | | | ${pct(attacksBlocked, attacks)} | |`);
}
process.stdout.write(`${lines.join('\n')}\n`);
