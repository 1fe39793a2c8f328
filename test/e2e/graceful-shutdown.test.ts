// SIGTERM while sends are pouring in: every send the server acknowledged (200) is delivered, by the
// stopping node before it exits or by the next node from the outbox, never lost.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createJsonClient } from '../support/json-client.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

describe('graceful shutdown under load', () => {
  const received = new Set<string>();
  let receiver: http.Server;
  let dsn: string;
  const servers: ServerProcess[] = [];

  before(async () => {
    // A slow SMS provider: deliveries take a while, so some are still queued when SIGTERM arrives.
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => { body += chunk; });
      req.on('end', () => {
        setTimeout(() => {
          received.add((JSON.parse(body) as { pinId: string }).pinId);
          res.writeHead(204).end();
        }, 150);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    dsn = `webhook+http://127.0.0.1:${port}/sms?secret=whsec_${randomBytes(32).toString('base64')}`;
  });
  after(async () => {
    for (const s of servers) await s.stop();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('loses no acknowledged send when stopped mid-load and restarted', async () => {
    const first = await startServerProcess({ TWOFA_SMS_DSN: dsn });
    servers.push(first);
    const client = createJsonClient(first.url, first.key);
    const { applicationId, messageId } = await createAppAndTemplate(client, { sendPinPerPhoneNumberLimit: '100000/1d', sendPinPerApplicationLimit: '100000/1d' });

    const acknowledged: string[] = [];
    let stopping = false;
    let refusedAfterStop = 0;
    const sender = async (lane: number) => {
      for (let i = 0; !stopping || i < 3; i++) {
        try {
          const answer = await client.post('/2fa/2/pin', { applicationId, messageId, to: `4179${String(lane).padStart(3, '0')}${String(i).padStart(4, '0')}` });
          if (answer.status === 200) acknowledged.push(answer.body.pinId as string);
          else if (stopping) refusedAfterStop += 1;
        } catch {
          // Connection refused or reset once the server stops accepting: not acknowledged, so not owed.
          if (stopping) return;
        }
      }
    };
    const lanes = Array.from({ length: 8 }, (_, lane) => sender(lane));
    // Stop once a good number of sends were acknowledged (a fixed delay would depend on the machine's load).
    const loadDeadline = Date.now() + 20_000;
    while (acknowledged.length < 20 && Date.now() < loadDeadline) await new Promise((resolve) => setTimeout(resolve, 20));
    stopping = true;
    const exitCode = await first.stop();
    await Promise.all(lanes);
    assert.equal(exitCode, 0, 'SIGTERM ends the process cleanly');
    assert.ok(acknowledged.length >= 20, `sends were acknowledged before the stop (${acknowledged.length})`);
    const undeliveredAtStop = acknowledged.filter((id) => !received.has(id));
    console.error(`acknowledged ${acknowledged.length}, queued at stop ${undeliveredAtStop.length}`);

    // The next node, on the same database, delivers whatever the stopped one left queued.
    const second = await startServerProcess({ TWOFA_SMS_DSN: dsn, TWOFA_DATA_DIR: first.dataDir });
    servers.push(second);
    const deadline = Date.now() + 30_000;
    while (acknowledged.some((id) => !received.has(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const lost = acknowledged.filter((id) => !received.has(id));
    assert.deepEqual(lost, [], `every acknowledged send is delivered (${undeliveredAtStop.length} were still queued at the stop, ${refusedAfterStop} refused while stopping)`);
  });
});
