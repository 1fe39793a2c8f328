// No PIN in plaintext on disk or in the logs, no full destination in the logs, and neither the API
// key nor TWOFA_SECRET anywhere: one full flow against a real `twofa serve` process on a SQLite file,
// then every file of its data folder and everything it printed are scanned byte by byte.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createJsonClient, expectOk, pinFromText, waitForInboxMessage, type JsonClient } from '../support/json-client.js';
import { startServerProcess, TEST_API_KEY, TEST_SECRET, type ServerProcess } from '../support/server-process.js';

const PHONE_A = '41793026727';
const PHONE_B = '41793026728';
const EMAIL = 'ann.smith@example.com';

/** The byte forms a string could take on disk: UTF-8/ASCII and UTF-16LE (SQLite's UTF-16 encodings). */
function encodings(value: string): { form: string; bytes: Buffer }[] {
  return [
    { form: 'ascii', bytes: Buffer.from(value, 'utf8') },
    { form: 'utf16le', bytes: Buffer.from(value, 'utf16le') },
  ];
}

/** Every place `needle` occurs in `haystack` under one of its encodings. */
function findIn(haystack: Buffer, needle: string): string[] {
  return encodings(needle).filter(({ bytes }) => haystack.includes(bytes)).map(({ form }) => form);
}

