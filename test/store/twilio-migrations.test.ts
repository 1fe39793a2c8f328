// The Twilio dialect's later migrations carry what earlier ones stored: a verification's expiry is
// taken from its PIN (0012), and the sends kept as JSON beside each verification become attempt rows
// in their order (0014). Run on SQLite from a database migrated only up to 0011.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { migrateToLatest, migrateUpTo } from '../../src/store/migrations.js';

describe('Twilio dialect migrations', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-twilio-migrations-'));
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(path.join(dir, 'db.sqlite')) }) });
  after(async () => {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('moves the JSON sends of 0011 into twilio_attempts, with the PIN\'s expiry', async () => {
    assert.ok((await migrateUpTo(db, 'sqlite', '0011_twilio_dialect')).includes('0011_twilio_dialect'));
    await sql`insert into pins (id, account_id, application_id, message_id, channel, destination, pin_hash, attempts_left, allow_multiple_verifications, created_at, expires_at, delivery_status, send_count)
      values ('P1', 'acct', 'app', 'msg', 'sms', '41790000001', 'h', 5, 0, 1000, 601000, 'sent', 2)`.execute(db);
    const sends = JSON.stringify([{ time: 1000, channel: 'sms', attemptSid: 'VLa' }, { time: 1000, channel: 'call', attemptSid: 'VLb' }]);
    await sql`insert into twilio_verifications (pin_id, account_id, status, channel, send_code_attempts, created_at, updated_at) values ('P1', 'acct', 'pending', 'call', ${sends}, 1000, 1000)`.execute(db);
    await sql`insert into twilio_verifications (pin_id, account_id, status, channel, send_code_attempts, created_at, updated_at) values ('GONE', 'acct', 'pending', 'sms', '[]', 1000, 1000)`.execute(db);

    const applied = await migrateToLatest(db, 'sqlite');
    assert.ok(applied.includes('0014_twilio_attempts'), applied.join(', '));
    const verifications = await sql<{ pin_id: string; expires_at: number }>`select pin_id, expires_at from twilio_verifications order by pin_id`.execute(db);
    assert.deepEqual(verifications.rows, [{ pin_id: 'GONE', expires_at: 0 }, { pin_id: 'P1', expires_at: 601000 }]);
    const attempts = await sql<{ sid: string; channel: string; seq: number; expires_at: number }>`select sid, channel, seq, expires_at from twilio_attempts order by seq`.execute(db);
    assert.deepEqual(attempts.rows, [{ sid: 'VLa', channel: 'sms', seq: 0, expires_at: 601000 }, { sid: 'VLb', channel: 'call', seq: 1, expires_at: 601000 }]);
  });
});
