// The settings of several nodes, without a server: which URLs select PostgreSQL, how TLS options map
// onto node-postgres (and override the URL), and how the new variables parse.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { advisoryLockKey } from '../../src/store/postgres/advisory-lock.js';
import { compatibilityProblem } from '../../src/store/postgres/compatibility.js';
import { connectionConfig } from '../../src/store/postgres/open-postgres.js';
import { isPostgresUrl, redactPostgresUrl } from '../../src/store/postgres/postgres-url.js';

describe('PostgreSQL and scale-out settings', () => {
  it('selects PostgreSQL for postgres:// and postgresql:// URLs only', () => {
    assert.equal(isPostgresUrl('postgres://u:p@db:5432/twofa'), true);
    assert.equal(isPostgresUrl('postgresql://db/twofa'), true);
    assert.equal(isPostgresUrl('sqlite:./data/twofa.db'), false);
    assert.equal(redactPostgresUrl('postgres://u:s3cret@db:5432/twofa'), 'postgres://u:***@db:5432/twofa');
  });

  it('maps TWOFA_DATABASE_SSL onto TLS settings, replacing the URL\'s own', () => {
    const url = 'postgres://u:p@db.internal:5432/twofa?sslmode=disable&application_name=x';
    assert.equal(connectionConfig(url, {}).connectionString, url, 'unset: the URL decides');
    assert.equal(connectionConfig(url, {}).ssl, undefined);
    const disabled = connectionConfig(url, { ssl: 'disable' });
    assert.equal(disabled.ssl, false);
    const required = connectionConfig(url, { ssl: 'require' });
    assert.deepEqual(required.ssl, { rejectUnauthorized: false });
    assert.ok(!required.connectionString!.includes('sslmode'), 'the URL\'s sslmode no longer overrides the option');
    assert.ok(required.connectionString!.includes('application_name=x'), 'other parameters stay');
    assert.deepEqual(connectionConfig(url, { ssl: 'verify-full' }).ssl, { rejectUnauthorized: true });
  });

  it('uses a CA file for verification only, and says which combination is wrong', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-ca-'));
    const ca = path.join(dir, 'ca.pem');
    fs.writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    try {
      assert.deepEqual(connectionConfig('postgres://db/x', { caFile: ca }).ssl, { rejectUnauthorized: true, ca: fs.readFileSync(ca, 'utf8') });
      assert.deepEqual(connectionConfig('postgres://db/x', { ssl: 'verify-full', caFile: ca }).ssl, { rejectUnauthorized: true, ca: fs.readFileSync(ca, 'utf8') });
      assert.throws(() => connectionConfig('postgres://db/x', { ssl: 'require', caFile: ca }), /TWOFA_DATABASE_CA_FILE .* verify-full/);
      assert.throws(() => connectionConfig('postgres://db/x', { ssl: 'disable', caFile: ca }), /TWOFA_DATABASE_CA_FILE/);
      assert.throws(() => connectionConfig('postgres://db/x', { caFile: path.join(dir, 'missing.pem') }), /TWOFA_DATABASE_CA_FILE: cannot read/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('parses the scale-out variables, with their defaults', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.databasePoolSize, 10);
    assert.equal(defaults.databaseSsl, undefined);
    assert.equal(defaults.migrateOnStart, true);
    assert.equal(defaults.redisUrl, undefined);
    assert.equal(defaults.deliveryLeaseMs, 10_000);

    const set = loadConfig({
      TWOFA_DATABASE_URL: 'postgresql://twofa:pw@db:5432/twofa', TWOFA_DATABASE_POOL_SIZE: '25', TWOFA_DATABASE_SSL: 'verify-full',
      TWOFA_MIGRATE_ON_START: 'false', TWOFA_REDIS_URL: 'rediss://:pw@redis:6380/1', TWOFA_DELIVERY_LEASE: '3s',
    });
    assert.equal(set.databaseUrl, 'postgresql://twofa:pw@db:5432/twofa');
    assert.equal(set.databasePoolSize, 25);
    assert.equal(set.databaseSsl, 'verify-full');
    assert.equal(set.migrateOnStart, false);
    assert.equal(set.redisUrl, 'rediss://:pw@redis:6380/1');
    assert.equal(set.deliveryLeaseMs, 3000);

    assert.throws(() => loadConfig({ TWOFA_DATABASE_URL: 'mysql://db/x' }), /TWOFA_DATABASE_URL: must start with sqlite: .* or postgres:\/\//);
    assert.throws(() => loadConfig({ TWOFA_DATABASE_POOL_SIZE: '0' }), /TWOFA_DATABASE_POOL_SIZE/);
    assert.throws(() => loadConfig({ TWOFA_DATABASE_SSL: 'prefer' }), /TWOFA_DATABASE_SSL: must be disable, require or verify-full/);
    assert.throws(() => loadConfig({ TWOFA_MIGRATE_ON_START: 'maybe' }), /TWOFA_MIGRATE_ON_START/);
    assert.throws(() => loadConfig({ TWOFA_REDIS_URL: 'http://redis' }), /TWOFA_REDIS_URL/);
    assert.throws(() => loadConfig({ TWOFA_DELIVERY_LEASE: 'soon' }), /TWOFA_DELIVERY_LEASE/);
  });

  it('derives advisory-lock keys itself: stable signed 64-bit integers, distinct per name', () => {
    const key = advisoryLockKey('send:to:APP:41793026727');
    assert.equal(key, advisoryLockKey('send:to:APP:41793026727'));
    assert.notEqual(key, advisoryLockKey('send:to:APP:41793026728'));
    const n = BigInt(key);
    assert.ok(n >= -(2n ** 63n) && n < 2n ** 63n);
  });

  it('refuses CockroachDB unless the rate limits are counted in Redis', () => {
    const cockroach = 'CockroachDB CCL v24.1.2 (x86_64-pc-linux-gnu, built 2024/06/26 00:00:00, go1.22.5)';
    assert.match(compatibilityProblem(cockroach, { externalRateLimiter: false }) ?? '', /TWOFA_REDIS_URL/);
    assert.equal(compatibilityProblem(cockroach, { externalRateLimiter: true }), undefined);
    assert.equal(compatibilityProblem('PostgreSQL 15.20 (Debian 15.20-0+deb12u1) on x86_64-pc-linux-gnu', { externalRateLimiter: false }), undefined);
  });

  it('never echoes a database password in a configuration error', () => {
    assert.throws(() => loadConfig({ TWOFA_DATABASE_URL: 'postgres://u:hunter2@db:bad-port/x' }), (err: Error) => !err.message.includes('hunter2'));
  });
});
