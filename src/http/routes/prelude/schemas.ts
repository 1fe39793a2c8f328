// The Prelude Verify v2 wire shapes (@prelude.so/sdk 0.10.0's VerificationCreateParams,
// VerificationCheckParams and their responses): JSON in and out, snake_case. Objects take members
// Prelude added after 0.10.0 (they are accepted and not applied), so a newer SDK is not refused.
// Used by the routes beside this file only.
import { Type } from 'typebox';

const Text = (maxLength: number, description?: string) => Type.String({ maxLength, ...(description !== undefined ? { description } : {}) });

export const Target = Type.Object({
  type: Type.Union([Type.Literal('phone_number'), Type.Literal('email_address')]),
  value: Text(320, 'An E.164 phone number with its +, or an email address.'),
}, { additionalProperties: false });

const Metadata = Type.Object({
  correlation_id: Type.Optional(Text(64, 'Kept with the verification: echoed in the create\'s answer, answered by its check and told in its webhooks.')),
}, { additionalProperties: false });

const Signals = Type.Object({
  ip: Type.Optional(Text(64)),
  device_id: Type.Optional(Text(256)),
  device_platform: Type.Optional(Text(16)),
  device_model: Type.Optional(Text(256)),
  os_version: Type.Optional(Text(64)),
  app_version: Type.Optional(Text(64)),
  user_agent: Type.Optional(Text(1024)),
  is_trusted_user: Type.Optional(Type.Boolean()),
  ja4_fingerprint: Type.Optional(Text(256)),
}, { description: 'Passed to the engine with the create: ip is a signal of the risk score; the others are handed down for the risk decision.' });

const Options = Type.Object({
  template_id: Type.Optional(Text(64, 'A message template of the account\'s Prelude application (its messageId).')),
  variables: Type.Optional(Type.Record(Type.String(), Text(1024), { description: 'Placeholder values of the template.' })),
  locale: Type.Optional(Text(35, 'BCP-47; picks the built-in text\'s language (default: the number\'s country\'s).')),
  code_size: Type.Optional(Type.Integer({ description: '4 to 8 digits.' })),
  custom_code: Type.Optional(Text(16, 'The code to send, when the account allows it (PUT /api/v1/prelude/settings).')),
  method: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('voice'), Type.Literal('message')])),
  preferred_channel: Type.Optional(Text(16, 'whatsapp and telegram are sent as such; other channels by SMS.')),
  sender_id: Type.Optional(Text(64, 'Accepted, not used: the transport\'s sender sends.')),
  callback_url: Type.Optional(Text(2048, 'https URL of the verification\'s webhooks (verify.authentication, verify.attempt, verify.delivery_status), unsigned (docs/prelude-verify.md).')),
}, { description: 'Members beyond these (app_realm, integration, channels, ...) are accepted and not applied.' });

export const CreateVerificationBody = Type.Object({
  target: Target,
  signals: Type.Optional(Signals),
  options: Type.Optional(Options),
  metadata: Type.Optional(Metadata),
  dispatch_id: Type.Optional(Text(256, 'Accepted, not used.')),
}, { additionalProperties: false });

const Channel = Type.Union([
  Type.Literal('rcs'), Type.Literal('silent'), Type.Literal('sms'), Type.Literal('telegram'), Type.Literal('viber'), Type.Literal('voice'), Type.Literal('whatsapp'), Type.Literal('zalo'),
]);
const BlockedReason = Type.Union([
  Type.Literal('expired_signature'), Type.Literal('in_block_list'), Type.Literal('invalid_phone_line'), Type.Literal('invalid_phone_number'),
  Type.Literal('invalid_signature'), Type.Literal('repeated_attempts'), Type.Literal('suspicious'),
]);

export const CreateVerificationSchema = Type.Object({
  id: Type.String({ description: '`vrf_` + 26 characters, derived from the PIN\'s id.' }),
  status: Type.Union([Type.Literal('success'), Type.Literal('retry'), Type.Literal('blocked'), Type.Literal('shadow_blocked')]),
  method: Type.Union([Type.Literal('email'), Type.Literal('message'), Type.Literal('silent'), Type.Literal('voice')]),
  channels: Type.Optional(Type.Array(Channel)),
  reason: Type.Optional(BlockedReason),
  metadata: Type.Optional(Metadata),
  request_id: Type.String(),
}, { additionalProperties: false, title: 'PreludeVerification', description: 'The verification created (success), sent again (retry), or refused by a limit or guard (blocked, with its reason; nothing sent); shadow_blocked: sent, but the risk score would have blocked it (the application\'s risk mode is shadow).' });

export const CheckVerificationBody = Type.Object({
  target: Target,
  code: Text(64),
}, { additionalProperties: false });

export const CheckVerificationSchema = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('failure'), Type.Literal('expired_or_not_found')]),
  id: Type.Optional(Type.String()),
  metadata: Type.Optional(Metadata),
  request_id: Type.String(),
}, { additionalProperties: false, title: 'PreludeVerificationCheck', description: 'The outcome of the check: success, failure (a wrong code, counted) or expired_or_not_found (no live verification of the target).' });
