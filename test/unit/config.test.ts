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
