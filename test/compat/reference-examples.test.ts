// Infobip's own documented examples (shared/reference/infobip-2fa-api.md §3-§6, taken from Infobip's
// OpenAPI document and SDK tests), sent with plain fetch as EXACT JSON bodies against a real server.
// Only ids and destinations that must exist are substituted. Each answer must carry exactly the keys
// of the reference's example answer (a strict client sees neither a missing nor an extra field), and
// the values wherever they are deterministic.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createJsonClient, expectOk, waitForInboxMessage, type JsonClient } from '../support/json-client.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

const PIN_ID = /^[0-9A-F]{32}$/;
const keysOf = (value: object) => Object.keys(value).sort();

// --- the reference's examples, verbatim ---

/** §3.2 "Application request". */
const APPLICATION_REQUEST = `{
  "name": "2fa application name",
  "enabled": true,
  "configuration": {
    "pinAttempts": 5,
    "allowMultiplePinVerifications": true,
    "pinTimeToLive": "10m",
    "verifyPinLimit": "2/4s",
    "sendPinPerApplicationLimit": "5000/12h",
    "sendPinPerPhoneNumberLimit": "2/1d"
  }
}`;
/** §3.2 "Creating new application response". */
const APPLICATION_RESPONSE = {
  applicationId: '1234567',
  name: 'Application name',
  configuration: {
    pinAttempts: 5, allowMultiplePinVerifications: true, pinTimeToLive: '10m', verifyPinLimit: '2/4s',
    sendPinPerApplicationLimit: '5000/12h', sendPinPerPhoneNumberLimit: '2/1d',
  },
  enabled: true,
};

/** §4.2 "Create message template with DLT parameters". */
const TEMPLATE_WITH_DLT_REQUEST = `{
  "pinType": "NUMERIC",
  "messageText": "Your pin is {{pin}}",
  "pinLength": 4,
  "language": "en",
  "voiceName": "Joanna",
  "senderId": "Infobip 2FA",
  "repeatDTMF": "1#",
  "speechRate": 1.0,
  "regional": {
    "indiaDlt": {
      "contentTemplateId": "your-template-id",
      "principalEntityId": "your-entity-id",
      "teleMarketerId": "your-tele-marketer-id"
    }
  }
}`;
/** §4.2 "Create message template with placeholders": "Create message template" with this messageText. */
const TEMPLATE_WITH_PLACEHOLDERS_REQUEST = `{
  "pinType": "NUMERIC",
  "messageText": "Hello {{firstName}} your pin is {{pin}}",
  "pinLength": 4,
  "language": "en",
  "voiceName": "Joanna",
  "senderId": "Infobip 2FA",
  "repeatDTMF": "1#",
  "speechRate": 1.0
}`;
/** §4.2 "Update message template". */
const TEMPLATE_UPDATE_REQUEST = `{"pinType": "ALPHANUMERIC", "messageText": "Your pin is {{pin}}", "pinLength": 6, "language": "en",
 "voiceName": "Joanna", "senderId": "Infobip 2FA", "repeatDTMF": "1#", "speechRate": 1.0}`;
/** §4.2 "Message template response". */
const TEMPLATE_RESPONSE = {
  messageId: 'B628A31410306DDB2BFB0D9CF1F3A3FF', applicationId: '19F2491982980DBC2C40E1597FD175AB', pinPlaceholder: '{{pin}}',
  messageText: 'Your pin is {{pin}}', pinLength: 4, pinType: 'ALPHANUMERIC', language: 'en', voiceName: 'Joanna',
  senderId: 'Infobip 2FA', repeatDTMF: '1#', speechRate: 1.0,
};

/** §4.3 email message template create and update requests (emailTemplateId 1234 is substituted). */
const EMAIL_MESSAGE_REQUEST = `{"pinType": "NUMERIC", "pinLength": 4, "from": "company@example.com", "emailTemplateId": 1234, "landingPageId": "1_23456"}`;
const EMAIL_MESSAGE_UPDATE_REQUEST = `{"pinType": "ALPHANUMERIC", "pinLength": 6, "from": "company@example.com", "emailTemplateId": 1234, "landingPageId": "1_23456"}`;
/** §4.3 "Email message template response" (also the email item of the §4.2 list example). */
const EMAIL_MESSAGE_RESPONSE = {
  messageId: '9C815F8AF3328', applicationId: 'HJ675435E3A6EA43432G5F37A635KJ8B', pinLength: 4,
  pinType: 'ALPHANUMERIC', from: 'company@example.com', emailTemplateId: 1234, landingPageId: '1_23456',
};

