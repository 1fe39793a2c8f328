// No credential of a DSN is ever shown: every provider's DSN, carrying secrets in its user part and in
// parameters named *secret*, *token*, *password* or *key*, goes through `twofa doctor` and through
// the parse errors of broken variants, and neither output holds any of the secret values. Every broken
// variant is refused (log:// and none:// take nothing after them); the one variant that is valid, a
// webhook's extra parameter (passed on to its endpoint), is shown masked.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { runDoctor } from '../../src/cli/doctor-command.js';
import { createTransport, describeDsn, DsnError } from '../../src/delivery/dsn.js';
import { Inbox } from '../../src/delivery/log/inbox.js';
import { freePort, TEST_SECRET } from '../support/server-process.js';

// Distinct random values, so that finding one in an output can only mean it leaked.
const secrets: string[] = [];
function secretValue(label: string): string {
  const value = `${label}${randomBytes(9).toString('hex')}`;
  secrets.push(value);
  return value;
}

function assertNoSecret(output: string, where: string): void {
  for (const value of secrets) assert.ok(!output.includes(value), `${where} shows the secret ${value.slice(0, 6)}...: ${output}`);
}

/** Applies `breakIt` to a plain DSN, or to the first member of a failover(...) or roundrobin(...) route. */
function breakFirstMember(dsn: string, breakIt: (member: string) => string): string {
  const route = /^(failover|roundrobin)\((\S+)(.*)$/s.exec(dsn);
  return route ? `${route[1]}(${breakIt(route[2]!)}${route[3]}` : breakIt(dsn);
}

describe('DSN credentials are masked in twofa doctor and in DSN errors', () => {
  let dir: string;
  let closed: number;
  const dsns: Array<{ name: string; variable: 'TWOFA_SMS_DSN' | 'TWOFA_VOICE_DSN' | 'TWOFA_EMAIL_DSN'; dsn: string }> = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-dsn-masking-'));
    // Every peer is a closed port on loopback: doctor's reachability checks never leave the machine.
    closed = await freePort();
    const at = `127.0.0.1:${closed}`;
    const keyFile = path.join(dir, 'vonage.key');
    fs.writeFileSync(keyFile, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
    secrets.push(webhookSecret, webhookSecret.slice('whsec_'.length));
    const twilio = `twilio://AC${'0'.repeat(32)}:${secretValue('twtoken')}@default?from=%2B15005550006&base_url=http://${at}`;
    const vonage = `vonage://vonagekey:${secretValue('vnsecret')}@default?from=Acme&signature_secret=${secretValue('sigsec')}`
      + `&callback_token=${secretValue('cbtok')}&callback_url=http://127.0.0.1:${closed}/cb&base_url=http://${at}`;
    const infobip = `infobip://${secretValue('ibkey')}@${at}?scheme=http&notify_url=http://${at}/dlr&callback_token=${secretValue('ibtok')}`;
    const smpp = `smpp://system:${secretValue('smpppw')}@${at}`;
    const webhook = `webhook+http://${at}/sms?secret=${webhookSecret}&api_key=${secretValue('apikey')}&tenant=acme`;
    const sip = `sip://caller:${secretValue('sippw')}@${at}`;
    const vonageVoice = `vonage://vonagekey:${secretValue('vnvoice')}@default?application_id=aaaaaaaa-bbbb-cccc-dddd-0123456789ab`
      + `&private_key_file=${encodeURIComponent(keyFile)}&callback_token=${secretValue('vvtok')}&callback_url=http://${at}/cb&base_url=http://${at}`;
    dsns.push(
      { name: 'webhook', variable: 'TWOFA_SMS_DSN', dsn: webhook },
      { name: 'smtp', variable: 'TWOFA_EMAIL_DSN', dsn: `smtp://mailer:${secretValue('smtppw')}@${at}?from=noreply%40example.com` },
      { name: 'smpp', variable: 'TWOFA_SMS_DSN', dsn: smpp },
      { name: 'twilio', variable: 'TWOFA_SMS_DSN', dsn: twilio },
      { name: 'vonage', variable: 'TWOFA_SMS_DSN', dsn: vonage },
      { name: 'infobip', variable: 'TWOFA_SMS_DSN', dsn: infobip },
      { name: 'sip', variable: 'TWOFA_VOICE_DSN', dsn: sip },
      { name: 'failover', variable: 'TWOFA_SMS_DSN', dsn: `failover(${smpp} ${twilio} ${vonage} ${infobip} ${webhook})` },
      { name: 'roundrobin', variable: 'TWOFA_VOICE_DSN', dsn: `roundrobin(${sip} ${vonageVoice})` },
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('twofa doctor shows every provider\'s DSN with its credentials as ***', async () => {
    for (const { name, variable, dsn } of dsns) {
      const env = { TWOFA_DATA_DIR: dir, TWOFA_SECRET: TEST_SECRET, TWOFA_HOST: '127.0.0.1', TWOFA_PORT: String(closed), [variable]: dsn };
      const checks = await runDoctor(env, undefined);
      const channel = checks.find((check) => check.name === `${variable.slice('TWOFA_'.length, -'_DSN'.length).toLowerCase()} channel`);
      assert.ok(channel, `${name}: no channel check in ${JSON.stringify(checks)}`);
      assert.notEqual(channel.status, 'fail', `${name}: the DSN parses: ${channel.message}`);
      assert.match(channel.message, /\*\*\*/, `${name}: the DSN is shown, masked`);
      assertNoSecret(JSON.stringify(checks), `doctor for ${name}`);
    }
  });

  it('DSN errors of broken variants never repeat a credential', async () => {
    const logger = pino({ level: 'silent' });
    const refusedMessage = async (variable: string, variant: string, label: string): Promise<string> => {
      let message: string | undefined;
      await assert.rejects(async () => {
        const transport = await createTransport(variable, variant, { inbox: new Inbox(), logger });
        await transport?.close?.();
      }, (err) => {
        assert.ok(err instanceof DsnError, `${label}: ${String(err)}`);
        message = err.message;
        return true;
      }, `${label} is refused: ${variant}`);
      return message!;
    };
    for (const { name, variable, dsn } of dsns) {
      const broken: Array<[string, string]> = [
        ['no scheme separator', breakFirstMember(dsn, (d) => d.replace('://', '//'))],
        ['a port out of range', breakFirstMember(dsn, (d) => d.replace(`:${closed}`, ':99999'))],
        ['an unclosed IPv6 host', breakFirstMember(dsn, (d) => d.replace('127.0.0.1', '[::1'))],
      ];
      // A webhook passes parameters other than its secret on to the endpoint, so an unknown one is
      // valid there (the accepted-variant test below); every other transport refuses it.
      if (name !== 'webhook') broken.push(['an unknown parameter', breakFirstMember(dsn, (d) => `${d}${d.includes('?') ? '&' : '?'}bogus_password=${secretValue('bogus')}`)]);
      for (const [what, variant] of broken) {
        assert.notEqual(variant, dsn, `${name}: the "${what}" variant breaks something`);
        assertNoSecret(await refusedMessage(variable, variant, `${name} with ${what}`), `the error for ${name} with ${what}`);
      }
    }
    // log:// and none:// take nothing after them, so credential-shaped parameters are refused too.
    for (const scheme of ['log', 'none']) {
      const variant = `${scheme}://?token=${secretValue('logtok')}&password=${secretValue('logpw')}`;
      assertNoSecret(await refusedMessage('TWOFA_SMS_DSN', variant, `${scheme}:// with parameters`), `the error for ${scheme}:// with parameters`);
    }
  });

  it('a webhook DSN with an extra credential-named parameter is valid, and shown masked', async () => {
    const webhook = dsns.find((d) => d.name === 'webhook')!;
    const extra = secretValue('bogus');
    const variant = `${webhook.dsn}&bogus_password=${extra}`;
    const transport = await createTransport(webhook.variable, variant, { inbox: new Inbox(), logger: pino({ level: 'silent' }) });
    assert.ok(transport, 'the webhook DSN builds its transport');
    await transport.close?.();
    const shown = describeDsn(variant);
    assert.match(shown, /bogus_password=\*\*\*/);
    assertNoSecret(shown, 'the shown webhook DSN');
    const checks = await runDoctor({ TWOFA_DATA_DIR: dir, TWOFA_SECRET: TEST_SECRET, TWOFA_HOST: '127.0.0.1', TWOFA_PORT: String(closed), [webhook.variable]: variant }, undefined);
    assertNoSecret(JSON.stringify(checks), 'doctor for the webhook with an extra parameter');
  });

  it('masks any parameter named like a credential, and userinfo passwords, in one function', () => {
    assert.equal(
      describeDsn('vonage://k:s@default?signature_secret=a&callback_token=b&signature_method=md5hash&private_key_file=/k&from=Acme'),
      'vonage://k:***@default?signature_secret=***&callback_token=***&signature_method=md5hash&private_key_file=***&from=Acme',
    );
    assert.equal(describeDsn('x://h/?Api-Key=a&client_secret=b&db_password=c&%74oken=d&pass=e&user=f'), 'x://h/?Api-Key=***&client_secret=***&db_password=***&%74oken=***&pass=***&user=f');
    assert.equal(describeDsn('postgres://twofa:pw@db:5432/twofa?sslmode=require&password=pw2'), 'postgres://twofa:***@db:5432/twofa?sslmode=require&password=***');
    assert.equal(describeDsn('failover(twilio://A:t@default?base_url=http://u:pw@127.0.0.1:1 log://)'), 'failover(twilio://A:***@default?base_url=http://u:***@127.0.0.1:1 log://)');
  });
});
