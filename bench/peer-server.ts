// The peer: Better Auth's phone-number OTP plugin on SQLite (better-sqlite3), served by node:http
// through Better Auth's own Node handler. Its defaults throughout, except: the rate limiter is off
// (as our bench application's limits are out of reach), the sender is a no-op, and the SQLite
// connection gets the same journal and durability settings as twofa's (WAL, synchronous=FULL), so
// that both commit to disk alike. Before listening it seeds BENCH_PEER_SEED one-time codes (and a user
// per phone number, which its verify endpoint updates), written as its own send-otp writes them.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import Database from 'better-sqlite3';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';
import { phoneNumber } from 'better-auth/plugins';
import { phoneOf, pinOf } from './lib/identities.js';

const port = Number(process.env['BENCH_PORT'] ?? '3000');
const file = process.env['BENCH_PEER_DB'] ?? ':memory:';
const seed = Number(process.env['BENCH_PEER_SEED'] ?? '0');
const baseURL = `http://127.0.0.1:${port}`;

const database = new Database(file);
database.pragma('journal_mode = WAL');
database.pragma('synchronous = FULL');
database.pragma('busy_timeout = 5000');

const options = {
  database,
  baseURL,
  secret: randomBytes(32).toString('hex'),
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  plugins: [phoneNumber({ sendOTP: () => undefined })],
};
const auth = betterAuth(options);
const { runMigrations } = await getMigrations(options);
await runMigrations();

if (seed > 0) {
  // The rows send-otp writes: identifier "phone-number-otp-<phone>", value "<code>:<attempts>", ISO dates.
  const now = new Date();
  const created = now.toISOString();
  const expires = new Date(now.getTime() + 3_600_000).toISOString();
  const insertCode = database.prepare('insert into verification (id, identifier, value, expiresAt, createdAt, updatedAt) values (?, ?, ?, ?, ?, ?)');
  const insertUser = database.prepare('insert into "user" (id, name, email, emailVerified, createdAt, updatedAt, phoneNumber, phoneNumberVerified) values (?, ?, ?, 0, ?, ?, ?, 0)');
  database.transaction(() => {
    for (let i = 0; i < seed; i++) {
      const phone = `+${phoneOf(i)}`;
      insertCode.run(randomBytes(16).toString('base64url'), `phone-number-otp-${phone}`, `${pinOf(i)}:0`, expires, created, created);
      insertUser.run(randomBytes(16).toString('base64url'), phone, `${phoneOf(i)}@bench.invalid`, created, created, phone);
    }
  })();
}

http.createServer(toNodeHandler(auth)).listen(port, '127.0.0.1');
process.once('SIGTERM', () => {
  database.close();
  process.exit(0);
});
