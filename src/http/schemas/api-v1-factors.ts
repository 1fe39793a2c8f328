// Shapes of twofa's own API for the factor model (/api/v1/applications/{appId}/entities/...): the same
// entities, factors and challenges as Twilio's Entities resources (docs/factors.md), in this API's
// style (camelCase JSON, times in epoch milliseconds).
import { Type } from 'typebox';

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Millis = (description: string) => Type.Integer({ description: `${description} UNIX time in milliseconds.` });
const StringMap = Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]);

export const EntityParamsSchema = Type.Object({
  appId: Type.String({ maxLength: 64, description: 'The application (a Twilio Verify Service).' }),
  identity: Type.String({ maxLength: 128, description: 'Your id of the user: 8 to 64 letters and digits, in groups separated by single dashes.' }),
});
export const FactorParamsSchema = Type.Object({ ...EntityParamsSchema.properties, factorSid: Type.String({ maxLength: 64, description: 'YF + 32 hex.' }) });
export const ChallengeParamsSchema = Type.Object({ ...EntityParamsSchema.properties, challengeSid: Type.String({ maxLength: 64, description: 'YC + 32 hex.' }) });
export const ApplicationParamsSchema = Type.Object({ appId: EntityParamsSchema.properties.appId });

export const EntityListQuerySchema = Type.Object({
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'Entities per page, 1 to 1000 (default 50).' })),
  offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description: 'Entities to skip (default 0).' })),
});

export const TotpConfigSchema = Type.Object({
  alg: Type.Optional(Type.Union([Type.Literal('sha1'), Type.Literal('sha256'), Type.Literal('sha512')])),
  timeStep: Type.Optional(Type.Integer({ description: 'Seconds per code, 20 to 60.' })),
  codeLength: Type.Optional(Type.Integer({ description: 'Digits, 3 to 8.' })),
  skew: Type.Optional(Type.Integer({ description: 'Steps accepted on each side of now, 0 to 2.' })),
}, { additionalProperties: false, description: 'Left out: the application\'s Twilio Totp.* settings, else sha1, 30 s, 6 digits, skew 1.' });

export const CreateFactorRequestSchema = Type.Object({
  type: Type.Literal('totp', { description: 'totp (passkeys are registered through the passkeys operations).' }),
  friendlyName: Type.String({ maxLength: 64, description: 'Shown in the authenticator app as the account name.' }),
  config: Type.Optional(TotpConfigSchema),
  secret: Type.Optional(Type.String({ maxLength: 256, description: 'A Base32 seed of your own (at least 80 bits); generated when left out.' })),
}, { additionalProperties: false });

export const CodeRequestSchema = Type.Object({
  code: Type.String({ maxLength: 16, description: 'The code the user\'s authenticator app shows.' }),
}, { additionalProperties: false });

export const CreateChallengeRequestSchema = Type.Object({
  factorSid: Type.String({ maxLength: 64, description: 'The verified factor to challenge.' }),
  code: Type.Optional(Type.String({ maxLength: 16, description: 'The code, answered at once.' })),
  expiresInSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, description: 'Default 300, at most 3600.' })),
}, { additionalProperties: false });

export const EntitySchema = Type.Object({
  sid: Type.String({ description: 'YE + 32 hex.' }),
  identity: Type.String(),
  applicationId: Type.String(),
  createdAt: Millis('When it was made.'),
}, { description: 'A user of the application, by your id of them.' });

export const EntityListSchema = Type.Object({ entities: Type.Array(EntitySchema) }, { description: 'One page of the application\'s entities.' });

export const FactorSchema = Type.Object({
  sid: Type.String({ description: 'YF + 32 hex.' }),
  identity: Type.String(),
  entitySid: Type.String(),
  applicationId: Type.String(),
  type: Type.String({ description: 'totp or passkeys.' }),
  status: Type.String({ description: 'unverified or verified.' }),
  friendlyName: Type.String(),
  config: Type.Unknown({ description: 'totp: {alg, time_step, code_length, skew}.' }),
  metadata: StringMap,
  /** Wrong codes counted against its verification (unverified factors). */
  verificationAttempts: Type.Integer({ description: 'Codes counted against its verification; at 5 it is locked out (make a new one).' }),
  createdAt: Millis('When it was made.'),
  updatedAt: Millis('Its last change.'),
}, { description: 'An authenticator of the user; its secret is never answered after its creation.' });

export const NewFactorSchema = Type.Object({
  ...FactorSchema.properties,
  secret: Type.String({ description: 'totp: the Base32 seed. Answered here only: show it (or the URI as a QR code) to the user and do not keep it.' }),
  uri: Type.String({ description: 'totp: the otpauth:// URI authenticator apps scan.' }),
}, { description: 'A factor as made, with its seed and URI (answered once).' });

export const FactorListSchema = Type.Object({ factors: Type.Array(FactorSchema) }, { description: 'The user\'s factors, oldest first.' });

export const ChallengeSchema = Type.Object({
  sid: Type.String({ description: 'YC + 32 hex.' }),
  identity: nullable(Type.String()),
  factorSid: nullable(Type.String()),
  applicationId: Type.String(),
  type: Type.String(),
  status: Type.String({ description: 'pending, approved, denied (five wrong codes) or expired.' }),
  attemptsLeft: Type.Integer({ description: 'Codes it still takes.' }),
  expiresAt: Millis('When it expires.'),
  respondedAt: Type.Union([Millis('When it was approved or denied.'), Type.Null()]),
  createdAt: Millis('When it was made.'),
}, { description: 'One sign-in asking a factor for proof.' });
