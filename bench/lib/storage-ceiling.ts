// The storage ceiling: the SQL statements of the hot paths, prepared once and run in a tight loop on
// one better-sqlite3 connection (no HTTP, no Kysely, no event loop), on a database made by the
// project's own migrations, with the server's pragmas. It shows what SQLite on this disk can do for a
// send or a verify: a commit per request, or one per 16 requests as the server's shared transaction
// makes them under load (sqlite/hot-path.ts); with synchronous=FULL (every commit waits for its
// fsync) and with synchronous=OFF (statement cost alone: the floor that group commit approaches).
import { createHash, randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import { BENCH_SECRET, pinInsert, type TwofaFixture } from './twofa-fixture.js';

export interface StorageResult {
  name: string;
  synchronous: 'FULL' | 'OFF';
  opsPerSecond: number;
  usPerOp: number;
  commitsPerOp: number;
}

type Sync = StorageResult['synchronous'];

function open(file: string, synchronous: Sync): BetterSqlite3.Database {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('secure_delete = ON');
  return db;
}

/** Requests per commit in the shared-transaction cases: about what one turn of the server's event loop holds under load. */
const SHARED_UNITS = 16;

function timeLoop(seconds: number, op: (i: number) => void): { ops: number; elapsedS: number } {
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(seconds * 1e9));
  let i = 0;
  for (;;) {
    for (let k = 0; k < 16; k++) op(i++);
    if (process.hrtime.bigint() >= deadline) break;
  }
  return { ops: i, elapsedS: Number(process.hrtime.bigint() - started) / 1e9 };
}

/**
 * Runs each hot path's statements for `seconds`. The fixture's database is used as it is (its right
 * pool supplies the PINs to verify; run this on a copy the server does not use).
 */
