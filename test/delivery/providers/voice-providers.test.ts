// Voice PINs through the HTTP providers, each against a local server that checks the documented
// request shape: Twilio's Calls.json with inline TwiML <Say>, Vonage's /v1/calls with an NCCO talk
// action and an RS256 JWT (verified here with the public half of a key made for the test), and
// Infobip's /tts/3/advanced text-to-speech message. Also Twilio's call status callbacks.
import { generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createInfobipTransport } from '../../../src/delivery/providers/infobip/infobip-transport.js';
import { parseTwilioCallback, twilioCallback } from '../../../src/delivery/providers/twilio/twilio-callback.js';
import { createTwilioTransport, twiml } from '../../../src/delivery/providers/twilio/twilio-transport.js';
import { createVonageTransport } from '../../../src/delivery/providers/vonage/vonage-transport.js';
import { composeSpokenMessage } from '../../../src/delivery/voice/spoken-text.js';
import type { OutgoingMessage, VoiceContent } from '../../../src/delivery/transport.js';
import { FakeProvider, formFields } from './fake-provider.js';

const PIN = '731904';
const NUMBER = '41793026727';
const logLines: string[] = [];
const logger = pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) });

function voiceMessage(voice: Partial<VoiceContent> = {}, from?: string): OutgoingMessage {
  return {
    channel: 'voice',
    to: NUMBER,
    text: `Your code is ${PIN}`,
    ...(from !== undefined && { from }),
    pinId: '9C817C6F8AF3D48F9FE553282AFA2B67',
    applicationId: 'APP1',
    messageId: 'MSG1',
    accountId: 'acct-1',
    deliveryId: '17',
    voice: { pin: PIN, language: 'en', speechRate: null, voiceName: null, repeatDtmf: null, template: 'Your code is {{pin}}.', placeholders: {}, ...voice },
  };
}

const SPOKEN = 'Your code is 7, 3, 1, 9, 0, 4.';

