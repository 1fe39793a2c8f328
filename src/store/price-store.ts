// The prices of the messages sent (message_prices, migration 0032): one row per message a transport
// took, written by completeOutbox in the transaction that records it sent (kysely-store.ts), read by
// the PIN's detail, the Twilio Attempts and the spend statistics.
import { sql, type Kysely } from 'kysely';
import type { MessagePrice } from '../domain/price-list.js';
import type { Database, MessagePricesTable } from './schema.js';

/** What a message cost, as the worker found it (price list or provider) when its transport took it. */
export type MessagePriceInput = MessagePrice;

export interface MessagePriceRecord extends MessagePriceInput {
  deliveryId: string;
  pinId: string;
  applicationId: string;
  transport: string;
  at: number;
  providerMessageId: string | null;
}

export const SPEND_DIMENSIONS = ['country', 'transport', 'application'] as const;
export type SpendDimension = (typeof SPEND_DIMENSIONS)[number];

/** One group of the spend: a country, transport or application, in one currency (null: the unpriced messages). */
export interface SpendGroup {
  key: string | null;
  currency: string | null;
  /** Micro-units; 0 for the unpriced group. */
  amount: number;
  messages: number;
  /** SMS parts (1 per message of other channels). */
  segments: number;
  /** Messages with no known price (counted in no budget). */
  unpriced: number;
}

export interface PriceStore {
  /** The priced messages of a PIN of the account, oldest first. */
  listForPin(accountId: string, pinId: string): Promise<MessagePriceRecord[]>;
  /** The account's spend from `from` (inclusive) to `to` (exclusive), UNIX ms, grouped by `by` and currency. */
  spend(accountId: string, by: SpendDimension, from: number, to: number): Promise<SpendGroup[]>;
  /**
   * A provider's receipt reported the real price of a message it took: it replaces the list's.
   * False when no such message is recorded (yet).
   */
  reportProviderPrice(pinId: string, providerMessageId: string, amount: number, currency: string): Promise<boolean>;
  /** Deletes the prices of messages sent before `before` (with the PINs they belong to). */
  purge(before: number): Promise<number>;
}

type PriceRow = Pick<MessagePricesTable, 'delivery_id' | 'pin_id' | 'application_id' | 'channel' | 'transport' | 'country' | 'prefix' | 'at' | 'segments' | 'amount' | 'currency' | 'source' | 'provider_message_id'>;

export function messagePriceOf(row: PriceRow): MessagePriceRecord {
  return {
    deliveryId: row.delivery_id, pinId: row.pin_id, applicationId: row.application_id, channel: row.channel, transport: row.transport,
    country: row.country, prefix: row.prefix, at: Number(row.at), segments: Number(row.segments), amount: row.amount === null ? null : Number(row.amount),
    currency: row.currency, source: row.source as MessagePriceInput['source'], providerMessageId: row.provider_message_id,
  };
}

const DIMENSION_COLUMN: Record<SpendDimension, 'country' | 'transport' | 'application_id'> = { country: 'country', transport: 'transport', application: 'application_id' };

export class KyselyPriceStore implements PriceStore {
  constructor(private readonly db: Kysely<Database>) {}

  async listForPin(accountId: string, pinId: string): Promise<MessagePriceRecord[]> {
    const rows = await this.db.selectFrom('message_prices').selectAll().where('pin_id', '=', pinId).where('account_id', '=', accountId).orderBy('at').execute();
    return rows.map(messagePriceOf);
  }

  async spend(accountId: string, by: SpendDimension, from: number, to: number): Promise<SpendGroup[]> {
    const column = DIMENSION_COLUMN[by];
    const rows = await this.db.selectFrom('message_prices')
      .select([
        sql<string | null>`${sql.ref(column)}`.as('key'), 'currency',
        sql<number | string | null>`sum(amount)`.as('amount'), sql<number | string>`count(*)`.as('messages'),
        sql<number | string | null>`sum(segments)`.as('segments'), sql<number | string | null>`sum(case when amount is null then 1 else 0 end)`.as('unpriced'),
      ])
      .where('account_id', '=', accountId).where('at', '>=', from).where('at', '<', to)
      .groupBy([column, 'currency']).orderBy(column).orderBy('currency').execute();
    return rows.map((r) => ({
      key: r.key, currency: r.currency, amount: Number(r.amount ?? 0), messages: Number(r.messages), segments: Number(r.segments ?? 0), unpriced: Number(r.unpriced ?? 0),
    }));
  }

  async reportProviderPrice(pinId: string, providerMessageId: string, amount: number, currency: string): Promise<boolean> {
    const result = await this.db.updateTable('message_prices').set({ amount, currency, source: 'provider' })
      .where('pin_id', '=', pinId).where('provider_message_id', '=', providerMessageId).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async purge(before: number): Promise<number> {
    const result = await this.db.deleteFrom('message_prices').where('at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
