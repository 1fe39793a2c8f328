// A Twilio verification's approval is the engine's verify: one transaction verifies the PIN, moves
// the verification to approved and queues verification.approved (store/twilio-store.ts). A real
// `twofa serve` process on a SQLite file, under a load of right checks and Status=approved updates
// from 8 lanes, is killed with SIGKILL at random moments, cycle after cycle; then, in the
// database: every acknowledged approval is approved with its event, and no verified PIN of a Twilio
// verification (acknowledged or not: the kill may fall between its commit and its answer) lacks them.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { pinIdOf } from '../../src/domain/twilio-sids.js';
import { createJsonClient, type JsonClient } from '../support/json-client.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

const LANES = 8;
const KILLS = 4;
/** Verifications each lane starts before a cycle's approvals. */
const PER_LANE = 80;

describe('kill -9 during Twilio approvals (SQLite file)', () => {
  let receiver: http.Server;
  let dataDir: string;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;
  let serviceSid: string;
  let basic: string;

  const start = async (): Promise<JsonClient> => {
    server = await startServerProcess(env, { timeoutMs: 60_000 });
    return createJsonClient(server.url, server.key);
  };
  /** A form POST under /v2, with the account's Basic credentials. */
  const form = (client: JsonClient, url: string, fields: Record<string, string>) => fetch(`${client.url}${url}`, {
    method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(),
  }).then(async (r) => ({ status: r.status, body: await r.json() as Record<string, unknown> }));

  before(async () => {
    // The Service's webhook receives the events (they stay in the event outbox once delivered).
    receiver = http.createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200).end()); });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-approval-crash-'));
    env = { TWOFA_DATA_DIR: dataDir, TWOFA_LOG_LEVEL: 'warn', TWOFA_WEBHOOK_ALLOW_PRIVATE: 'true' };
    const client = await start();
    const accountSid = (await client.get('/api/v1/me')).body.accountSid as string;
    basic = `Basic ${Buffer.from(`${accountSid}:${server!.key}`).toString('base64')}`;
    const service = await form(client, '/v2/Services', { FriendlyName: 'Crash', CustomCodeEnabled: 'true' });
    assert.equal(service.status, 201, JSON.stringify(service.body));
    serviceSid = service.body['sid'] as string;
    const hook = await form(client, `/v2/Services/${serviceSid}/Webhooks`, {
      FriendlyName: 'approvals', EventTypes: 'verification.approved', WebhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/approved`,
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
  });
  after(async () => {
    await server?.stop();
    await new Promise((resolve) => receiver.close(resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`${KILLS} SIGKILLs during approvals lose no approval and no verification.approved event`, async () => {
    const acknowledged = new Set<string>();
    let phone = 0;
    for (let cycle = 0; cycle < KILLS; cycle += 1) {
      const client = server ? createJsonClient(server.url, server.key) : await start();
      // The verifications to approve, started before the load: the kill then falls among approvals.
      const started: Array<{ sid: string; code: string }> = [];
      await Promise.all(Array.from({ length: LANES }, async () => {
        for (let i = 0; i < PER_LANE; i += 1) {
          const code = String(randomInt(100_000, 1_000_000));
          const to = `+41795${String(100_000 + (phone += 1)).padStart(6, '0')}`;
          const answer = await form(client, `/v2/Services/${serviceSid}/Verifications`, { To: to, Channel: 'sms', CustomCode: code });
          assert.equal(answer.status, 201, JSON.stringify(answer.body));
          started.push({ sid: answer.body['sid'] as string, code });
        }
      }));
      const lane = async (l: number) => {
        for (let next = started.pop(); next !== undefined; next = started.pop()) {
          try {
            // Most lanes approve by a right check, two by Status=approved.
            const approved = l < 6
              ? await form(client, `/v2/Services/${serviceSid}/VerificationCheck`, { VerificationSid: next.sid, Code: next.code })
              : await form(client, `/v2/Services/${serviceSid}/Verifications/${next.sid}`, { Status: 'approved' });
            if (approved.status === 200 && approved.body['status'] === 'approved') acknowledged.add(pinIdOf(next.sid)!);
          } catch {
            return; // the process died under us: not acknowledged
          }
        }
      };
      const lanes = Array.from({ length: LANES }, (_, l) => lane(l));
      await new Promise((resolve) => setTimeout(resolve, randomInt(30, 200)));
      process.kill(server!.pid, 'SIGKILL');
      assert.equal(await server!.stop(), null, 'died of SIGKILL');
      server = undefined;
      await Promise.all(lanes);
    }
    assert.ok(acknowledged.size > 0, 'approvals were acknowledged before the kills');

    const db = new Database(path.join(dataDir, 'twofa.db'), { readonly: true });
    try {
      const rows = db.prepare(`select p.id, p.verified_at, v.status,
          (select count(*) from event_outbox e where e.pin_id = p.id and e.event_type = 'verification.approved') as events
        from pins p join twilio_verifications v on v.pin_id = p.id`).all() as Array<{ id: string; verified_at: number | null; status: string; events: number }>;
      const byPin = new Map(rows.map((r) => [r.id, r]));
      for (const pinId of acknowledged) {
        const row = byPin.get(pinId);
        assert.ok(row?.verified_at, `acknowledged approval of ${pinId} not verified`);
        assert.equal(row.status, 'approved', `acknowledged approval of ${pinId}`);
        assert.equal(row.events, 1, `verification.approved events of ${pinId}`);
      }
      const unreported = rows.filter((r) => r.verified_at !== null && (r.status !== 'approved' || r.events !== 1)).map((r) => `${r.id}: ${r.status}, ${r.events} events`);
      assert.deepEqual(unreported, [], 'a verified PIN whose verification is not approved with its one event');
      assert.ok(rows.filter((r) => r.verified_at !== null).length >= acknowledged.size);
    } finally {
      db.close();
    }
  });
});