/** §5.1 "Send PIN over SMS with delivery report". */
const SEND_SMS_REQUEST = `{
  "applicationId": "1234567",
  "messageId": "7654321",
  "from": "Sender 1",
  "to": "41793026727",
  "placeholders": {"firstName": "John"},
  "trackDelivery": true
}`;
const SEND_SMS_TRACKED_RESPONSE = {
  pinId: '9C817C6F8AF3D48F9FE553282AFA2B67', to: '41793026727', ncStatus: 'NC_DESTINATION_REACHABLE', smsStatus: 'MESSAGE_SENT',
  externalMessageId: '32ddd1a1-9ace-4b99-95c0-add44c3363af',
};
/** §5.1 "Send PIN over SMS" (no tracking) and "Send PIN over Voice" responses. */
const SEND_SMS_RESPONSE = { pinId: '9C817C6F8AF3D48F9FE553282AFA2B67', to: '41793026727', ncStatus: 'NC_DESTINATION_REACHABLE', smsStatus: 'MESSAGE_SENT' };
const SEND_VOICE_RESPONSE = { pinId: '9C817C6F8AF3D48F9FE553282AFA2B67', to: '41793026727', callStatus: 'PENDING_ACCEPTED' };

/** §5.2 resend bodies: Infobip's example, what the Node SDK sends, what the Go SDK sends. */
const RESEND_REQUEST = `{"placeholders": {"firstName": "John"}, "trackDelivery": false}`;
const RESEND_REQUEST_NODE_SDK = `{}`;
const RESEND_REQUEST_GO_SDK = `{"trackDelivery": false}`;

/** §5.3 "Send PIN over Email" and its response. */
const SEND_EMAIL_REQUEST = `{
  "applicationId": "1234567",
  "messageId": "7654321",
  "to": "john.smith@example.com",
  "placeholders": {"firstName": "John"},
  "landingPagePlaceholders": {"name": "John", "surname": "Smith"}
}`;
const SEND_EMAIL_RESPONSE = {
  pinId: '9C817C6F8AF3D48F9FE553282AFA2B67',
  to: 'john.smith@example.com',
  emailStatus: { name: 'PENDING_ACCEPTED', description: 'Message accepted, pending for delivery.' },
};
/** §5.3 `ResendPinRequestViaEmail`: both of its fields, with the send example's values. */
const RESEND_EMAIL_REQUEST = `{"placeholders": {"firstName": "John"}, "landingPagePlaceholders": {"name": "John", "surname": "Smith"}}`;

/** §6.1 verify request and "Verify PIN response". */
const VERIFY_REQUEST = `{"pin": "1598"}`;
const VERIFY_RESPONSE = { pinId: '9C817C6F8AF3D48F9FE553282AFA2B67', msisdn: '41793026727', verified: true, attemptsRemaining: 0 };
/** §6.2 verification status example. */
const VERIFICATION_ROW = { msisdn: '41793026727', verified: true, verifiedAt: 1418364366, sentAt: 1418364246 };

/** Substitutes ids (and destinations) in a verbatim example body, leaving everything else as written. */
function substitute(json: string, replacements: Record<string, string | number>): string {
  let out = json;
  for (const [from, to] of Object.entries(replacements)) {
    assert.ok(out.includes(from), `the example contains ${from}`);
    out = out.split(from).join(typeof to === 'number' ? String(to) : to);
  }
  JSON.parse(out);
  return out;
}

const pinIn = (text: string | undefined) => {
  const pin = /(?:pin|code) is ([0-9A-Z]+)/.exec(text ?? '')?.[1];
  if (!pin) throw new Error(`no PIN in ${String(text)}`);
  return pin;
};

