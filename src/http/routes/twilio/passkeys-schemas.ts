// The wire shapes of Twilio's four Passkeys routes: JSON bodies (the SDK forwards its params object
// as is), snake_case for the creates (the SDK's TypeScript classes name them in camelCase: both are
// read), WebAuthn's own camelCase for the browser's answers, which are passed on untouched.
import { Type, type Static, type TSchema } from 'typebox';
import type { PasskeyConfigPatch } from '../../../domain/passkeys.js';

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601, UTC.' });
const Json = (description: string) => Type.Unknown({ description });

const RelyingParty = Type.Object({
  id: Type.Optional(Type.String({ maxLength: 253, description: 'The relying party id: the site\'s domain (no scheme, no port), e.g. example.com.' })),
  name: Type.Optional(Type.String({ maxLength: 64 })),
  origins: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 10, description: 'The origins whose pages may use the passkey, e.g. https://example.com.' })),
}, { additionalProperties: true });

const criteria = {
  authenticator_attachment: Type.Optional(Type.String({ description: 'platform, cross-platform or any.' })),
  discoverable_credentials: Type.Optional(Type.String({ description: 'required, preferred or discouraged.' })),
  user_verification: Type.Optional(Type.String({ description: 'required, preferred or discouraged.' })),
};

export const PasskeyConfigBody = Type.Object({
  relying_party: Type.Optional(RelyingParty),
  relyingParty: Type.Optional(RelyingParty),
  ...criteria,
  authenticatorAttachment: criteria.authenticator_attachment,
  discoverableCredentials: criteria.discoverable_credentials,
  userVerification: criteria.user_verification,
}, { additionalProperties: true, description: 'Each field overrides the Service\'s Passkeys.* setting of the same name.' });

export const CreatePasskeysFactorBody = Type.Object({
  friendly_name: Type.Optional(Type.String({ maxLength: 256, description: 'The passkey\'s name, up to 64 characters; the authenticator shows it as the user\'s name. Required (or friendlyName).' })),
  friendlyName: Type.Optional(Type.String({ maxLength: 256 })),
  identity: Type.String({ maxLength: 256, description: 'The user (Entity), made when new: 8 to 64 letters and digits, dash-separated, no personal data.' }),
  config: Type.Optional(PasskeyConfigBody),
}, { additionalProperties: true });

export const CreatePasskeysChallengeBody = Type.Object({
  identity: Type.Optional(Type.String({ maxLength: 256, description: 'Ask this user\'s passkeys (all of them, or factor_sid\'s); without it, any discoverable passkey of the Service.' })),
  factor_sid: Type.Optional(Type.String({ maxLength: 64, description: 'Ask this passkey only.' })),
  factorSid: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: true });

const credentialFields = {
  id: Type.String({ maxLength: 1400, description: 'The credential id, base64url.' }),
  rawId: Type.Optional(Type.String({ maxLength: 2800, description: 'Read as id (Twilio\'s examples send it in hex).' })),
  type: Type.Optional(Type.String()),
  authenticatorAttachment: Type.Optional(nullable(Type.String())),
  clientExtensionResults: Type.Optional(Type.Object({}, { additionalProperties: true })),
};

export const VerifyPasskeysFactorBody = Type.Object({
  ...credentialFields,
  id: Type.Optional(credentialFields.id),
  response: Type.Object({
    clientDataJSON: Type.String({ maxLength: 8192 }),
    attestationObject: Type.String({ maxLength: 65536 }),
    transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 })),
  }, { additionalProperties: true }),
}, { additionalProperties: true, description: 'The PublicKeyCredential of navigator.credentials.create(), as its toJSON() writes it.' });

export const ApprovePasskeysChallengeBody = Type.Object({
  ...credentialFields,
  response: Type.Object({
    clientDataJSON: Type.String({ maxLength: 8192 }),
    authenticatorData: Type.String({ maxLength: 8192 }),
    signature: Type.String({ maxLength: 2048 }),
    userHandle: Type.Optional(nullable(Type.String({ maxLength: 256 }))),
  }, { additionalProperties: true }),
}, { additionalProperties: true, description: 'The PublicKeyCredential of navigator.credentials.get(), as its toJSON() writes it.' });

export const PasskeysChallengeSchema = Type.Object({
  sid: Type.String(),
  account_sid: Type.String(),
  service_sid: Type.String(),
  entity_sid: Type.String({ description: 'Empty until a discoverable passkey names its user.' }),
  identity: Type.String(),
  factor_sid: Type.String(),
  date_created: DateTime,
  date_updated: DateTime,
  date_responded: nullable(DateTime),
  expiration_date: DateTime,
  status: Type.Union([Type.Literal('pending'), Type.Literal('expired'), Type.Literal('approved'), Type.Literal('denied')]),
  responded_reason: Type.String(),
  details: Type.Null(),
  hidden_details: Type.Null(),
  metadata: nullable(Type.Record(Type.String(), Type.String())),
  factor_type: Type.Literal('passkeys'),
  url: Type.String(),
  links: Type.Null(),
  options: nullable(Type.Object({ publicKey: Json('WebAuthn PublicKeyCredentialRequestOptions (JSON) for navigator.credentials.get().') })),
}, { title: 'TwilioPasskeysChallenge', description: 'A passkeys challenge; `options` only when it is created.' });

/** The request's `config` as the use case reads it: snake_case, whichever spelling was sent. */
export function passkeyConfigPatch(config: Static<typeof PasskeyConfigBody>): PasskeyConfigPatch {
  const rp = config.relying_party ?? config.relyingParty;
  return {
    ...(rp !== undefined ? { relying_party: rp } : {}),
    authenticator_attachment: config.authenticator_attachment ?? config.authenticatorAttachment ?? null,
    discoverable_credentials: config.discoverable_credentials ?? config.discoverableCredentials ?? null,
    user_verification: config.user_verification ?? config.userVerification ?? null,
  };
}
