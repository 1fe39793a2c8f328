// The Vonage Verify v2 wire shapes (@vonage/verify2's VerificationRequestParams and Vonage's OpenAPI
// document "Verify API" 1.0.1): JSON in and out, snake_case. Limits are Vonage's; a value outside them
// is a 422 Invalid params. Used by the routes beside this file only.
import { Type } from 'typebox';

export const RequestIdParams = Type.Object({
  request_id: Type.String({ maxLength: 64, description: 'The request id a start answered (a UUID).' }),
});

const WorkflowStep = Type.Object({
  channel: Type.String({ maxLength: 32, description: 'sms, voice, email or whatsapp (silent_auth, rcs and whatsapp_interactive are refused).' }),
  to: Type.String({ minLength: 1, maxLength: 320, description: 'An E.164 number (digits, + optional) or, for email, an address; every step the first one\'s.' }),
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'The SMS sender id or the email sender, on a first step of those channels; accepted and not used on the others.' })),
}, { description: 'Vonage\'s other step members (entity_id, content_id, app_hash, mode, reuse_code, redirect_url, ...) are accepted and not applied.' });

export const StartVerificationBody = Type.Object({
  brand: Type.String({ minLength: 1, maxLength: 18, pattern: '^[^/{}:$]*$', description: 'The {{friendly_name}} of the built-in text.' }),
  workflow: Type.Array(WorkflowStep, { minItems: 1, maxItems: 3 }),
  locale: Type.Optional(Type.String({ maxLength: 35, description: 'Picks the template\'s fragment (else the number\'s country\'s language, else its default text), or the built-in text\'s language (en-us by default).' })),
  channel_timeout: Type.Optional(Type.Integer({ minimum: 15, maximum: 900, description: 'Seconds between the workflow\'s channels (180).' })),
  client_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-zA-Z0-9]*$', description: 'Your reference: echoed in the request\'s callbacks (event, summary).' })),
  code_length: Type.Optional(Type.Integer({ minimum: 4, maximum: 10, description: 'Digits of the generated code (4).' })),
  code: Type.Optional(Type.String({ minLength: 4, maxLength: 10, pattern: '^[a-zA-Z0-9]+$', description: 'The code to send instead of a generated one.' })),
  template_id: Type.Optional(Type.String({ maxLength: 64, description: 'A template of the application (GET /v2/verify/templates; any SMS/voice message template\'s id as a UUID); without it, the default template if one is set, else the built-in text.' })),
  fraud_check: Type.Optional(Type.Boolean({ description: 'Accepted; the engine\'s guards run on every send.' })),
}, { additionalProperties: false });

export const StartedVerificationSchema = Type.Object({
  request_id: Type.String({ description: 'A UUID derived from the PIN\'s id: the same PIN as /2fa/2/pin/{pinId} (without dashes, upper-case).' }),
}, { additionalProperties: false, title: 'VonageVerificationStarted', description: 'Started: the code is on its way on the first channel.' });

export const CheckCodeBody = Type.Object({
  code: Type.String({ maxLength: 64 }),
}, { additionalProperties: false });

export const CheckedCodeSchema = Type.Object({
  request_id: Type.String(),
  status: Type.Literal('completed'),
}, { additionalProperties: false, title: 'VonageCodeChecked', description: 'The right code: the request is completed.' });
