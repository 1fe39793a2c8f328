// The wire shapes of Twilio Verify's Entities, Factors and Challenges (form in, snake_case JSON out,
// every field Twilio's OpenAPI document lists, null when empty). Shared by TOTP and passkeys: a
// factor's `config` and a challenge's `details` are the factor type's own objects.
import { Type, type TSchema } from 'typebox';
import { PageMetaSchema, PageQuery } from '../schemas.js';

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601, UTC.' });
const NullableDateTime = nullable(DateTime);
/** An object of the factor type's own, or null. */
const Open = (description: string) => Type.Unknown({ description });

const ServiceSid = Type.String({ pattern: '^VA[0-9a-fA-F]{32}$', description: 'The Service\'s SID: VA + 32 hex.' });
const Identity = Type.String({ minLength: 1, maxLength: 128, description: 'The customer\'s id of the user: 8 to 64 letters and digits, in groups separated by single dashes.' });
const FactorSid = Type.String({ pattern: '^YF[0-9a-fA-F]{32}$', description: 'The Factor\'s SID: YF + 32 hex.' });
const ChallengeSid = Type.String({ pattern: '^YC[0-9a-fA-F]{32}$', description: 'The Challenge\'s SID: YC + 32 hex.' });
/** A form value the use case checks (Twilio answers 60306 for a bad one, not a schema error). */
const FormText = (description: string, maxLength = 1024) => Type.String({ maxLength, description });

export const ServiceParams = Type.Object({ ServiceSid });
export const EntityParams = Type.Object({ ServiceSid, Identity });
export const FactorParams = Type.Object({ ServiceSid, Identity, Sid: FactorSid });
export const ChallengeParams = Type.Object({ ServiceSid, Identity, Sid: ChallengeSid });

export const CreateEntityBody = Type.Object({ Identity: FormText('The user\'s id: 8 to 64 letters and digits, in groups separated by single dashes; no personal data.', 128) }, { additionalProperties: true });

const configFields = {
  'Config.Alg': Type.Optional(FormText('totp: sha1 (default), sha256 or sha512.', 16)),
  'Config.TimeStep': Type.Optional(FormText('totp: seconds per code, 20 to 60 (default: the Service\'s Totp.TimeStep, else 30).', 16)),
  'Config.CodeLength': Type.Optional(FormText('totp: digits, 3 to 8 (default: the Service\'s Totp.CodeLength, else 6).', 16)),
  'Config.Skew': Type.Optional(FormText('totp: steps accepted on each side of now, 0 to 2 (default: the Service\'s Totp.Skew, else 1).', 16)),
};

export const CreateFactorBody = Type.Object({
  FriendlyName: FormText('Up to 64 characters: the account name of the otpauth:// URI.'),
  FactorType: FormText('totp (passkeys factors are made through /Passkeys/Factors).', 32),
  'Binding.Secret': Type.Optional(FormText('totp: a Base32 seed of your own, at least 80 bits; generated when absent.')),
  ...configFields,
  Metadata: Type.Optional(FormText('A JSON object of string values, at most 1024 characters.', 4096)),
}, { additionalProperties: true });

export const UpdateFactorBody = Type.Object({
  AuthPayload: Type.Optional(FormText('totp: the code that verifies an unverified factor.', 64)),
  FriendlyName: Type.Optional(FormText('Up to 64 characters.')),
  ...configFields,
  Metadata: Type.Optional(FormText('A JSON object of string values, at most 1024 characters.', 4096)),
}, { additionalProperties: true });

export const CreateChallengeBody = Type.Object({
  FactorSid: FormText('The verified factor asked: YF + 32 hex.', 64),
  ExpirationDate: Type.Optional(FormText('ISO 8601: default 5 minutes from now, at most 60.', 64)),
  'Details.Message': Type.Optional(FormText('Shown to the user, up to 256 characters.')),
  'Details.Fields': Type.Optional(Type.Union([FormText('A JSON {"label", "value"}.'), Type.Array(FormText('A JSON {"label", "value"}.'), { maxItems: 21 })])),
  HiddenDetails: Type.Optional(FormText('A JSON object of string values, not shown to the user.', 4096)),
  AuthPayload: Type.Optional(FormText('totp: the code, answered at once (3 to 8 characters).', 64)),
}, { additionalProperties: true });