/** All regular files under `dir` except the generated secret file, read whole. */
function readDataFiles(dir: string): { file: string; bytes: Buffer }[] {
  const files: { file: string; bytes: Buffer }[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name === 'secret') continue;
    const full = path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    try {
      files.push({ file: path.relative(dir, full), bytes: fs.readFileSync(full) });
    } catch (err) {
      // A -wal or -shm file may vanish between listing and reading while the server runs.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return files;
}

/** "file (form)" for each data file holding `needle`. */
function leaksIn(files: { file: string; bytes: Buffer }[], needle: string): string[] {
  return files.flatMap(({ file, bytes }) => findIn(bytes, needle).map((form) => `${file} (${form})`));
}

describe('secrets at rest: database files and logs of a real server', () => {
  let server: ServerProcess;
  let client: JsonClient;
  const pins: { label: string; pin: string }[] = [];
  const inboxSamples: string[] = [];
  let liveFiles: { file: string; bytes: Buffer }[] = [];
  let exitCode: number | null = null;
  let stoppedFiles: { file: string; bytes: Buffer }[] = [];
  let logs = '';

  before(async () => {
    // trace: every line the server can write at any level is scanned, not only the default ones.
    server = await startServerProcess({ TWOFA_LOG_LEVEL: 'trace' });
    client = createJsonClient(server.url, server.key);

    // Application, SMS/voice templates (NUMERIC 8 and HEX 10) and an email template.
    const app = expectOk(await client.post('/2fa/2/applications', {
      name: 'secrets', configuration: { pinAttempts: 5, verifyPinLimit: '1000/1s', sendPinPerPhoneNumberLimit: '100/1d' },
    }), 'create application');
    const applicationId = app.body.applicationId as string;
    const numeric = expectOk(await client.post(`/2fa/2/applications/${applicationId}/messages`, {
      pinType: 'NUMERIC', pinLength: 8, messageText: 'Hello {{name}}, your code is {{pin}}', senderId: 'Acme',
    }), 'create NUMERIC template');
    const hex = expectOk(await client.post(`/2fa/2/applications/${applicationId}/messages`, {
      pinType: 'HEX', pinLength: 10, messageText: 'Your code is {{pin}}', senderId: 'Acme',
    }), 'create HEX template');
    const emailTemplate = expectOk(await client.post('/api/v1/email-templates', {
      name: 'login', from: 'Acme <no-reply@acme.example>', subject: 'Acme code {{pin}}',
      html: '<p>Hello {{name}}, your code is <b>{{pin}}</b></p>', text: 'Hello {{name}}, your code is {{pin}}',
    }), 'create email template');
    const emailMessage = expectOk(await client.post(`/2fa/2/applications/${applicationId}/email/messages`, {
      emailTemplateId: emailTemplate.body.id, pinType: 'ALPHANUMERIC', pinLength: 12,
    }), 'create email message template');

    // PIN A (SMS, NUMERIC 8): resent, one wrong verify, then the right one.
    const a = expectOk(await client.post('/2fa/2/pin', { applicationId, messageId: numeric.body.messageId, to: PHONE_A, placeholders: { name: 'Ann' } }), 'send A');
    const pinA = pinFromText((await waitForInboxMessage(client, PHONE_A, a.body.pinId)).messages[0]?.text);
    expectOk(await client.post(`/2fa/2/pin/${a.body.pinId}/resend`, { placeholders: { name: 'Ann' } }), 'resend A');
    const resentA = await waitForInboxMessage(client, PHONE_A, a.body.pinId, { count: 2 });
    assert.ok(resentA.messages.every((m) => pinFromText(m.text) === pinA), 'a resend delivers the same PIN');
    inboxSamples.push(resentA.raw);
    const wrongA = `${pinA.slice(0, -1)}${(Number(pinA.at(-1)) + 1) % 10}`;
    assert.equal(expectOk(await client.post(`/2fa/2/pin/${a.body.pinId}/verify`, { pin: wrongA }), 'wrong verify A').body.pinError, 'WRONG_PIN');
    assert.equal(expectOk(await client.post(`/2fa/2/pin/${a.body.pinId}/verify`, { pin: pinA }), 'verify A').body.verified, true);
    pins.push({ label: 'SMS NUMERIC 8 (verified)', pin: pinA });

    // PIN B (SMS, HEX 10): resent by voice, one wrong verify, left pending.
    const b = expectOk(await client.post('/2fa/2/pin', { applicationId, messageId: hex.body.messageId, to: PHONE_B }), 'send B');
    const pinB = pinFromText((await waitForInboxMessage(client, PHONE_B, b.body.pinId)).messages[0]?.text);
    assert.match(pinB, /^[0-9A-F]{10}$/);
    expectOk(await client.post(`/2fa/2/pin/${b.body.pinId}/resend/voice`, {}), 'resend B by voice');
    inboxSamples.push((await waitForInboxMessage(client, PHONE_B, b.body.pinId, { count: 2 })).raw);
    assert.equal(expectOk(await client.post(`/2fa/2/pin/${b.body.pinId}/verify`, { pin: 'ZZZZZZZZZZ' }), 'wrong verify B').body.pinError, 'WRONG_PIN');
    pins.push({ label: 'SMS HEX 10 (pending)', pin: pinB });

    // PIN C (email, ALPHANUMERIC 12): resent by email, left pending.
    const c = expectOk(await client.post('/2fa/2/pin/email', { applicationId, messageId: emailMessage.body.messageId, to: EMAIL, placeholders: { name: 'Ann' } }), 'send C');
    const firstC = (await waitForInboxMessage(client, EMAIL, c.body.pinId)).messages[0];
    const pinC = pinFromText(firstC?.text);
    assert.ok(firstC?.html?.includes(`<b>${pinC}</b>`) && firstC.subject === `Acme code ${pinC}`, 'the email carries the PIN in subject, text and html');
    expectOk(await client.post(`/2fa/2/pin/${c.body.pinId}/resend/email`, { placeholders: { name: 'Ann' } }), 'resend C');
    inboxSamples.push((await waitForInboxMessage(client, EMAIL, c.body.pinId, { count: 2 })).raw);
    pins.push({ label: 'email ALPHANUMERIC 12 (pending)', pin: pinC });

    // Requests that carry full destinations in their query strings.
    expectOk(await client.get(`/2fa/2/applications/${applicationId}/verifications?msisdn=${PHONE_A}`), 'verification status A');
    expectOk(await client.get(`/2fa/2/applications/${applicationId}/verifications?msisdn=${encodeURIComponent(EMAIL)}`), 'verification status C');

    // The data folder while the server runs (the WAL holds the newest pages then), and after it stopped.
    liveFiles = readDataFiles(server.dataDir);
    exitCode = await server.stop();
    stoppedFiles = readDataFiles(server.dataDir);
    logs = server.output();
  });

  after(async () => {
    if (!server) return;
    await server.stop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('went through the whole flow and stopped cleanly', () => {
    assert.equal(pins.length, 3);
    assert.equal(new Set(pins.map((p) => p.pin)).size, 3);
    assert.equal(exitCode, 0, logs.slice(-2000));
    assert.ok(stoppedFiles.some((f) => f.file === 'twofa.db'), `the database file exists: ${stoppedFiles.map((f) => f.file).join(', ')}`);
    assert.ok(liveFiles.length > 0);
  });

  it('the scanner finds what is there (so the checks below can fail)', () => {
    for (const { label, pin } of pins) {
      assert.ok(inboxSamples.some((sample) => findIn(Buffer.from(sample, 'utf8'), pin).includes('ascii')), `${label}: found in an inbox API response`);
      assert.ok(inboxSamples.some((sample) => findIn(Buffer.from(sample, 'utf16le'), pin).includes('utf16le')), `${label}: found in the UTF-16LE form of an inbox API response`);
    }
    // Destinations are stored in clear (they are not secrets): proof that the database bytes are read.
    assert.ok(leaksIn(stoppedFiles, PHONE_A).length > 0, 'the scanner finds the phone number in the database files');
    assert.ok(leaksIn(stoppedFiles, EMAIL).length > 0, 'the scanner finds the email address in the database files');
    // And the logs were captured: a masked destination and the delivery lines are there.
    assert.match(logs, /message delivered to local inbox/);
    assert.match(logs, /twofa is listening/);
  });

  it('no PIN in any file of the data folder, while running or after stop (ASCII or UTF-16LE)', () => {
    for (const [when, files] of [['running', liveFiles], ['stopped', stoppedFiles]] as const) {
      for (const { label, pin } of pins) {
        assert.deepEqual(leaksIn(files, pin), [], `${label} PIN ${pin} found on disk (${when})`);
        // The lowercase spelling too, for the PINs with letters.
        if (pin.toLowerCase() !== pin) assert.deepEqual(leaksIn(files, pin.toLowerCase()), [], `${label} PIN in lowercase found on disk (${when})`);
      }
    }
  });

  it('neither the API key nor TWOFA_SECRET in any file of the data folder', () => {
    for (const files of [liveFiles, stoppedFiles]) {
      assert.deepEqual(leaksIn(files, TEST_API_KEY), [], 'API key found on disk');
      assert.deepEqual(leaksIn(files, TEST_SECRET), [], 'TWOFA_SECRET found on disk');
    }
  });

  it('the logs hold no PIN, no full destination, no API key and no secret', () => {
    const bytes = Buffer.from(logs, 'utf8');
    for (const { label, pin } of pins) assert.deepEqual(findIn(bytes, pin), [], `${label} PIN ${pin} found in the logs`);
    assert.deepEqual(findIn(bytes, PHONE_A), [], 'full phone number A found in the logs');
    assert.deepEqual(findIn(bytes, PHONE_B), [], 'full phone number B found in the logs');
    assert.deepEqual(findIn(bytes, EMAIL), [], 'full email address found in the logs');
    assert.deepEqual(findIn(bytes, encodeURIComponent(EMAIL)), [], 'URL-encoded email address found in the logs');
    assert.deepEqual(findIn(bytes, TEST_API_KEY), [], 'API key found in the logs');
    assert.deepEqual(findIn(bytes, TEST_SECRET), [], 'TWOFA_SECRET found in the logs');
  });
});