describe('Twilio voice calls', () => {
  const SID = 'AC0123456789abcdef0123456789abcdef';
  const TOKEN = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
  const twilio = new FakeProvider();
  before(() => twilio.start());
  after(() => twilio.stop());
  beforeEach(() => twilio.reset());
  const transport = (query = '') =>
    createTwilioTransport('TWOFA_VOICE_DSN', new URL(`twilio://${SID}:${TOKEN}@default?from=+15005550006&base_url=${encodeURIComponent(twilio.baseUrl)}${query}`), { logger });

  it('POSTs a call with inline TwiML to Calls.json and returns the call sid', async () => {
    twilio.reply = { status: 201, body: { sid: 'CA0123456789abcdef0123456789abcdef', status: 'queued' } };
    const result = await transport(`&status_callback=${encodeURIComponent('https://twofa.example.com/api/v1/callbacks/twilio')}`).send(voiceMessage());
    assert.deepEqual(result, { ok: true, providerMessageId: 'CA0123456789abcdef0123456789abcdef' });
    const request = twilio.last();
    assert.equal(request.method, 'POST');
    assert.equal(request.path, `/2010-04-01/Accounts/${SID}/Calls.json`);
    assert.equal(request.headers.authorization, `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
    assert.equal(request.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.deepEqual(formFields(request.body), {
      To: `+${NUMBER}`,
      From: '+15005550006',
      Twiml: `<Response><Say language="en-US" loop="2">${SPOKEN}</Say></Response>`,
      StatusCallback: 'https://twofa.example.com/api/v1/callbacks/twilio',
    });
  });

  it('maps language, voice and rate, escapes XML, and calls from a numeric senderId', async () => {
    twilio.reply = { status: 201, body: { sid: 'CA1' } };
    const message = voiceMessage({ language: 'pt-br', voiceName: 'Camila', speechRate: 0.75, template: 'Código <{{pin}}> & "obrigado"' }, '+5511999990000');
    await transport('&repeat=3').send(message);
    const fields = formFields(twilio.last().body);
    assert.equal(fields.From, '+5511999990000');
    assert.equal(
      fields.Twiml,
      '<Response><Say language="pt-BR" voice="Polly.Camila" loop="3"><prosody rate="75%">Código &lt; 7, 3, 1, 9, 0, 4 &gt; &amp; &quot;obrigado&quot;</prosody></Say></Response>',
    );
    // An alphanumeric sender cannot place a call: the DSN's number is used.
    await transport().send(voiceMessage({}, 'ACME'));
    assert.equal(formFields(twilio.last().body).From, '+15005550006');
  });

  it('leaves SSML out for the basic voices', () => {
    const spoken = composeSpokenMessage(voiceMessage({ voiceName: 'alice', speechRate: 1.5, language: 'zh_tw', template: '{{pin}}' }).voice!, { repeat: 1 });
    assert.equal(twiml(spoken), '<Response><Say language="zh-TW" voice="alice" loop="1">7, 3, 1, 9, 0, 4</Say></Response>');
  });

  it('refuses a call without a caller number, and hides the spaced-out PIN in errors', async () => {
    const noFrom = createTwilioTransport('TWOFA_VOICE_DSN', new URL(`twilio://${SID}:${TOKEN}@default?base_url=${encodeURIComponent(twilio.baseUrl)}`), { logger });
    const refused = await noFrom.send(voiceMessage({}, 'ACME'));
    assert.ok(!refused.ok && !refused.retryable && /no caller number/.test(refused.error));
    assert.equal(twilio.requests.length, 0);

    twilio.reply = { status: 400, body: { code: 13520, message: 'Invalid TwiML: <Say>Your code is 7, 3, 1, 9, 0, 4.</Say> for +41793026727', status: 400 } };
    const result = await transport().send(voiceMessage());
    assert.ok(!result.ok && !result.retryable);
    assert.match(result.error, /^twilio answered HTTP 400: error 13520: Invalid TwiML/);
    assert.ok(!result.error.includes('7, 3, 1') && !result.error.includes(NUMBER), result.error);
  });

  it('reads call status callbacks: completed is delivered, busy and no-answer are not', () => {
    const now = 1_700_000_000_000;
    const fields = { AccountSid: SID, CallSid: 'CA0123456789abcdef0123456789abcdef', CallStatus: 'completed', To: `+${NUMBER}`, From: '+15005550006' };
    assert.deepEqual(parseTwilioCallback(fields, now), { transport: 'twilio', providerMessageId: fields.CallSid, status: 'delivered', at: now });
    assert.deepEqual(parseTwilioCallback({ ...fields, CallStatus: 'busy' }, now), { transport: 'twilio', providerMessageId: fields.CallSid, status: 'undelivered', error: 'busy', at: now });
    assert.equal(parseTwilioCallback({ ...fields, CallStatus: 'no-answer' }, now)?.error, 'no-answer');
    assert.equal(parseTwilioCallback({ ...fields, CallStatus: 'ringing' }, now), null);
    const request = { url: 'https://twofa.example.com/api/v1/callbacks/twilio', headers: {}, query: {}, body: { ...fields, CallStatus: 'in-progress' } };
    assert.deepEqual(twilioCallback.parse(request, now), { ok: true, receipts: [] });
  });
});

describe('Vonage voice calls', () => {
  const APPLICATION_ID = 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const dir = mkdtempSync(path.join(tmpdir(), 'twofa-vonage-'));
  const keyFile = path.join(dir, 'private.key');
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const vonage = new FakeProvider();
  before(() => vonage.start());
  after(async () => {
    await vonage.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => vonage.reset());
  const transport = (query = '') =>
    createVonageTransport(
      'TWOFA_VOICE_DSN',
      new URL(`vonage://KEY:SECRET@default?from=15005550006&application_id=${APPLICATION_ID}&private_key_file=${encodeURIComponent(keyFile)}&base_url=${encodeURIComponent(vonage.baseUrl)}${query}`),
      { logger },
    );

  /** The JWT's claims, after checking its RS256 signature with the application's public key. */
  function verifiedClaims(authorization: string | undefined): Record<string, unknown> {
    const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    assert.ok(token, 'a Bearer token');
    const [header, claims, signature] = token.split('.') as [string, string, string];
    assert.deepEqual(JSON.parse(Buffer.from(header, 'base64url').toString()), { alg: 'RS256', typ: 'JWT' });
    assert.ok(verify('RSA-SHA256', Buffer.from(`${header}.${claims}`), publicKey, Buffer.from(signature, 'base64url')), 'signature valid');
    return JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown>;
  }

  it('POSTs /v1/calls with an NCCO talk action and a signed JWT, and returns the call uuid', async () => {
    vonage.reply = { status: 201, body: { uuid: '63f61863-4a51-4f6b-86e1-46edebcf9356', status: 'started', direction: 'outbound', conversation_uuid: 'CON-f972836a' } };
    const result = await transport().send(voiceMessage({ language: 'zh-cn', template: '验证码 {{pin}}' }));
    assert.deepEqual(result, { ok: true, providerMessageId: '63f61863-4a51-4f6b-86e1-46edebcf9356' });
    const request = vonage.last();
    assert.equal(request.path, '/v1/calls');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(request.body), {
      to: [{ type: 'phone', number: NUMBER }],
      from: { type: 'phone', number: '15005550006' },
      ncco: [{ action: 'talk', text: '验证码 7, 3, 1, 9, 0, 4', language: 'cmn-CN', loop: 2 }],
    });
    const claims = verifiedClaims(request.headers.authorization);
    assert.equal(claims.application_id, APPLICATION_ID);
    const now = Math.floor(Date.now() / 1000);
    assert.ok(Math.abs(Number(claims.iat) - now) < 5 && Number(claims.exp) > now);
    assert.match(String(claims.jti), /^[0-9a-f-]{36}$/);
  });

  it('wraps a changed pace in SSML and tells a bad key (401) from a busy API (429)', async () => {
    vonage.reply = { status: 201, body: { uuid: 'u-1' } };
    await transport('&repeat=1').send(voiceMessage({ speechRate: 1.5, template: 'Code {{pin}} <ok>' }));
    assert.deepEqual(JSON.parse(vonage.last().body).ncco, [{ action: 'talk', text: '<speak><prosody rate="150%">Code 7, 3, 1, 9, 0, 4 &lt;ok&gt;</prosody></speak>', language: 'en-US', loop: 1 }]);

    vonage.reply = { status: 401, body: { type: 'https://developer.nexmo.com/api-errors#unauthorized', title: 'Unauthorized', detail: 'You did not provide correct credentials.' } };
    const unauthorized = await transport().send(voiceMessage());
    assert.deepEqual(unauthorized, { ok: false, retryable: false, error: 'vonage answered HTTP 401: Unauthorized: You did not provide correct credentials.' });
    vonage.reply = { status: 429, body: { title: 'Too Many Requests' } };
    const throttled = await transport().send(voiceMessage());
    assert.ok(!throttled.ok && throttled.retryable);
  });

  it('checks the voice settings of the DSN', () => {
    const make = (query: string) => () => createVonageTransport('TWOFA_VOICE_DSN', new URL(`vonage://KEY:SECRET@default?${query}`), { logger });
    assert.throws(make(`application_id=${APPLICATION_ID}`), /both application_id and private_key_file/);
    assert.throws(make(`application_id=nope&private_key_file=${encodeURIComponent(keyFile)}`), /application_id must be/);
    assert.throws(make(`application_id=${APPLICATION_ID}&private_key_file=/nonexistent/key`), /cannot read private_key_file \/nonexistent\/key: ENOENT/);
    const notKey = path.join(dir, 'not.key');
    writeFileSync(notKey, 'hello');
    assert.throws(make(`application_id=${APPLICATION_ID}&private_key_file=${encodeURIComponent(notKey)}`), /does not hold a PEM private key/);
    assert.throws(make('repeat=0'), /repeat must be a whole number/);
  });
});

describe('Infobip voice messages', () => {
  const API_KEY = '003026bbc133714df1834b8638bb496e-8f4b3d9a-e931-478d-a994-28a725159ab9';
  const infobip = new FakeProvider();
  before(() => infobip.start());
  after(() => infobip.stop());
  beforeEach(() => infobip.reset());
  const transport = (query = '') =>
    createInfobipTransport('TWOFA_VOICE_DSN', new URL(`infobip://${API_KEY}@${new URL(infobip.baseUrl).host}?scheme=http${query}`), { logger });
  const pending = { status: 200, body: { bulkId: 'b-1', messages: [{ to: NUMBER, status: { groupId: 1, groupName: 'PENDING', id: 26, name: 'PENDING_ACCEPTED' }, messageId: 'v-1' }] } };

  it('POSTs /tts/3/advanced with the text read twice and the template settings', async () => {
    infobip.reply = pending;
    const result = await transport(`&from=38761222333&notify_url=${encodeURIComponent('https://twofa.example.com/api/v1/callbacks/infobip')}&callback_token=tok123`).send(
      voiceMessage({ language: 'pt_pt', speechRate: 1.5, voiceName: 'Joanna', repeatDtmf: '1#', template: 'O seu código é {{pin}}.' }),
    );
    assert.deepEqual(result, { ok: true, providerMessageId: 'v-1' });
    const request = infobip.last();
    assert.equal(request.path, '/tts/3/advanced');
    assert.equal(request.headers.authorization, `App ${API_KEY}`);
    assert.deepEqual(JSON.parse(request.body), {
      messages: [{
        from: '38761222333',
        destinations: [{ to: NUMBER }],
        text: 'O seu código é 7, 3, 1, 9, 0, 4. O seu código é 7, 3, 1, 9, 0, 4.',
        language: 'pt-pt',
        speechRate: 1.5,
        voice: { name: 'Joanna' },
        repeatDtmf: '1#',
        notifyUrl: 'https://twofa.example.com/api/v1/callbacks/infobip?token=tok123',
        notifyContentType: 'application/json',
      }],
    });
  });

  it('leaves out what the template does not set, and reports refusals without the PIN', async () => {
    infobip.reply = pending;
    await transport('&repeat=1').send(voiceMessage());
    assert.deepEqual(JSON.parse(infobip.last().body), { messages: [{ destinations: [{ to: NUMBER }], text: SPOKEN, language: 'en' }] });

    infobip.reply = { status: 400, body: { requestError: { serviceException: { messageId: 'BAD_REQUEST', text: 'Invalid text "Your code is 7, 3, 1, 9, 0, 4."' } } } };
    const result = await transport().send(voiceMessage());
    assert.ok(!result.ok && !result.retryable);
    assert.ok(!result.error.includes('7, 3') && result.error.startsWith('infobip answered HTTP 400: BAD_REQUEST'), result.error);
    infobip.reply = { status: 200, body: { messages: [{ messageId: 'v-2', status: { groupName: 'REJECTED', name: 'REJECTED_DESTINATION' } }] } };
    assert.deepEqual(await transport().send(voiceMessage()), { ok: false, retryable: false, error: 'infobip refused the message: REJECTED_DESTINATION' });
  });
});

describe('voice through providers, logged', () => {
  it('never logged the PIN, the spoken text or the full number', () => {
    const joined = logLines.join('\n');
    assert.ok(!joined.includes(PIN) && !joined.includes('7, 3, 1') && !joined.includes(NUMBER));
  });
});
