// What the providers share: the registry the DSN parser and the callback route use, the callback
// helpers, and the redaction of what providers say back.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import {
  constantTimeEqual,
  hasProviderCallback,
  headerValue,
  withCallbackToken,
} from '../../../src/delivery/providers/provider-callback.js';
import { createProviderTransport, isProviderScheme, PROVIDER_SCHEMES } from '../../../src/delivery/providers/providers.js';
import { redactProviderText } from '../../../src/delivery/providers/redact-provider-text.js';

const logLines: string[] = [];
const logger = pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) });

describe('provider registry', () => {
  it('creates each provider transport from its DSN, each with its bound callback', () => {
    const dsns: Record<string, string> = {
      twilio: 'twilio://AC0123456789abcdef0123456789abcdef:token@default?from=+15005550006',
      vonage: 'vonage://key:secret@default?from=Acme',
      infobip: 'infobip://KEY@xyz.api.infobip.com?from=Acme&callback_token=t',
      whatsapp: 'whatsapp://TOKEN@106540352242922?template=verify_code&app_secret=s',
      telegram: 'telegram://TOKEN@default?sender_username=AcmeCodes',
    };
    for (const scheme of PROVIDER_SCHEMES) {
      assert.ok(isProviderScheme(scheme));
      const transport = createProviderTransport(scheme, 'TWOFA_SMS_DSN', new URL(dsns[scheme] as string), { logger });
      assert.equal(transport.name, scheme);
      assert.ok(hasProviderCallback(transport));
      assert.equal(transport.callback.provider, scheme);
    }
    assert.equal(isProviderScheme('smtp'), false);
    assert.equal(hasProviderCallback({ name: 'log', send: async () => ({ ok: true }) }), false);
  });

  it('declares how each provider calls back', () => {
    const callbackOf = (dsn: string) => {
      const transport = createProviderTransport(new URL(dsn).protocol.slice(0, -1) as (typeof PROVIDER_SCHEMES)[number], 'TWOFA_SMS_DSN', new URL(dsn), { logger });
      assert.ok(hasProviderCallback(transport));
      return transport.callback;
    };
    const twilio = callbackOf('twilio://AC0123456789abcdef0123456789abcdef:token@default?from=+15005550006');
    assert.deepEqual(twilio.methods, ['POST']);
    assert.deepEqual(twilio.contentTypes, ['form']);
    assert.deepEqual(callbackOf('vonage://key:secret@default?from=Acme').methods, ['GET', 'POST']);
    assert.deepEqual(callbackOf('infobip://KEY@xyz.api.infobip.com?from=Acme&callback_token=t').contentTypes, ['json']);
  });

  it('warns when a callback or base URL is plain http to another machine', () => {
    logLines.length = 0;
    createProviderTransport('twilio', 'TWOFA_SMS_DSN', new URL('twilio://AC0123456789abcdef0123456789abcdef:token@default?status_callback=http://twofa.example.com/cb'), { logger });
    assert.equal(logLines.length, 1);
    assert.match(logLines[0] as string, /plain http/);
    assert.ok(!(logLines[0] as string).includes('token'));
  });
});

describe('callback helpers', () => {
  it('compares secrets in constant time, whatever their lengths', () => {
    assert.equal(constantTimeEqual('abc', 'abc'), true);
    assert.equal(constantTimeEqual('abc', 'abd'), false);
    assert.equal(constantTimeEqual('abc', 'abcd'), false);
    assert.equal(constantTimeEqual('', 'a'), false);
  });

  it('adds the token to a callback URL unless one is there', () => {
    assert.equal(withCallbackToken(new URL('https://a.example/cb'), 't1'), 'https://a.example/cb?token=t1');
    assert.equal(withCallbackToken(new URL('https://a.example/cb?x=1'), 't1'), 'https://a.example/cb?x=1&token=t1');
    assert.equal(withCallbackToken(new URL('https://a.example/cb?token=mine'), 't1'), 'https://a.example/cb?token=mine');
    assert.equal(withCallbackToken(new URL('https://a.example/cb'), undefined), 'https://a.example/cb');
  });

  it('reads headers case-insensitively', () => {
    assert.equal(headerValue({ url: '', headers: { 'X-Twilio-Signature': 's' }, query: {}, body: undefined }, 'x-twilio-signature'), 's');
  });
});

describe('redactProviderText', () => {
  const message = { to: '41793026727', text: 'Your Acme code is KQ7ZT2, valid 10 minutes', subject: undefined };

  it('hides the PIN whatever its alphabet, the number and other words of the message', () => {
    const out = redactProviderText("Invalid 'To' +41 79 302 67 27 for body 'Your Acme code is KQ7ZT2'", message);
    assert.ok(!out.includes('KQ7ZT2') && !out.includes('302 67') && !out.includes('Acme'), out);
    assert.match(out, /^Invalid 'To' \*\*\* for body/);
  });

  it('masks email addresses and digit runs, flattens lines and caps the length', () => {
    assert.equal(redactProviderText('<john.smith@example.com>: no such user', { to: 'x', text: undefined, subject: undefined }), '<j*********@example.com>: no such user');
    assert.equal(redactProviderText('code 123456\r\nnext', { to: 'x', text: undefined, subject: undefined }), 'code *** next');
    assert.equal(redactProviderText('x'.repeat(500), { to: 'y', text: undefined, subject: undefined }).length, 200);
  });

  it('keeps short codes a reader needs', () => {
    assert.equal(redactProviderText('error 429 on 5.7.1', { to: 'x', text: 'abc', subject: undefined }), 'error 429 on 5.7.1');
  });
});
