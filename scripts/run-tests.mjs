// `npm test`: every test file under test/ through node:test with tsx (tsx rather than Node's type
// stripping: the sources use TypeScript-only syntax such as parameter properties). Arguments narrow the run to folders
// or files, e.g. `npm test -- test/unit`.
//
// When PostgreSQL answers (TWOFA_TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/postgres)
// the HTTP suite (test/http) runs a second time on it (TWOFA_TEST_DATABASE=postgres); the store,
// multi-node and Redis tests use it (and Redis) themselves. Without PostgreSQL those runs are skipped,
// and the run says so, unless TWOFA_REQUIRE_POSTGRES=1 (CI): then it fails.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const postgresUrl = process.env.TWOFA_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.TWOFA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function collect(target) {
  const full = path.resolve(root, target);
  if (!fs.existsSync(full)) throw new Error(`no such test path: ${target}`);
  if (fs.statSync(full).isFile()) return [full];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? collect(path.join(full, e.name)) : e.name.endsWith('.test.ts') ? [path.join(full, e.name)] : []);
}

function where(url, defaultPort) {
  const parsed = new URL(url);
  return `${parsed.hostname || '127.0.0.1'}:${parsed.port || defaultPort}`;
}

async function postgresAnswers() {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function tcpAnswers(url, defaultPort) {
  const parsed = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: parsed.hostname || '127.0.0.1', port: Number(parsed.port || defaultPort) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function run(files, extraEnv) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
    cwd: root, stdio: 'inherit', env: { ...process.env, TWOFA_LOG_LEVEL: process.env.TWOFA_LOG_LEVEL ?? 'silent', ...extraEnv },
  });
  return result.status ?? 1;
}

const targets = process.argv.slice(2);
const files = (targets.length > 0 ? targets : ['test']).flatMap(collect).sort();
if (files.length === 0) {
  process.stderr.write('no test files found\n');
  process.exit(1);
}

const postgres = await postgresAnswers();
if (!postgres) {
  const message = `PostgreSQL not reachable at ${where(postgresUrl, 5432)}: skipping the PostgreSQL runs`;
  if (process.env.TWOFA_REQUIRE_POSTGRES === '1') {
    process.stderr.write(`PostgreSQL not reachable at ${where(postgresUrl, 5432)}, and TWOFA_REQUIRE_POSTGRES=1: failing the run (start it, or set TWOFA_TEST_POSTGRES_URL)\n`);
    process.exit(1);
  }
  process.stderr.write(`\n*** ${message} (start it, or set TWOFA_TEST_POSTGRES_URL) ***\n\n`);
}
if (!(await tcpAnswers(redisUrl, 6379))) {
  const message = `Redis not reachable at ${where(redisUrl, 6379)}: skipping the Redis tests`;
  if (process.env.TWOFA_REQUIRE_REDIS === '1') {
    process.stderr.write(`Redis not reachable at ${where(redisUrl, 6379)}, and TWOFA_REQUIRE_REDIS=1: failing the run (start it, or set TWOFA_TEST_REDIS_URL)\n`);
    process.exit(1);
  }
  process.stderr.write(`\n*** ${message} (start it, or set TWOFA_TEST_REDIS_URL) ***\n\n`);
}

let status = run(files, {});
const httpFolder = path.join(root, 'test', 'http') + path.sep;
const httpFiles = files.filter((f) => f.startsWith(httpFolder));
if (postgres && httpFiles.length > 0) {
  process.stdout.write('\n# The HTTP suite again, on PostgreSQL (TWOFA_TEST_DATABASE=postgres)\n');
  status = run(httpFiles, { TWOFA_TEST_DATABASE: 'postgres' }) || status;
}
if (!postgres) process.stderr.write(`\n*** PostgreSQL not reachable at ${where(postgresUrl, 5432)}: the PostgreSQL runs were skipped ***\n`);
process.exit(status);