export function measureStorage(fixture: TwofaFixture, seconds: number): StorageResult[] {
  const results: StorageResult[] = [];
  const keyring = new PinKeyring(BENCH_SECRET);
  let verifyCursor = 0;
  for (const synchronous of ['FULL', 'OFF'] as const) {
    const db = open(fixture.file, synchronous);
    const hasAudit = (db.prepare("select count(*) as n from sqlite_master where name = 'audit_log'").get() as { n: number }).n > 0;
    const s = {
      buckets: db.prepare('select hits, last_at from rate_limit_buckets where key = ? and last_at > ? order by last_at'),
      bump: db.prepare('insert into rate_limit_buckets (key, bucket_start, hits, last_at, expires_at) values (?, ?, 1, ?, ?) on conflict (key, bucket_start) do update set hits = hits + 1, last_at = excluded.last_at, expires_at = excluded.expires_at'),
      attempt: db.prepare('update pins set attempts_left = attempts_left - 1 where id = ? and attempts_left > 0 and expires_at > ? and locked_at is null and (verified_at is null or allow_multiple_verifications = 1) returning *'),
      verified: db.prepare('update pins set verified_at = coalesce(verified_at, ?), pin_ciphertext = null where id = ? and verified_at is null'),
      auditLast: hasAudit ? db.prepare('select seq, hash from audit_log where account_id = ? order by seq desc limit 1') : undefined,
      audit: hasAudit ? db.prepare('insert into audit_log (account_id, seq, at, event, application_id, pin_id, destination, source_ip, actor, reason, prev_hash, hash) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)') : undefined,
    };
    const insertPin = pinInsert(db);
    const audit = (pinId: string, event: string, now: number) => {
      if (!s.audit || !s.auditLast) return;
      const last = s.auditLast.get(fixture.accountId) as { seq: number; hash: string } | undefined;
      const seq = (last?.seq ?? 0) + 1;
      const hash = createHash('sha256').update(`${last?.hash ?? ''}${seq}${event}${pinId}`).digest('hex');
      s.audit.run(fixture.accountId, seq, now, event, fixture.appId, pinId, '4179*****67', '127.0.0.1', 'bench', null, last?.hash ?? '', hash);
    };
    const limit = (key: string, now: number) => {
      s.buckets.all(key, now - 86_400_000);
      s.bump.run(key, Math.floor(now / 1_440_000) * 1_440_000, now, now + 86_400_000);
    };

    const pinColumns = 'id, account_id, application_id, message_id, channel, destination, pin_hash, pin_ciphertext, attempts_left, allow_multiple_verifications, created_at, expires_at, verified_at, locked_at, delivery_status, delivery_error, sent_at, send_count, delivery_transport, provider_message_id, delivered_at, test_number';
    const readPin = db.prepare(`select ${pinColumns} from pins where id = ? and account_id = ?`);
    const countAttempt = db.prepare(`update pins set attempts_left = attempts_left - 1 where id = ? and attempts_left > 0 and expires_at > ? and locked_at is null and (verified_at is null or allow_multiple_verifications = 1) returning ${pinColumns}`);
    // As the server's units (sqlite/pin-statements.ts): a send's limits, PIN and audit entry; a
    // verify's PIN read, limit, counted attempt, verified mark and audit entry.
    const sendUnit = (i: number) => {
      const now = Date.now();
      const pinId = randomBytes(16).toString('hex').toUpperCase();
      const to = `4179${String(5_000_000 + (i % 1_000_000)).padStart(7, '0')}`;
      limit(`send:to:${fixture.appId}:${to}`, now);
      limit(`send:app:${fixture.appId}`, now);
      insertPin({
        id: pinId, account_id: fixture.accountId, application_id: fixture.appId, message_id: fixture.messageId, channel: 'sms', destination: to,
        pin_hash: keyring.hashPin(pinId, '123456'), pin_ciphertext: keyring.encryptPin(pinId, '123456'), attempts_left: 10, allow_multiple_verifications: 0,
        created_at: now, expires_at: now + 900_000, verified_at: null, locked_at: null, delivery_status: 'queued', delivery_error: null, sent_at: null,
        send_count: 1, delivery_transport: null, provider_message_id: null, delivered_at: null,
      });
      audit(pinId, 'pin.send', now);
    };
    const verifyUnit = () => {
      const now = Date.now();
      const pinId = fixture.rightPool[verifyCursor++ % fixture.rightPool.length]!;
      const pin = readPin.get(pinId, fixture.accountId) as { destination: string } | undefined;
      limit(`verify:${fixture.appId}:${pin?.destination ?? ''}`, now);
      countAttempt.get(pinId, now);
      s.verified.run(now, pinId);
      audit(pinId, 'pin.verify', now);
    };
    const begin = db.prepare('begin immediate');
    const commit = db.prepare('commit');
    const savepoint = db.prepare('savepoint unit');
    const release = db.prepare('release unit');
    /** `perCommit` units per transaction, each in a savepoint when they share it (sqlite/hot-path.ts). */
    const units = (unit: (i: number) => void, perCommit: number) => (i: number) => {
      if (i % perCommit === 0) begin.run();
      if (perCommit > 1) savepoint.run();
      unit(i);
      if (perCommit > 1) release.run();
      if (i % perCommit === perCommit - 1) commit.run();
    };
    const minimalSend = (i: number) => {
      const pinId = randomBytes(16).toString('hex').toUpperCase();
      const now = Date.now();
      db.transaction(() => {
        insertPin({
          id: pinId, account_id: fixture.accountId, application_id: fixture.appId, message_id: fixture.messageId, channel: 'sms', destination: `4179${String(6_000_000 + (i % 1_000_000)).padStart(7, '0')}`,
          pin_hash: keyring.hashPin(pinId, '123456'), pin_ciphertext: keyring.encryptPin(pinId, '123456'), attempts_left: 10, allow_multiple_verifications: 0,
          created_at: now, expires_at: now + 900_000, verified_at: null, locked_at: null, delivery_status: 'queued', delivery_error: null, sent_at: null,
          send_count: 1, delivery_transport: null, provider_message_id: null, delivered_at: null,
        });
      })();
    };
    const minimalVerify = () => {
      s.attempt.get(fixture.rightPool[verifyCursor++ % fixture.rightPool.length]!, Date.now());
    };
    const cases: [string, (i: number) => void, number][] = [
      ['send: the PIN insert alone', minimalSend, 1],
      ['verify: the attempt UPDATE ... RETURNING alone', minimalVerify, 1],
      [`send: every statement of the request (limits, PIN${hasAudit ? ', audit' : ''}), a commit each`, units(sendUnit, 1), 1],
      [`send: the same, ${SHARED_UNITS} requests per commit (the server's shared transaction)`, units(sendUnit, SHARED_UNITS), 1 / SHARED_UNITS],
      [`verify-right: every statement of the request (read, limit, attempt, mark${hasAudit ? ', audit' : ''}), a commit each`, units(verifyUnit, 1), 1],
      [`verify-right: the same, ${SHARED_UNITS} requests per commit`, units(verifyUnit, SHARED_UNITS), 1 / SHARED_UNITS],
    ];
    for (const [name, op, commitsPerOp] of cases) {
      const { ops, elapsedS } = timeLoop(seconds, op);
      if (db.inTransaction) db.prepare('commit').run();
      results.push({ name, synchronous, opsPerSecond: Math.round(ops / elapsedS), usPerOp: Math.round((elapsedS * 1e6 * 10) / ops) / 10, commitsPerOp });
    }
    db.close();
  }
  return results;
}
