import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { createTransport, describeDsn, DsnError } from '../../src/delivery/dsn.js';
import { Inbox } from '../../src/delivery/log/inbox.js';
import { LogTransport } from '../../src/delivery/log/log-transport.js';
import { WebhookTransport } from '../../src/delivery/webhook/webhook-transport.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;

function captureLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

function deps() {
  return { inbox: new Inbox(), logger: captureLogger().logger };
}

async function dsnError(dsn: string, variable = 'TWOFA_SMS_DSN'): Promise<string> {
  try {
    await createTransport(variable, dsn, deps());
  } catch (err) {
    assert.ok(err instanceof DsnError, `expected DsnError, got ${String(err)}`);
    assert.equal(err.name, 'DsnError');
    return err.message;
  }
  assert.fail(`expected ${dsn} to be refused`);
}

describe('createTransport', () => {
  it('none:// switches the channel off', async () => {
    assert.equal(await createTransport('TWOFA_VOICE_DSN', 'none://', deps()), null);
  });

  it('log:// delivers into the given inbox', async () => {
    const d = deps();
    const transport = await createTransport('TWOFA_SMS_DSN', 'log://', d);
    assert.ok(transport instanceof LogTransport);
    assert.equal(transport.name, 'log');
    await transport.send({ channel: 'sms', to: '41793026727', text: 'hi', pinId: 'P', applicationId: 'A', messageId: 'M', accountId: 'acct' });
    assert.equal(d.inbox.list('acct').length, 1);
  });

  it('accepts the scheme in any case and surrounding whitespace', async () => {
    assert.ok((await createTransport('TWOFA_SMS_DSN', ' LOG:// ', deps())) instanceof LogTransport);
  });

  it('webhook+https:// and webhook+http:// build a webhook transport', async () => {
    assert.ok((await createTransport('TWOFA_SMS_DSN', `webhook+https://hooks.example.com/sms?secret=${secret}`, deps())) instanceof WebhookTransport);
    assert.ok((await createTransport('TWOFA_SMS_DSN', `webhook+http://127.0.0.1:8099/sms?secret=${encodeURIComponent(secret)}`, deps())) instanceof WebhookTransport);
  });

  it('keeps a raw + of the base64 secret (URLSearchParams would turn it into a space)', async () => {
    const withPlus = `whsec_${'+'.repeat(24)}`;
    assert.ok((await createTransport('TWOFA_SMS_DSN', `webhook+https://h.example.com/?secret=${withPlus}`, deps())) instanceof WebhookTransport);
  });

  it('warns about plain http to a non-loopback host, but not for loopback', async () => {
    const remote = captureLogger();
    await createTransport('TWOFA_SMS_DSN', `webhook+http://hooks.example.com/sms?secret=${secret}`, { inbox: new Inbox(), logger: remote.logger });
    assert.equal(remote.lines.length, 1);
    assert.match(String(remote.lines[0]?.msg), /plain http/);
    assert.ok(!JSON.stringify(remote.lines).includes(secret.slice(6)), 'the secret is not logged');

    const local = captureLogger();
    await createTransport('TWOFA_SMS_DSN', `webhook+http://localhost:9000/sms?secret=${secret}`, { inbox: new Inbox(), logger: local.logger });
    assert.equal(local.lines.length, 0);
  });

  it('refuses an unknown scheme, naming the variable and the supported forms', async () => {
    const message = await dsnError('pigeon://user:hunter2@loft.example.com:587', 'TWOFA_EMAIL_DSN');
    assert.match(message, /^TWOFA_EMAIL_DSN: unsupported scheme pigeon:\/\//);
    assert.match(message, /log:\/\//);
    assert.match(message, /webhook\+http\(s\):\/\//);
    assert.match(message, /smtp\(s\):\/\//);
    assert.ok(!message.includes('hunter2'), 'the password is never echoed');
  });

  it('refuses text that is not a DSN at all', async () => {
    assert.match(await dsnError('hooks.example.com/sms'), /^TWOFA_SMS_DSN: "hooks\.example\.com\/sms" is not a DSN; expected one of log:\/\//);
    assert.match(await dsnError(''), /^TWOFA_SMS_DSN: .*is not a DSN/);
  });

  it('refuses a malformed webhook URL without echoing its secret', async () => {
    const message = await dsnError(`webhook+https://bad host/sms?secret=${secret}`);
    assert.match(message, /^TWOFA_SMS_DSN: ".*" is not a valid URL; expected e\.g\. webhook\+https:\/\/hooks\.example\.com\/sms\?secret=whsec_/);
    assert.ok(!message.includes(secret.slice(6)));
  });

  it('refuses a webhook without a host', async () => {
    assert.match(await dsnError(`webhook+https:///sms?secret=${secret}`), /^TWOFA_SMS_DSN: the webhook DSN needs a host/);
  });

  it('refuses credentials in a webhook DSN', async () => {
    const message = await dsnError(`webhook+https://user:pw@hooks.example.com/sms?secret=${secret}`);
    assert.match(message, /must not carry user:password@/);
    assert.ok(!message.includes('pw@'));
  });

  it('refuses a webhook without a secret', async () => {
    assert.equal(
      (await dsnError('webhook+https://hooks.example.com/sms')).split(' (generate')[0],
      'TWOFA_SMS_DSN: webhook DSN needs a secret query parameter in the whsec_<base64> form, e.g. ?secret=whsec_...',
    );
    assert.match(await dsnError('webhook+https://hooks.example.com/sms?secret='), /needs a secret query parameter/);
  });

  it('refuses a secret that is not whsec_<base64> of at least 16 bytes', async () => {
    assert.match(await dsnError(`webhook+https://h.example.com/?secret=${randomBytes(32).toString('base64')}`), /^TWOFA_SMS_DSN: webhook DSN secret is not usable: the secret must start with whsec_/);
    assert.match(await dsnError('webhook+https://h.example.com/?secret=whsec_***not-base64***'), /must be standard base64/);
    const short = await dsnError(`webhook+https://h.example.com/?secret=whsec_${randomBytes(12).toString('base64')}`);
    assert.match(short, /at least 16 bytes \(it has 12\)/);
    assert.match(short, /openssl rand -base64 32/);
  });
});

describe('max_in_flight and max_tps', () => {
  it('set the window and rate of any transport, and do not reach its own parser or the endpoint', async () => {
    const webhook = await createTransport('TWOFA_SMS_DSN', `webhook+https://hooks.example.com/sms?max_in_flight=7&region=eu&secret=${encodeURIComponent(secret)}&max_tps=2.5`, deps());
    assert.equal(webhook?.pacer?.maxInFlight, 7);
    assert.equal(webhook?.pacer?.maxTps, 2.5);
    assert.equal(String((webhook as unknown as { options: { url: URL } }).options.url), 'https://hooks.example.com/sms?region=eu');
    const vonage = await createTransport('TWOFA_SMS_DSN', 'vonage://KEY:SECRET@default?from=Acme&max_in_flight=5', deps());
    assert.deepEqual([vonage?.pacer?.maxInFlight, vonage?.pacer?.maxTps], [5, 30], 'the kind\'s default rate stays when only the window is set');
    const shared = await createTransport('TWOFA_SMS_DSN', 'log://?max_tps_global=90', deps());
    shared?.pacer?.shareGlobalRate(3);
    assert.deepEqual([shared?.pacer?.globalTps, shared?.pacer?.maxTps], [90, 30], 'a third of the global rate among three nodes');
  });

  it('default to what each kind of provider accepts', async () => {
    const limits = async (dsn: string) => {
      const transport = await createTransport('TWOFA_SMS_DSN', dsn, deps());
      await transport?.close?.();
      return [transport?.pacer?.maxInFlight, transport?.pacer?.maxTps];
    };
    assert.deepEqual(await limits('log://'), [100, undefined]);
    assert.deepEqual(await limits(`webhook+https://hooks.example.com/sms?secret=${encodeURIComponent(secret)}`), [200, undefined]);
    assert.deepEqual(await limits('vonage://KEY:SECRET@default?from=Acme'), [30, 30]);
    assert.deepEqual(await limits('whatsapp://TOKEN@123456789?template=code&app_secret=APP_SECRET'), [80, 80]);
    assert.deepEqual(await limits('smpp://user:pass@127.0.0.1:2775?window=25'), [25, undefined]);
  });

  it('refuse values that are not a positive window or rate, naming the variable', async () => {
    for (const bad of ['max_in_flight=0', 'max_in_flight=1.5', 'max_in_flight=abc', 'max_in_flight=20000', 'max_tps=0', 'max_tps=-1', 'max_tps=fast', 'max_tps_global=0']) {
      assert.match(await dsnError(`log://?${bad}`, 'TWOFA_EMAIL_DSN'), /^TWOFA_EMAIL_DSN: max_(in_flight|tps|tps_global) must be/, bad);
    }
  });
});

describe('describeDsn', () => {
  it('masks webhook secrets and keeps the rest readable', () => {
    assert.equal(describeDsn(`webhook+https://hooks.example.com/sms?secret=${secret}&tenant=a`), 'webhook+https://hooks.example.com/sms?secret=***&tenant=a');
    assert.equal(describeDsn(`webhook+https://h.example.com/?tenant=a&secret=${secret}`), 'webhook+https://h.example.com/?tenant=a&secret=***');
  });

  it('masks passwords, and a lone user part that is in fact a key', () => {
    assert.equal(describeDsn('smtp://mailer:s3cr3t@mail.example.com:587'), 'smtp://mailer:***@mail.example.com:587');
    assert.equal(describeDsn('twilio://ACxxxx:authtoken@default'), 'twilio://ACxxxx:***@default');
    assert.equal(describeDsn('infobip://APIKEY123@api.infobip.com'), 'infobip://***@api.infobip.com');
    assert.equal(describeDsn('smtp://u:p@ss/w@rd@mail.example.com'), 'smtp://u:***@mail.example.com');
  });

  it('masks every DSN inside a failover list and leaves plain ones alone', () => {
    assert.equal(
      describeDsn('failover(smtp://a:pw1@one.example.com smtp://b:pw2@two.example.com)'),
      'failover(smtp://a:***@one.example.com smtp://b:***@two.example.com)',
    );
    assert.equal(describeDsn('log://'), 'log://');
    assert.equal(describeDsn('none://'), 'none://');
  });

  it('masks key- and token-like query parameters', () => {
    assert.equal(describeDsn('http://x.example.com/?token=abc&api_key=def&apikey=ghi&user=jo'), 'http://x.example.com/?token=***&api_key=***&apikey=***&user=jo');
  });
});