describe("the reference's example requests, verbatim, against a real server", () => {
  let server: ServerProcess;
  let client: JsonClient;
  let appId: string;
  let dltMessageId: string;
  let placeholderMessageId: string;
  let emailTemplateId: number;
  let emailMessageId: string;
  let smsPinId: string;

  /** POSTs or PUTs an exact JSON text (never re-serialised, so `1.0` and the spacing go out as written). */
  async function raw(method: 'POST' | 'PUT', path: string, json: string) {
    const response = await fetch(`${server.url}${path}`, {
      method, body: json, headers: { authorization: `App ${server.key}`, 'content-type': 'application/json' },
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text), text };
  }

  before(async () => {
    server = await startServerProcess({ TWOFA_LOG_LEVEL: 'warn' });
    client = createJsonClient(server.url, server.key);
  });

  after(async () => {
    if (!server) return;
    await server.stop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('§3.2 application request: the configuration is echoed exactly, with the example response\'s keys', async () => {
    const created = await raw('POST', '/2fa/2/applications', APPLICATION_REQUEST);
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(keysOf(created.body), keysOf(APPLICATION_RESPONSE));
    assert.deepEqual(created.body.configuration, APPLICATION_RESPONSE.configuration);
    assert.equal(created.body.name, '2fa application name');
    assert.equal(created.body.enabled, true);
    assert.match(created.body.applicationId, PIN_ID);
    appId = created.body.applicationId;

    const fetched = expectOk(await client.get(`/2fa/2/applications/${appId}`), 'get application');
    assert.deepEqual(fetched.body, created.body);
  });

  it('§4.2 template with DLT parameters: the example response\'s keys plus the regional block echoed', async () => {
    const created = await raw('POST', `/2fa/2/applications/${appId}/messages`, TEMPLATE_WITH_DLT_REQUEST);
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(keysOf(created.body), keysOf({ ...TEMPLATE_RESPONSE, regional: {} }));
    const request = JSON.parse(TEMPLATE_WITH_DLT_REQUEST);
    assert.deepEqual(created.body, {
      messageId: created.body.messageId, applicationId: appId, pinPlaceholder: '{{pin}}', messageText: 'Your pin is {{pin}}',
      pinLength: 4, pinType: 'NUMERIC', language: 'en', voiceName: 'Joanna', senderId: 'Infobip 2FA', repeatDTMF: '1#', speechRate: 1,
      regional: request.regional,
    });
    dltMessageId = created.body.messageId;
  });

  it('§4.2 template with placeholders: exactly the example response\'s keys', async () => {
    const created = await raw('POST', `/2fa/2/applications/${appId}/messages`, TEMPLATE_WITH_PLACEHOLDERS_REQUEST);
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(keysOf(created.body), keysOf(TEMPLATE_RESPONSE));
    assert.equal(created.body.messageText, 'Hello {{firstName}} your pin is {{pin}}');
    assert.equal(created.body.pinPlaceholder, '{{pin}}');
    assert.equal(created.body.pinType, 'NUMERIC');
    placeholderMessageId = created.body.messageId;
  });

  it('§4.2 update message template: the example response\'s keys (regional kept: PUT merges)', async () => {
    const updated = await raw('PUT', `/2fa/2/applications/${appId}/messages/${dltMessageId}`, TEMPLATE_UPDATE_REQUEST);
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(keysOf(updated.body), keysOf({ ...TEMPLATE_RESPONSE, regional: {} }));
    assert.equal(updated.body.pinType, 'ALPHANUMERIC');
    assert.equal(updated.body.pinLength, 6);
    // Back to what the later sends expect: a 4-digit numeric PIN.
    expectOk(await client.put(`/2fa/2/applications/${appId}/messages/${dltMessageId}`, { pinType: 'NUMERIC', pinLength: 4 }), 'restore template');
  });

  it('§4.3 email message request (with an email template created first for id 1234): the example response\'s keys', async () => {
    const template = expectOk(await client.post('/api/v1/email-templates', {
      name: 'reference', subject: 'Your PIN', text: 'Hello {{firstName}}, your code is {{pin}}',
    }), 'create email template');
    emailTemplateId = template.body.id;

    const created = await raw('POST', `/2fa/2/applications/${appId}/email/messages`, substitute(EMAIL_MESSAGE_REQUEST, { 1234: emailTemplateId }));
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(keysOf(created.body), keysOf(EMAIL_MESSAGE_RESPONSE));
    assert.deepEqual(created.body, {
      messageId: created.body.messageId, applicationId: appId, pinLength: 4, pinType: 'NUMERIC', from: 'company@example.com',
      emailTemplateId, landingPageId: '1_23456',
    });
    emailMessageId = created.body.messageId;

    const updated = await raw('PUT', `/2fa/2/applications/${appId}/email/messages/${emailMessageId}`, substitute(EMAIL_MESSAGE_UPDATE_REQUEST, { 1234: emailTemplateId }));
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.body, { ...created.body, pinType: 'ALPHANUMERIC', pinLength: 6 });
    expectOk(await client.put(`/2fa/2/applications/${appId}/email/messages/${emailMessageId}`, { pinType: 'NUMERIC', pinLength: 4 }), 'restore email message');

    // In the template list, the email item has exactly the keys of the §4.2 list example's email item.
    const list = expectOk(await client.get(`/2fa/2/applications/${appId}/messages`), 'list templates');
    const item = list.body.find((m: { messageId: string }) => m.messageId === emailMessageId);
    assert.deepEqual(keysOf(item), keysOf(EMAIL_MESSAGE_RESPONSE));
  });

  it('§5.1 send with placeholders and trackDelivery: exactly the example response\'s keys', async () => {
    const sent = await raw('POST', '/2fa/2/pin', substitute(SEND_SMS_REQUEST, { 1234567: appId, 7654321: placeholderMessageId }));
    assert.equal(sent.status, 200, sent.text);
    assert.deepEqual(keysOf(sent.body), keysOf(SEND_SMS_TRACKED_RESPONSE));
    assert.match(sent.body.pinId, PIN_ID);
    assert.equal(sent.body.to, '41793026727');
    assert.equal(sent.body.smsStatus, 'MESSAGE_SENT');
    assert.equal(typeof sent.body.externalMessageId, 'string');
    smsPinId = sent.body.pinId;

    const { messages } = await waitForInboxMessage(client, '41793026727', smsPinId);
    assert.equal(messages[0] && (messages[0] as { from?: string }).from, 'Sender 1', 'from overrides the template senderId');
    assert.match(messages[0]?.text ?? '', /^Hello John your pin is \d{4}$/);
  });

  it('§5.2 resend (Infobip\'s example body) by SMS: the example response\'s keys, same pinId', async () => {
    const resent = await raw('POST', `/2fa/2/pin/${smsPinId}/resend`, RESEND_REQUEST);
    assert.equal(resent.status, 200, resent.text);
    // No ncNeeded on a resend, so no ncStatus: the keys of the untracked example minus that one.
    assert.deepEqual(keysOf(resent.body), keysOf(SEND_SMS_RESPONSE).filter((k) => k !== 'ncStatus'));
    assert.equal(resent.body.pinId, smsPinId);
  });

  it('§6.1 verify: the example PIN "1598" is (almost surely) wrong, the delivered one is right with exactly the example\'s keys', async () => {
    const { messages } = await waitForInboxMessage(client, '41793026727', smsPinId, { count: 2 });
    const pin = pinIn(messages[0]?.text);
    assert.equal(pinIn(messages[1]?.text), pin, 'the resend carried the same PIN');
    if (pin !== '1598') {
      const wrong = await raw('POST', `/2fa/2/pin/${smsPinId}/verify`, VERIFY_REQUEST);
      assert.equal(wrong.status, 200, wrong.text);
      assert.deepEqual(keysOf(wrong.body), keysOf({ ...VERIFY_RESPONSE, pinError: '' }));
      assert.deepEqual(wrong.body, { pinId: smsPinId, msisdn: '41793026727', verified: false, attemptsRemaining: 4, pinError: 'WRONG_PIN' });
    }
    const right = await raw('POST', `/2fa/2/pin/${smsPinId}/verify`, substitute(VERIFY_REQUEST, { 1598: pin }));
    assert.equal(right.status, 200, right.text);
    assert.deepEqual(keysOf(right.body), keysOf(VERIFY_RESPONSE));
    assert.equal(right.body.verified, true);
    assert.equal(right.body.msisdn, '41793026727');
  });

  it('§6.2 verification status: the example row\'s keys for a verified PIN', async () => {
    const status = expectOk(await client.get(`/2fa/2/applications/${appId}/verifications?msisdn=41793026727`), 'verification status');
    assert.deepEqual(keysOf(status.body), ['verifications']);
    assert.equal(status.body.verifications.length, 1);
    assert.deepEqual(keysOf(status.body.verifications[0]), keysOf(VERIFICATION_ROW));
  });

  it('§5.2 resend by voice with Infobip\'s example body: callStatus PENDING_ACCEPTED, the voice example\'s keys', async () => {
    const to = '41793026728';
    const sent = expectOk(await client.post('/2fa/2/pin/voice', { applicationId: appId, messageId: placeholderMessageId, to, placeholders: { firstName: 'John' } }), 'send voice');
    assert.deepEqual(keysOf(sent.body), keysOf(SEND_VOICE_RESPONSE));
    assert.equal(sent.body.callStatus, 'PENDING_ACCEPTED');
    const resent = await raw('POST', `/2fa/2/pin/${sent.body.pinId}/resend/voice`, RESEND_REQUEST);
    assert.equal(resent.status, 200, resent.text);
    assert.deepEqual(resent.body, { pinId: sent.body.pinId, to, callStatus: 'PENDING_ACCEPTED' });
  });

  it('§5.2 resend bodies the SDKs send ({} from Node, {"trackDelivery": false} from Go) on a template without custom placeholders', async () => {
    for (const [to, body, path] of [['41793026729', RESEND_REQUEST_NODE_SDK, 'resend'], ['41793026730', RESEND_REQUEST_GO_SDK, 'resend/voice']] as const) {
      const sent = expectOk(await client.post('/2fa/2/pin', { applicationId: appId, messageId: dltMessageId, to }), 'send');
      const resent = await raw('POST', `/2fa/2/pin/${sent.body.pinId}/${path}`, body);
      assert.equal(resent.status, 200, `${path} ${body}: ${resent.text}`);
      assert.equal(resent.body.pinId, sent.body.pinId);
      assert.deepEqual(keysOf(resent.body), path === 'resend' ? ['pinId', 'smsStatus', 'to'] : keysOf(SEND_VOICE_RESPONSE));
    }
  });

  it('§5.3 email send with landingPagePlaceholders: the example response, emailStatus exactly as documented', async () => {
    const sent = await raw('POST', '/2fa/2/pin/email', substitute(SEND_EMAIL_REQUEST, { 1234567: appId, 7654321: emailMessageId }));
    assert.equal(sent.status, 200, sent.text);
    assert.deepEqual(keysOf(sent.body), keysOf(SEND_EMAIL_RESPONSE));
    assert.match(sent.body.pinId, PIN_ID);
    assert.deepEqual({ ...sent.body, pinId: SEND_EMAIL_RESPONSE.pinId }, SEND_EMAIL_RESPONSE);

    const resent = await raw('POST', `/2fa/2/pin/${sent.body.pinId}/resend/email`, RESEND_EMAIL_REQUEST);
    assert.equal(resent.status, 200, resent.text);
    assert.deepEqual({ ...resent.body, pinId: SEND_EMAIL_RESPONSE.pinId }, SEND_EMAIL_RESPONSE);
    assert.equal(resent.body.pinId, sent.body.pinId);

    const { messages } = await waitForInboxMessage(client, 'john.smith@example.com', sent.body.pinId, { count: 2 });
    assert.match(messages[0]?.text ?? '', /^Hello John, your code is \d{4}$/);
    const verified = await raw('POST', `/2fa/2/pin/${sent.body.pinId}/verify`, substitute(VERIFY_REQUEST, { 1598: pinIn(messages[0]?.text) }));
    assert.deepEqual(verified.body, { pinId: sent.body.pinId, msisdn: 'john.smith@example.com', verified: true, attemptsRemaining: 4 });
  });
});
