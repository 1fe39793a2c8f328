// `twofa doctor` as an operator runs it: a healthy setup passes (exit 0); a webhook receiver that
// does not listen, an unusable DSN or a bad variable fail (exit 1) and are named, with no secret in
// the report. A configuration error is a failed check (exit 1), not bad usage: the report is the
// command's result, and it still lists what could not be checked.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createJsonClient } from '../support/json-client.js';
import { freePort, runCli, startServerProcess, TEST_SECRET, type CliResult, type ServerProcess } from '../support/server-process.js';

interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail' | 'skip';
  message: string;
  fix?: string;
  variable?: string;
}

// Doctor loads the store and every transport: on a loaded machine that takes a while, so it gets
// more than runCli's default 30 s.
const DOCTOR_TIMEOUT_MS = 90_000;

function doctor(args: string[], env: Record<string, string>): Promise<CliResult> {
  return runCli(['doctor', ...args], env, DOCTOR_TIMEOUT_MS);
}

function report(result: CliResult): { ok: boolean; checks: Check[] } {
  return JSON.parse(result.stdout) as { ok: boolean; checks: Check[] };
}

function check(checks: Check[], name: string): Check {
  return checks.find((c) => c.name === name) ?? assert.fail(`no check named ${name}: ${JSON.stringify(checks)}`);
}

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-doctor-'));
  tempDirs.push(dir);
  return dir;
}

let server: ServerProcess;
let env: Record<string, string>;

before(async () => {
  server = await startServerProcess({ TWOFA_LOG_LEVEL: 'warn' });
  // What the operator's shell holds: the same variables the server runs with.
  env = { TWOFA_DATA_DIR: server.dataDir, TWOFA_SECRET: TEST_SECRET, TWOFA_HOST: '127.0.0.1', TWOFA_PORT: new URL(server.url).port };
});

