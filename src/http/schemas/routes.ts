// The routes resources of /api/v1 (docs/routing.md): the table, the explanation of one number's route,
// and an application's own senders per country.
import { Type } from 'typebox';

const SenderSchema = Type.Object({
  id: Type.String(),
  kind: Type.String({ description: 'alphanumeric, long_code or short_code.' }),
});

const RegulatorySchema = Type.Object({
  dltEntityId: Type.Optional(Type.String({ description: 'India DLT: the Principal Entity id.' })),
  dltTemplateId: Type.Optional(Type.String({ description: 'India DLT: the content template id.' })),
});

const MatchSchema = Type.Object({
  by: Type.String({ description: 'prefix (the longest prefix of the rule the number starts with), country, or default (a rule without countries or prefixes).' }),
  prefix: Type.Optional(Type.String()),
  country: Type.Optional(Type.String()),
});

const RuleSchema = Type.Object({
  index: Type.Integer({ description: 'Its place in the table, from 0.' }),
  name: Type.Optional(Type.String()),
  channel: Type.String(),
  countries: Type.Array(Type.String()),
  prefixes: Type.Array(Type.String()),
  transports: Type.Array(Type.String()),
  strategy: Type.String({ description: 'ordered or cheapest.' }),
  minConversion: Type.Optional(Type.Number()),
  sender: Type.Optional(SenderSchema),
  fallbackSender: Type.Optional(SenderSchema),
  regulatory: RegulatorySchema,
});

export const RoutesResponseSchema = Type.Object({
  transports: Type.Array(Type.String(), { description: 'The named transports (TWOFA_TRANSPORT_<NAME>).' }),
  rules: Type.Array(RuleSchema, { description: 'The routes table in force on the node that answered.' }),
}, { description: 'The routes table and the named transports it may use.' });

const PriceSchema = Type.Object({
  amount: Type.String({ description: 'A decimal string, e.g. "0.0450".' }),
  currency: Type.String(),
  transport: Type.String(),
  country: Type.String(),
  prefix: Type.Union([Type.String(), Type.Null()], { description: 'The price list line\'s prefix; null: the whole country.' }),
});

const RuleRefSchema = Type.Object({ index: Type.Integer(), name: Type.Union([Type.String(), Type.Null()]), match: MatchSchema });

export const RouteExplainQuerySchema = Type.Object({
  channel: Type.String({ maxLength: 16, description: 'sms, voice, whatsapp or telegram.' }),
  to: Type.String({ maxLength: 32, description: 'The phone number, international.' }),
  applicationId: Type.Optional(Type.String({ maxLength: 64, description: 'An application of the account: its own sender for the country is shown as it would apply.' })),
});

export const RouteExplainResponseSchema = Type.Object({
  channel: Type.String(),
  to: Type.String(),
  country: Type.Union([Type.String(), Type.Null()]),
  rule: Type.Union([Type.Object({
    index: Type.Integer(), name: Type.Union([Type.String(), Type.Null()]), match: MatchSchema,
    strategy: Type.String(), minConversion: Type.Union([Type.Number(), Type.Null()]),
  }), Type.Null()], { description: 'The rule that matched and why; null: none did, the channel\'s own DSN delivers.' }),
  outranked: Type.Array(RuleRefSchema, { description: 'Rules that matched too and lost: a shorter prefix, the country under a prefix, a catch-all, or a later rule of equal rank.' }),
  transports: Type.Array(Type.Object({
    name: Type.String(),
    price: Type.Union([PriceSchema, Type.Null()], { description: 'One message through it to the number; null: not in the price list.' }),
    conversion: Type.Union([Type.Object({ sent: Type.Integer(), verified: Type.Integer(), rate: Type.Number() }), Type.Null()], { description: 'Measured over the last 24 hours (cheapest rules only).' }),
  }), { description: 'In the order they are tried.' }),
  decision: Type.Union([Type.Object({ decided: Type.String(), reason: Type.String() }), Type.Null()], { description: 'How the cheapest strategy ordered them; null for an ordered rule.' }),
  sender: Type.Object({
    sender: Type.Optional(SenderSchema),
    source: Type.String({ description: 'request, application, template, route, fallback, or transport (its DSN\'s from).' }),
    note: Type.Optional(Type.String()),
  }),
  regulatory: RegulatorySchema,
}, { description: 'The route a message to the number takes now.' });

export const ApplicationSenderSchema = Type.Object({
  country: Type.String(),
  id: Type.String(),
  kind: Type.String(),
  updatedAt: Type.Integer(),
}, { description: 'The application\'s own sender for a country.' });

export const ApplicationSendersResponseSchema = Type.Object({ senders: Type.Array(ApplicationSenderSchema) }, { description: 'The application\'s own senders, by country.' });

export const ApplicationSenderRequestSchema = Type.Object({
  id: Type.String({ description: 'The sender: letters (up to 11), a long code or a short code.' }),
  kind: Type.String({ description: 'alphanumeric, long_code or short_code.' }),
}, { additionalProperties: false });

export const AppCountryParamsSchema = Type.Object({ appId: Type.String({ maxLength: 64 }), country: Type.String({ maxLength: 2, description: 'ISO 3166-1 alpha-2.' }) });
