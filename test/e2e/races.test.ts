// Race gates under truly concurrent HTTP requests against a real `twofa serve` process on a SQLite
// file: attempts never exceed pinAttempts, a PIN is verified once, and the send and verify limits
// admit exactly their count.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createJsonClient, deliveredPin, expectOk, type JsonClient, type JsonResponse } from '../support/json-client.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

const TRIALS = 3;

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

const outcome = (r: JsonResponse) => `${r.status} ${r.body?.pinError ?? r.body?.requestError?.serviceException?.messageId ?? (r.body?.verified === true ? 'verified' : '')}`;

/** A PIN of the same length and alphabet that is certainly not `pin`. */
function wrongPinFor(pin: string): string {
  const last = Number(pin.at(-1));
  return `${pin.slice(0, -1)}${(last + 1) % 10}`;
}

async function concurrently<T>(n: number, request: (i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => request(i)));
}

describe('race gates under concurrent HTTP requests (real server, SQLite file)', () => {
  let server: ServerProcess;
  let client: JsonClient;

  before(async () => {
    server = await startServerProcess();
    client = createJsonClient(server.url, server.key);
  });

  after(async () => {
    if (!server) return;
    const code = await server.stop();
    assert.equal(code, 0, `the server exits 0 on SIGTERM\n${server.output().slice(-2000)}`);
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('200 concurrent wrong verifies on one PIN: exactly pinAttempts (5) are WRONG_PIN, the rest NO_MORE_PIN_ATTEMPTS, and the right PIN is refused afterwards', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(client, { pinAttempts: 5, verifyPinLimit: '10000/1s', sendPinPerPhoneNumberLimit: '1000/1d' });
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const to = `4179302671${trial}`;
      const sent = expectOk(await client.post('/2fa/2/pin', { applicationId, messageId, to }), 'send');
      const pinId = sent.body.pinId as string;
      const pin = await deliveredPin(client, to, pinId);
      const wrong = wrongPinFor(pin);

      const answers = await concurrently(200, () => client.post(`/2fa/2/pin/${pinId}/verify`, { pin: wrong }));
      assert.deepEqual(countBy(answers, outcome), { '200 WRONG_PIN': 5, '200 NO_MORE_PIN_ATTEMPTS': 195 }, `trial ${trial}`);
      for (const a of answers) {
        assert.equal(a.body.verified, false);
        assert.equal(a.body.pinId, pinId);
        assert.equal(a.body.msisdn, to);
      }
      // Each counted attempt saw a different number of attempts left: none was counted twice.
      const remaining = answers.filter((a) => a.body.pinError === 'WRONG_PIN').map((a) => a.body.attemptsRemaining as number).sort();
      assert.deepEqual(remaining, [0, 1, 2, 3, 4], `trial ${trial}`);
      for (const a of answers.filter((x) => x.body.pinError === 'NO_MORE_PIN_ATTEMPTS')) assert.equal(a.body.attemptsRemaining, 0);

      const right = await client.post(`/2fa/2/pin/${pinId}/verify`, { pin });
      assert.equal(right.status, 200);
      assert.deepEqual(right.body, { pinId, msisdn: to, verified: false, attemptsRemaining: 0, pinError: 'NO_MORE_PIN_ATTEMPTS' });
    }
  });

  it('100 concurrent right verifies without allowMultiplePinVerifications: exactly one verified:true, 99 ALREADY_VERIFIED', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(client, {
      pinAttempts: 1000, allowMultiplePinVerifications: false, verifyPinLimit: '10000/1s', sendPinPerPhoneNumberLimit: '1000/1d',
    });
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const to = `4179302672${trial}`;
      const sent = expectOk(await client.post('/2fa/2/pin', { applicationId, messageId, to }), 'send');
      const pinId = sent.body.pinId as string;
      const pin = await deliveredPin(client, to, pinId);

      const answers = await concurrently(100, () => client.post(`/2fa/2/pin/${pinId}/verify`, { pin }));
      assert.deepEqual(countBy(answers, outcome), { '200 verified': 1, '200 ALREADY_VERIFIED': 99 }, `trial ${trial}`);
      const winner = answers.find((a) => a.body.verified === true)!;
      assert.deepEqual(Object.keys(winner.body).sort(), ['attemptsRemaining', 'msisdn', 'pinId', 'verified']);
      for (const a of answers) assert.equal(a.body.msisdn, to);

      const status = expectOk(await client.get(`/2fa/2/applications/${applicationId}/verifications?msisdn=${to}`), 'verification status');
      assert.equal(status.body.verifications.length, 1);
      assert.equal(status.body.verifications[0].verified, true);
    }
  });

  it('50 concurrent sends to one number under sendPinPerPhoneNumberLimit 5/1d: exactly 5 are sent, 45 are 429 with Retry-After', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(client, { sendPinPerPhoneNumberLimit: '5/1d', sendPinPerApplicationLimit: '10000/1d' });
    const to = '41793026730';
    const answers = await concurrently(50, () => client.post('/2fa/2/pin', { applicationId, messageId, to }));
    assert.deepEqual(countBy(answers, outcome), { '200 ': 5, '429 TOO_MANY_REQUESTS': 45 });
    const pinIds = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.pinId as string));
    assert.equal(pinIds.size, 5);
    for (const a of answers.filter((x) => x.status === 429)) {
      const retryAfter = a.headers.get('retry-after');
      assert.match(retryAfter ?? '', /^[1-9][0-9]*$/, 'Retry-After is a positive number of seconds');
      assert.ok(Number(retryAfter) <= 86_400, `Retry-After ${retryAfter} is within the 1d window`);
    }
  });

  it('40 concurrent sends to 40 numbers under sendPinPerApplicationLimit 7/1d: exactly 7 are sent', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(client, { sendPinPerApplicationLimit: '7/1d' });
    const answers = await concurrently(40, (i) => client.post('/2fa/2/pin', { applicationId, messageId, to: `417930267${String(40 + i).padStart(2, '0')}` }));
    assert.deepEqual(countBy(answers, outcome), { '200 ': 7, '429 TOO_MANY_REQUESTS': 33 });
    for (const a of answers.filter((x) => x.status === 429)) assert.match(a.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
  });

  it('30 concurrent verifies under verifyPinLimit 3/1m: exactly 3 are counted, 27 are 429', async () => {
    const { applicationId, messageId } = await createAppAndTemplate(client, { verifyPinLimit: '3/1m', pinAttempts: 10 });
    const to = '41793026799';
    const sent = expectOk(await client.post('/2fa/2/pin', { applicationId, messageId, to }), 'send');
    const pinId = sent.body.pinId as string;
    const pin = await deliveredPin(client, to, pinId);
    const answers = await concurrently(30, () => client.post(`/2fa/2/pin/${pinId}/verify`, { pin: wrongPinFor(pin) }));
    assert.deepEqual(countBy(answers, outcome), { '200 WRONG_PIN': 3, '429 TOO_MANY_REQUESTS': 27 });
    assert.deepEqual(answers.filter((a) => a.status === 200).map((a) => a.body.attemptsRemaining as number).sort(), [7, 8, 9]);
    for (const a of answers.filter((x) => x.status === 429)) assert.match(a.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
    // The refused requests spent no attempt (9, 8, 7 above) and the window is still full.
    const afterRace = await client.post(`/2fa/2/pin/${pinId}/verify`, { pin });
    assert.equal(afterRace.status, 429);
  });
});