after(async () => {
  if (server) {
    assert.equal(await server.stop(), 0);
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('twofa doctor', () => {
  it('passes on a healthy setup: exit 0, every check ok, in JSON and in human form', async () => {
    const [json, human] = await Promise.all([doctor(['--json'], env), doctor([], env)]);
    assert.equal(json.code, 0, json.stdout + json.stderr);
    const { ok, checks } = report(json);
    assert.equal(ok, true);
    assert.deepEqual(checks.map((c) => c.name), ['configuration', 'secret', 'data directory', 'database', 'api keys', 'sms channel', 'voice channel', 'email channel', 'server']);
    for (const c of checks) assert.equal(c.status, 'ok', `${c.name}: ${c.message}`);
    assert.match(check(checks, 'database').message, /schema is current/);
    assert.match(check(checks, 'api keys').message, /^1 active API key$/);
    assert.match(check(checks, 'server').message, new RegExp(`${server.url} is ready`));

    assert.equal(human.code, 0, human.stdout + human.stderr);
    assert.match(human.stdout, /^ok {4}configuration\s+the environment parses/m);
    assert.match(human.stdout, /\nall checks passed\n$/);
    assert.ok(!human.stdout.includes(TEST_SECRET) && !json.stdout.includes(TEST_SECRET), 'TWOFA_SECRET is never printed');
  });

  it('fails (exit 1) on a webhook receiver that does not listen and on a DSN it cannot use, naming the variables and printing no secret', async () => {
    const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
    const closed = await freePort();
    const serverPort = new URL(server.url).port;
    const doctorEnv = {
      ...env,
      TWOFA_SMS_DSN: `webhook+http://127.0.0.1:${closed}/sms?secret=${webhookSecret}`,
      // Something listens there (the server itself): reachable.
      TWOFA_VOICE_DSN: `webhook+http://127.0.0.1:${serverPort}/voice?secret=${webhookSecret}`,
      // The webhook DSN form forbids user:password@: the check fails, without showing the password.
      TWOFA_EMAIL_DSN: `webhook+https://mailer:hunter2-password@mail.example.com/email?secret=${webhookSecret}`,
      TWOFA_BOOTSTRAP_API_KEY: server.key,
    };
    const [json, human] = await Promise.all([doctor(['--json'], doctorEnv), doctor([], doctorEnv)]);
    assert.equal(json.code, 1, json.stdout + json.stderr);
    const { ok, checks } = report(json);
    assert.equal(ok, false);

    const sms = check(checks, 'sms webhook');
    assert.equal(sms.status, 'fail');
    assert.equal(sms.variable, 'TWOFA_SMS_DSN');
    assert.match(sms.message, new RegExp(`cannot connect to 127\\.0\\.0\\.1:${closed} \\(ECONNREFUSED\\)`));
    assert.match(sms.fix ?? '', /TWOFA_SMS_DSN/);
    assert.equal(check(checks, 'sms channel').status, 'ok', 'the DSN itself parses');
    assert.match(check(checks, 'sms channel').message, /secret=\*\*\*/);
    assert.equal(check(checks, 'voice webhook').status, 'ok');
    const email = check(checks, 'email channel');
    assert.equal(email.status, 'fail');
    assert.equal(email.variable, 'TWOFA_EMAIL_DSN');
    assert.match(email.message, /must not carry user:password@/);

    assert.equal(human.code, 1);
    assert.match(human.stdout, /^fail {2}sms webhook\s+cannot connect/m);
    assert.match(human.stdout, /fix: start the webhook receiver or open the network path to it, or correct the host and port in TWOFA_SMS_DSN/);
    assert.match(human.stdout, /\n2 checks failed, 0 warnings\n$/);
    for (const output of [json.stdout, json.stderr, human.stdout, human.stderr]) {
      for (const secret of [webhookSecret, webhookSecret.slice(6), 'hunter2-password', TEST_SECRET, server.key]) {
        assert.ok(!output.includes(secret), `the report never shows a secret: found ${secret.slice(0, 10)}...`);
      }
    }
  });

  it('checks every host the deployment connects to (SMTP, SMPP, Redis, PostgreSQL); a dead route member is a warning while another answers', async () => {
    const [smtpPort, smppPort, redisPort, postgresPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
    const passwords = ['smtp-pass-789', 'smpp-pass-123', 'redis-pass-000', 'pg-pass-111', webhookSecret];
    const result = await doctor(['--json'], {
      TWOFA_DATA_DIR: tempDir(),
      TWOFA_PORT: String(await freePort()),
      TWOFA_SMS_DSN: `failover(smpp://sysid:smpp-pass-123@127.0.0.1:${smppPort} webhook+http://127.0.0.1:${new URL(server.url).port}/sms?secret=${webhookSecret})`,
      TWOFA_EMAIL_DSN: `smtp://mailer:smtp-pass-789@127.0.0.1:${smtpPort}`,
      TWOFA_REDIS_URL: `redis://:redis-pass-000@127.0.0.1:${redisPort}`,
      TWOFA_DATABASE_URL: `postgres://twofa:pg-pass-111@127.0.0.1:${postgresPort}/twofa`,
    });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    const { checks } = report(result);
    const statuses = Object.fromEntries(checks.map((c) => [c.name, [c.status, c.variable]]));
    assert.deepEqual(statuses['database'], ['fail', 'TWOFA_DATABASE_URL']);
    assert.deepEqual(statuses['redis'], ['fail', 'TWOFA_REDIS_URL']);
    assert.deepEqual(statuses['email smtp'], ['fail', 'TWOFA_EMAIL_DSN']);
    assert.deepEqual(statuses['sms smpp'], ['warn', 'TWOFA_SMS_DSN'], 'the failover route still has the webhook');
    assert.deepEqual(statuses['sms webhook'], ['ok', undefined]);
    assert.match(check(checks, 'database').message, /^postgres:\/\/twofa:\*\*\*@127\.0\.0\.1/);
    for (const secret of passwords) assert.ok(!result.stdout.includes(secret) && !result.stderr.includes(secret), `no ${secret.slice(0, 8)}... in the report`);
  });

  it('checks named transports once each and channel DSNs that name them; a bad one is named by its variable', async () => {
    const smppPort = await freePort();
    const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
    const result = await doctor(['--json'], {
      TWOFA_DATA_DIR: tempDir(),
      TWOFA_PORT: String(await freePort()),
      TWOFA_TRANSPORT_SMSC: `smpp://sysid:smpp-pass-123@127.0.0.1:${smppPort}`,
      TWOFA_TRANSPORT_HOOK: `webhook+http://127.0.0.1:${new URL(server.url).port}/sms?secret=${webhookSecret}`,
      TWOFA_TRANSPORT_BROKEN: 'smpp://127.0.0.1:2775',
      TWOFA_SMS_DSN: 'failover(smsc hook)',
      TWOFA_VOICE_DSN: 'hook',
    });
    const { checks } = report(result);
    const statuses = Object.fromEntries(checks.map((c) => [c.name, [c.status, c.variable]]));
    assert.deepEqual(statuses['transport smsc'], ['ok', undefined]);
    assert.deepEqual(statuses['transport hook'], ['ok', undefined]);
    assert.deepEqual(statuses['transport broken'], ['fail', 'TWOFA_TRANSPORT_BROKEN']);
    assert.match(check(checks, 'transport broken').message, /TWOFA_TRANSPORT_BROKEN: the SMPP DSN needs the system_id/);
    assert.equal(statuses['sms channel']?.[0], 'ok', 'failover(smsc hook) names configured transports');
    assert.equal(statuses['voice channel']?.[0], 'ok');
    assert.deepEqual(statuses['sms smpp'], ['warn', 'TWOFA_TRANSPORT_SMSC'], 'its SMSC does not listen; the webhook answers');
    assert.ok(!result.stdout.includes('smpp-pass-123') && !result.stdout.includes(webhookSecret), 'no credential in the report');
  });

  it('checks TWOFA_WHATSAPP_DSN and TWOFA_TELEGRAM_DSN once set: the DSN parses, the Graph API host answers, and a bad DSN is named without its token', async () => {
    const closed = await freePort();
    const result = await doctor(['--json'], {
      ...env,
      TWOFA_WHATSAPP_DSN: `whatsapp://EAAG-doctor-token-123@106540352242922?template=verify_code&app_secret=doctor-app-secret&base_url=${encodeURIComponent(server.url)}`,
      TWOFA_TELEGRAM_DSN: `failover(telegram://tg-doctor-token-456@default?sender_username=AcmeCodes&base_url=http://127.0.0.1:${closed} log://)`,
    });
    const { checks } = report(result);
    assert.equal(check(checks, 'whatsapp channel').status, 'ok', JSON.stringify(checks));
    assert.match(check(checks, 'whatsapp channel').message, /whatsapp:\/\/\*\*\*@106540352242922\?template=verify_code&app_secret=\*\*\*/);
    assert.equal(check(checks, 'whatsapp whatsapp').status, 'ok', 'the Graph API base URL accepts connections');
    assert.deepEqual([check(checks, 'telegram telegram').status, check(checks, 'telegram telegram').variable], ['fail', 'TWOFA_TELEGRAM_DSN']);
    assert.equal(result.code, 1);

    const bad = await doctor(['--json'], { ...env, TWOFA_WHATSAPP_DSN: 'whatsapp://EAAG-doctor-token-123@106540352242922?template=verify_code' });
    const whatsapp = check(report(bad).checks, 'whatsapp channel');
    assert.deepEqual([whatsapp.status, whatsapp.variable], ['fail', 'TWOFA_WHATSAPP_DSN']);
    assert.match(whatsapp.message, /app_secret/);
    assert.equal(report(bad).checks.some((c) => c.name === 'telegram channel'), false, 'a channel left off (none://) is not reported');
    for (const output of [result.stdout, result.stderr, bad.stdout, bad.stderr]) {
      for (const secret of ['EAAG-doctor-token-123', 'doctor-app-secret', 'tg-doctor-token-456']) assert.ok(!output.includes(secret), `no ${secret} in the report`);
    }
  });

  it('reports TWOFA_PORT=abc as a failed configuration check (exit 1) and skips what depends on it', async () => {
    const badEnv = { ...env, TWOFA_PORT: 'abc', TWOFA_LOG_LEVEL: 'loud' };
    const [json, human] = await Promise.all([doctor(['--json'], badEnv), doctor([], badEnv)]);
    assert.equal(json.code, 1, json.stderr);
    const { checks } = report(json);
    const config = checks.filter((c) => c.name === 'configuration');
    assert.deepEqual(config.map((c) => [c.status, c.variable]), [['fail', 'TWOFA_PORT'], ['fail', 'TWOFA_LOG_LEVEL']], 'every bad variable is named');
    assert.ok(checks.filter((c) => c.name !== 'configuration').every((c) => c.status === 'skip'));
    assert.equal(human.code, 1);
    assert.match(human.stdout, /^fail {2}configuration\s+TWOFA_PORT: must be a whole number/m);
    assert.equal(human.stderr, '');
  });

  it('before the first start: no server, no database, no secret yet are warnings, not failures (exit 0)', async () => {
    const dataDir = path.join(tempDir(), 'not-yet');
    const result = await doctor(['--json'], { TWOFA_DATA_DIR: dataDir, TWOFA_PORT: String(await freePort()) });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const { checks } = report(result);
    assert.equal(check(checks, 'secret').status, 'warn');
    assert.match(check(checks, 'secret').fix ?? '', /TWOFA_SECRET/);
    assert.equal(check(checks, 'database').status, 'ok');
    assert.match(check(checks, 'database').message, /does not exist yet/);
    assert.equal(check(checks, 'api keys').status, 'warn');
    assert.equal(check(checks, 'server').status, 'warn');
    assert.match(check(checks, 'server').fix ?? '', /twofa serve/);
    assert.ok(!fs.existsSync(dataDir), 'doctor creates nothing');
  });

  it('warns about the generated secret file, and about its mode when others can read it', async () => {
    const dataDir = tempDir();
    const file = path.join(dataDir, 'secret');
    const secret = randomBytes(48).toString('base64');
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    const result = await doctor(['--json'], { TWOFA_DATA_DIR: dataDir, TWOFA_PORT: String(await freePort()) });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const { checks } = report(result);
    assert.equal(check(checks, 'secret').status, 'warn');
    assert.match(check(checks, 'secret').message, /using the generated secret file/);
    assert.match(check(checks, 'secret').fix ?? '', /set TWOFA_SECRET for production/);
    const mode = check(checks, 'secret file mode');
    assert.equal(mode.status, 'warn');
    assert.match(mode.message, /mode 0644/);
    assert.equal(mode.fix, `chmod 600 ${file}`);
    assert.ok(!result.stdout.includes(secret));
  });

  it('warns about applications without anti-fraud guards, unless TWOFA_SECURITY_PROFILE=strict runs them for all', async () => {
    const created = await createJsonClient(server.url, server.key).post('/2fa/2/applications', { name: 'doctor guards' });
    assert.equal(created.status, 200);
    const compatible = report(await doctor(['--json'], env));
    assert.equal(check(compatible.checks, 'anti-fraud guards').status, 'warn');
    const strict = report(await doctor(['--json'], { ...env, TWOFA_SECURITY_PROFILE: 'strict' }));
    const guards = check(strict.checks, 'anti-fraud guards');
    assert.equal(guards.status, 'ok', guards.message);
    assert.match(guards.message, /TWOFA_SECURITY_PROFILE=strict/);
  });
});
