// Each account's test numbers (`test_numbers`): destinations whose sends deliver nothing and whose
// fixed code verifies. Every send asks whether its destination is one, so the lookup is the hot part:
// the account's whole (short) list is kept by the configuration cache while nothing changed it; a
// store without a cache reads the one row by its unique key.
import type { Kysely, Selectable } from 'kysely';
import { UNCACHED, type ConfigReader } from './config-cache.js';
import type { Database, TestNumbersTable } from './schema.js';

export interface TestNumberRecord {
  id: string;
  accountId: string;
  destination: string;
  /** The fixed code, encrypted under the PIN keyring with the id as associated data. */
  codeCiphertext: string;
  createdAt: number;
}

export interface TestNumberStore {
  /** 'duplicate' when the account already has this destination (the unique key decides, also between nodes). */
  add(record: TestNumberRecord): Promise<'added' | 'duplicate'>;
  /** The account's test numbers, oldest first. */
  list(accountId: string): Promise<TestNumberRecord[]>;
  count(accountId: string): Promise<number>;
  /** The account's test number for a normalised destination, if it has one. */
  find(accountId: string, destination: string): Promise<TestNumberRecord | undefined>;
  /** False when the account has no test number with this id. */
  remove(accountId: string, id: string): Promise<boolean>;
}

export class KyselyTestNumberStore implements TestNumberStore {
  constructor(private readonly db: Kysely<Database>, private readonly config: ConfigReader = UNCACHED) {}

  async add(record: TestNumberRecord): Promise<'added' | 'duplicate'> {
    const result = await this.db.insertInto('test_numbers').values({
      id: record.id, account_id: record.accountId, destination: record.destination, code_ciphertext: record.codeCiphertext, created_at: record.createdAt,
    }).onConflict((oc) => oc.columns(['account_id', 'destination']).doNothing()).executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0 ? 'added' : 'duplicate';
  }

  async list(accountId: string): Promise<TestNumberRecord[]> {
    const rows = await this.db.selectFrom('test_numbers').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
    return rows.map(toRecord);
  }

  async count(accountId: string): Promise<number> {
    const row = await this.db.selectFrom('test_numbers').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async find(accountId: string, destination: string): Promise<TestNumberRecord | undefined> {
    if (this.config !== UNCACHED) {
      const all = await this.config.get(`test-numbers:${accountId}`, () => this.list(accountId));
      return all.find((t) => t.destination === destination);
    }
    const row = await this.db.selectFrom('test_numbers').selectAll().where('account_id', '=', accountId).where('destination', '=', destination).executeTakeFirst();
    return row && toRecord(row);
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('test_numbers').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

function toRecord(row: Selectable<TestNumbersTable>): TestNumberRecord {
  return { id: row.id, accountId: row.account_id, destination: row.destination, codeCiphertext: row.code_ciphertext, createdAt: Number(row.created_at) };
}
