import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CONFIG_OPTIONS, ConfigError, loadConfig } from '../../src/config.js';

function configFile(content: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-config-'));
  const file = path.join(dir, 'twofa.config.json');
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8080);
    assert.equal(config.smsDsn, 'log://');
    assert.equal(config.databaseUrl, `sqlite:${path.resolve('data', 'twofa.db')}`);
    assert.equal(config.pinRetentionMs, 30 * 86_400_000);
    assert.equal(config.secret, undefined);
    assert.deepEqual(config.previousSecrets, []);
  });

  it('names the variable of a bad value', () => {
    assert.throws(() => loadConfig({ TWOFA_PORT: 'abc' }), (err: unknown) => err instanceof ConfigError && /TWOFA_PORT/.test(err.message));
    assert.throws(() => loadConfig({ TWOFA_SECRET: 'short' }), /TWOFA_SECRET: must be at least 32 characters/);
    assert.throws(() => loadConfig({ TWOFA_LOG_LEVEL: 'loud' }), /TWOFA_LOG_LEVEL/);
    assert.throws(() => loadConfig({ TWOFA_PIN_RETENTION: '1 week' }), /TWOFA_PIN_RETENTION/);
    assert.throws(() => loadConfig({ TWOFA_DATABASE_URL: 'mysql://x' }), /TWOFA_DATABASE_URL/);
  });

  it('reads a config file, with environment variables taking precedence', () => {
    const file = configFile({ port: 9090, smsDsn: 'none://', TWOFA_LOG_LEVEL: 'warn', pinRetention: '7d' });
    const config = loadConfig({ TWOFA_CONFIG: file, TWOFA_SMS_DSN: 'log://' });
    assert.equal(config.port, 9090);
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.smsDsn, 'log://', 'the environment overrides the file');
    assert.equal(config.pinRetentionMs, 7 * 86_400_000);
  });

  it('reads named transports and routes from the environment and the file; refuses a routes table with any error', () => {
    const rule = { channel: 'sms', countries: ['IN'], transports: ['smsc'] };
    const fromEnv = loadConfig({ TWOFA_TRANSPORT_SMSC: 'smpp://a:b@smsc:2775', TWOFA_TRANSPORT_INFO_BIP: 'infobip://KEY@x.api.infobip.com', TWOFA_ROUTES: JSON.stringify([rule]) });
    assert.deepEqual(fromEnv.transports, { smsc: 'smpp://a:b@smsc:2775', info_bip: 'infobip://KEY@x.api.infobip.com' });
    assert.deepEqual(fromEnv.routes.map((r) => [r.index, r.channel, r.countries, r.transports, r.strategy]), [[0, 'sms', ['IN'], ['smsc'], 'ordered']]);
    const file = configFile({ transports: { smsc: 'log://' }, routes: [rule] });
    const fromFile = loadConfig({ TWOFA_CONFIG: file, TWOFA_TRANSPORT_BACKUP: 'log://' });
    assert.deepEqual(fromFile.transports, { smsc: 'log://', backup: 'log://' });
    assert.equal(fromFile.routes.length, 1);
    assert.deepEqual(fromFile.routesSource, { TWOFA_CONFIG: file });
    assert.throws(() => loadConfig({ TWOFA_ROUTES: JSON.stringify([rule]) }), /TWOFA_ROUTES: refused whole, nothing changed: routes\[0\]\.transports\[0\]: unknown transport "smsc" \(no named transports are configured/);
    assert.throws(() => loadConfig({ TWOFA_CONFIG: configFile({ transports: { smsc: 'log://' }, routes: [rule, { channel: 'fax' }] }) }), /routes in .*twofa\.config\.json: refused whole.*routes\[1\]\.channel/);
    assert.throws(() => loadConfig({ TWOFA_ROUTES: '[{' }), /TWOFA_ROUTES: is not valid JSON/);
    assert.throws(() => loadConfig({ TWOFA_CONFIG: configFile({ transports: ['smpp://x'] }) }), /"transports" must be an object/);
    assert.throws(() => loadConfig({ 'TWOFA_TRANSPORT_9LIVES': 'log://' }), /TWOFA_TRANSPORT_9LIVES: "9lives" is not a transport name/);
  });

  it('refuses unknown keys, bad values and bad JSON in the file, saying where', () => {
    assert.throws(() => loadConfig({ TWOFA_CONFIG: configFile({ prot: 1 }) }), /unknown option "prot"/);
    assert.throws(() => loadConfig({ TWOFA_CONFIG: configFile({ port: 'x' }) }), /TWOFA_PORT \(port in .*twofa\.config\.json\)/);
    assert.throws(() => loadConfig({ TWOFA_CONFIG: configFile('{oops') }), /not valid JSON/);
    assert.throws(() => loadConfig({ TWOFA_CONFIG: configFile([1]) }), /JSON object/);
    assert.throws(() => loadConfig({ TWOFA_CONFIG: '/nonexistent/twofa.config.json' }), /TWOFA_CONFIG: .* does not exist/);
  });

  it('documents every option', () => {
    for (const opt of CONFIG_OPTIONS) {
      assert.match(opt.env, /^TWOFA_[A-Z_]+$/);
      assert.ok(opt.doc.length > 20, `${opt.env} has documentation`);
    }
    // docs/configuration.md's table has a row for each, its first cell the variable.
    const page = fs.readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    for (const opt of CONFIG_OPTIONS) assert.ok(page.includes(`\n| \`${opt.env}\` |`), `docs/configuration.md documents ${opt.env}`);
  });
});
