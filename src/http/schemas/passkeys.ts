// Shapes of /api/v1's passkeys (docs/factors.md, "Passkeys"): an application's relying party
// settings, a passkey's registration and a challenge, in this API's camelCase; the browser's
// credential JSON (navigator.credentials.create()/get(), toJSON()) passes through as it is.
import { Type } from 'typebox';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Millis = (description: string) => Type.Integer({ description: `${description} UNIX time in milliseconds.` });

export const PasskeySettingsSchema = Type.Object({
  applicationId: Type.String(),
  relyingParty: Type.Object({
    id: nullable(Type.String({ description: 'The site\'s domain (no scheme, no port): example.com, or localhost.' })),
    name: nullable(Type.String({ description: 'Shown by the authenticator; the id when unset.' })),
    origins: nullable(Type.Array(Type.String(), { description: 'The pages that may use the passkeys: https://example.com (http only on localhost).' })),
  }),
  authenticatorAttachment: nullable(Type.String({ description: 'platform, cross-platform or any.' })),
  discoverableCredentials: nullable(Type.String({ description: 'required, preferred or discouraged.' })),
  userVerification: nullable(Type.String({ description: 'required, preferred or discouraged.' })),
}, { description: 'The relying party an application\'s passkeys are made for (its Twilio Service\'s Passkeys.* settings). A new passkey may override each field.' });

const RelyingPartyBody = Type.Object({
  id: Type.Optional(nullable(Type.String({ maxLength: 253 }))),
  name: Type.Optional(nullable(Type.String({ maxLength: 64 }))),
  origins: Type.Optional(nullable(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 10 }))),
}, { additionalProperties: false });

const criteriaBody = {
  authenticatorAttachment: Type.Optional(nullable(Type.String({ maxLength: 32 }))),
  discoverableCredentials: Type.Optional(nullable(Type.String({ maxLength: 32 }))),
  userVerification: Type.Optional(nullable(Type.String({ maxLength: 32 }))),
};

export const PasskeySettingsBodySchema = Type.Object({ relyingParty: Type.Optional(RelyingPartyBody), ...criteriaBody }, { additionalProperties: false, description: 'Fields left out keep their value; null clears one.' });

export const PasskeyConfigSchema = Type.Object({
  relyingParty: Type.Object({ id: Type.String(), name: Type.String(), origins: Type.Array(Type.String()) }),
  authenticatorAttachment: Type.String(),
  discoverableCredentials: Type.String(),
  userVerification: Type.String(),
});

export const PasskeyFactorSchema = Type.Object({
  factorSid: Type.String({ description: 'YF + 32 hex; the same factor Twilio\'s routes name.' }),
  entitySid: Type.String(),
  identity: Type.String(),
  friendlyName: Type.String(),
  status: Type.Union([Type.Literal('unverified'), Type.Literal('verified')]),
  config: PasskeyConfigSchema,
  createdAt: Millis('When it was created.'),
  updatedAt: Millis('When it last changed.'),
  options: Type.Optional(Type.Object({ publicKey: Type.Unknown({ description: 'PublicKeyCredentialCreationOptionsJSON: pass to navigator.credentials.create() (e.g. @simplewebauthn/browser\'s startRegistration({ optionsJSON })).' }) })),
}, { description: 'A passkey factor; `options` only when it is created.' });

export const NewPasskeyBodySchema = Type.Object({
  identity: Type.String({ maxLength: 64, description: 'Your id of the user: 8 to 64 letters and digits, dash-separated, no personal data.' }),
  friendlyName: Type.String({ maxLength: 64, description: 'The passkey\'s name; the authenticator shows it as the user\'s name.' }),
  config: Type.Optional(Type.Object({ relyingParty: Type.Optional(RelyingPartyBody), ...criteriaBody }, { additionalProperties: false })),
}, { additionalProperties: false });

export const PasskeyChallengeSchema = Type.Object({
  challengeSid: Type.String({ description: 'YC + 32 hex.' }),
  entitySid: nullable(Type.String()),
  identity: nullable(Type.String({ description: 'Null for a discoverable challenge until its assertion names the user.' })),
  factorSid: nullable(Type.String()),
  status: Type.Union([Type.Literal('pending'), Type.Literal('expired'), Type.Literal('approved'), Type.Literal('denied')]),
  expiresAt: Millis('When it expires.'),
  respondedAt: nullable(Millis('When it was approved.')),
  createdAt: Millis('When it was created.'),
  options: Type.Optional(Type.Object({ publicKey: Type.Unknown({ description: 'PublicKeyCredentialRequestOptionsJSON: pass to navigator.credentials.get() (startAuthentication({ optionsJSON })).' }) })),
}, { description: 'A passkey challenge; `options` only when it is created.' });

export const NewPasskeyChallengeBodySchema = Type.Object({
  identity: Type.Optional(Type.String({ maxLength: 64, description: 'Ask this user\'s passkeys; without it, any discoverable passkey of the application.' })),
  factorSid: Type.Optional(Type.String({ maxLength: 64, description: 'Ask this passkey only.' })),
}, { additionalProperties: false });

export const PasskeyCredentialBodySchema = Type.Object({
  id: Type.String({ maxLength: 1400 }),
  response: Type.Object({ clientDataJSON: Type.String({ maxLength: 8192 }) }, { additionalProperties: true }),
}, { additionalProperties: true, description: 'The PublicKeyCredential of navigator.credentials.create() or get(), as its toJSON() writes it.' });
