// Shapes of prices, spend and budgets under /api/v1 (docs/routing.md#prices, #budgets). Amounts are
// decimal strings, never floats.
import { Type } from 'typebox';

const Amount = (description: string) => Type.String({ pattern: '^[0-9]{1,12}(\\.[0-9]{1,6})?$', description: `${description} (a decimal string, e.g. "0.0450").` });
const NullableAmount = (description: string) => Type.Union([Amount(description), Type.Null()]);

/** A message a transport took, with what it cost: one entry of a PIN's `messages`. */
export const MessagePriceSchema = Type.Object({
  deliveryId: Type.String({ description: 'The message (Infobip\'s externalMessageId).' }),
  channel: Type.String(),
  transport: Type.String({ description: 'The transport that took it (a route\'s member).' }),
  sentAt: Type.Integer({ description: 'UNIX time in milliseconds.' }),
  country: Type.Union([Type.String(), Type.Null()]),
  segments: Type.Integer({ description: 'SMS parts (1 for other channels): the price list\'s price is per part.' }),
  price: Type.Union([Type.Object({ amount: Amount('The whole message'), currency: Type.String() }), Type.Null()], { description: 'null: no known price (no line of the price list matched).' }),
  priceSource: Type.Union([Type.Literal('list'), Type.Literal('provider'), Type.Literal('none')], { description: 'list: the price list x parts; provider: the provider\'s own answer or receipt.' }),
});

export const SpendQuerySchema = Type.Object({
  by: Type.Optional(Type.Union([Type.Literal('country'), Type.Literal('transport'), Type.Literal('application')], { description: 'How to group; default country.' })),
  from: Type.Optional(Type.String({ maxLength: 40, description: 'Start, inclusive: UNIX ms or ISO 8601; default the start of the current UTC month.' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'End, exclusive: UNIX ms or ISO 8601; default now.' })),
});

export const SpendResponseSchema = Type.Object({
  by: Type.String(),
  from: Type.Integer(),
  to: Type.Integer(),
  groups: Type.Array(Type.Object({
    key: Type.Union([Type.String(), Type.Null()], { description: 'The country, transport or application id (null: email, which has no country).' }),
    currency: Type.Union([Type.String(), Type.Null()], { description: 'null for the group\'s unpriced messages.' }),
    amount: NullableAmount('What the group\'s messages cost, in its currency; null for the unpriced'),
    messages: Type.Integer(),
    segments: Type.Integer(),
    unpriced: Type.Integer({ description: 'Messages with no known price (they count against no budget).' }),
  })),
  totals: Type.Array(Type.Object({ currency: Type.String(), amount: Amount('Every group summed'), messages: Type.Integer() })),
  unpriced: Type.Integer({ description: 'Messages in the range with no known price.' }),
}, { description: 'What the account\'s messages cost, as recorded when their transports took them.' });

// Caps are checked by the service (domain/budgets.ts), whose error says what a cap must look like.
const CapInput = (description: string) => Type.Optional(Type.Union([Type.String({ maxLength: 24, description: `${description} (a decimal string, e.g. "25.00").` }), Type.Null()]));
const CapPair = {
  daily: CapInput('The cap of a UTC day; null or absent: none'),
  monthly: CapInput('The cap of a UTC calendar month; null or absent: none'),
};

export const BudgetRequestSchema = Type.Object({
  currency: Type.String({ maxLength: 8, description: 'ISO 4217; only messages priced in it count.' }),
  ...CapPair,
  countries: Type.Optional(Type.Record(Type.String({ maxLength: 8 }), Type.Object(CapPair, { additionalProperties: false }), {
    description: 'Caps of the messages to one ISO country, besides the caps of every message.',
  })),
}, { additionalProperties: false });

const CapPairView = { daily: NullableAmount('Cap of a UTC day'), monthly: NullableAmount('Cap of a UTC calendar month') };

export const BudgetResponseSchema = Type.Object({
  scope: Type.Union([Type.Literal('account'), Type.Literal('application')]),
  applicationId: Type.Union([Type.String(), Type.Null()]),
  currency: Type.String(),
  ...CapPairView,
  countries: Type.Record(Type.String(), Type.Object(CapPairView)),
  spent: Type.Object({ daily: Amount('Spent today (UTC) against the daily cap'), monthly: Amount('Spent this month against the monthly cap') }),
  updatedAt: Type.Integer(),
}, { description: 'A budget: its caps, and what the current day and month have spent against them.' });

export const PriceListResponseSchema = Type.Object({
  file: Type.Union([Type.String(), Type.Null()], { description: 'TWOFA_PRICES_FILE; null when none is configured.' }),
  loadedAt: Type.Union([Type.Integer(), Type.Null()]),
  lines: Type.Array(Type.Object({
    transport: Type.String(), country: Type.String(), prefix: Type.Union([Type.String(), Type.Null()]), amount: Amount('Per message, per SMS part'), currency: Type.String(),
  })),
}, { description: 'The price list in force on the node that answers.' });