export const UpdateChallengeBody = Type.Object({
  AuthPayload: FormText('totp: the code (3 to 8 characters).', 64),
  Metadata: Type.Optional(FormText('A JSON object of string values, at most 1024 characters.', 4096)),
}, { additionalProperties: true });

export const ChallengeListQuery = Type.Object({
  FactorSid: Type.Optional(FormText('Only the challenges of this factor.', 64)),
  Status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('expired'), Type.Literal('approved'), Type.Literal('denied')])),
  Order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'By creation: asc (default) or desc.' })),
  ...PageQuery.properties,
}, { additionalProperties: true });

export const EntitySchema = Type.Object({
  sid: Type.String(),
  identity: Type.String(),
  account_sid: Type.String(),
  service_sid: Type.String(),
  date_created: DateTime,
  date_updated: DateTime,
  url: Type.String(),
  links: Type.Object({ factors: Type.String(), new_factors: Type.String(), challenges: Type.String() }),
}, { title: 'TwilioEntity', description: 'A user of the Service, as its factors and challenges name it.' });

const factorFields = {
  sid: Type.String(),
  account_sid: Type.String(),
  service_sid: Type.String(),
  entity_sid: Type.String(),
  identity: Type.String(),
  date_created: DateTime,
  date_updated: DateTime,
  friendly_name: Type.String(),
  status: Type.String({ description: 'unverified or verified.' }),
  factor_type: Type.String({ description: 'totp or passkeys.' }),
  config: Open('totp: {alg, skew, code_length, time_step}; passkeys: the relying party and authenticator criteria.'),
  metadata: Open('The JSON object of strings given, or null.'),
  url: Type.String(),
};

export const FactorSchema = Type.Object(factorFields, { title: 'TwilioFactor', description: 'A factor; its secret is never answered after its creation.' });
export const NewFactorSchema = Type.Object({
  ...factorFields,
  binding: Open('totp: {secret (Base32), uri (otpauth://)}, answered by this create only.'),
  options: Open('passkeys: the WebAuthn creation options; null for totp.'),
}, { title: 'TwilioNewFactor', description: 'A factor as made, with its binding.' });

export const ChallengeSchema = Type.Object({
  sid: Type.String(),
  account_sid: Type.String(),
  service_sid: Type.String(),
  entity_sid: nullable(Type.String()),
  identity: nullable(Type.String()),
  factor_sid: nullable(Type.String()),
  date_created: DateTime,
  date_updated: DateTime,
  date_responded: NullableDateTime,
  expiration_date: DateTime,
  status: Type.String({ description: 'pending, expired, approved or denied.' }),
  responded_reason: Type.String({ description: 'none, not_needed or not_requested.' }),
  details: Open('{message, date, fields[{label, value}]}, or null.'),
  hidden_details: Open('The JSON object of strings given, or null.'),
  metadata: Open('The JSON object of strings given with the answer, or null.'),
  factor_type: Type.String(),
  url: Type.String(),
  links: Type.Object({ notifications: Type.String() }),
}, { title: 'TwilioChallenge', description: 'A challenge and its outcome.' });

export const EntityPageSchema = Type.Object({ entities: Type.Array(EntitySchema), meta: PageMetaSchema }, { title: 'TwilioEntityPage', description: 'One page of Entities.' });
export const FactorPageSchema = Type.Object({ factors: Type.Array(FactorSchema), meta: PageMetaSchema }, { title: 'TwilioFactorPage', description: 'One page of Factors.' });
export const ChallengePageSchema = Type.Object({ challenges: Type.Array(ChallengeSchema), meta: PageMetaSchema }, { title: 'TwilioChallengePage', description: 'One page of Challenges.' });
