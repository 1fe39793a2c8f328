// The fields @prelude.so/sdk 0.10.0 declares for each answer (src/resources/verification.ts:
// VerificationCreateResponse, VerificationCheckResponse) and for an error (the reference's
// {code, message, type, param, request_id}; the SDK reads `message`). Prelude publishes no OpenAPI
// document, and the SDK package carries none: its generated types are the published contract.
import assert from 'node:assert/strict';

type Json = Record<string, unknown>;

function assertFields(body: unknown, required: readonly string[], optional: readonly string[], enums: Record<string, readonly string[]>): Json {
  assert.ok(typeof body === 'object' && body !== null && !Array.isArray(body), `a JSON object, not ${JSON.stringify(body)}`);
  const answer = body as Json;
  for (const field of required) assert.ok(field in answer, `${field} is required: ${JSON.stringify(answer)}`);
  for (const field of Object.keys(answer)) assert.ok(required.includes(field) || optional.includes(field), `${field} is not a field the SDK declares`);
  for (const [field, values] of Object.entries(enums)) {
    if (field in answer) assert.ok(values.includes(String(answer[field])), `${field} = ${String(answer[field])} is not one of ${values.join(', ')}`);
  }
  return answer;
}

const CHANNELS = ['rcs', 'silent', 'sms', 'telegram', 'viber', 'voice', 'whatsapp', 'zalo'];

export function assertCreateAnswer(body: unknown): void {
  const answer = assertFields(body, ['id', 'method', 'status'], ['channels', 'metadata', 'reason', 'request_id', 'silent'], {
    method: ['email', 'message', 'silent', 'voice'],
    status: ['success', 'retry', 'blocked'],
    reason: ['expired_signature', 'in_block_list', 'invalid_phone_line', 'invalid_phone_number', 'invalid_signature', 'repeated_attempts', 'suspicious'],
  });
  assert.equal(typeof answer['id'], 'string');
  if ('channels' in answer) assert.ok(Array.isArray(answer['channels']) && (answer['channels'] as unknown[]).every((c) => CHANNELS.includes(String(c))));
  if ('metadata' in answer) assertFields(answer['metadata'], [], ['correlation_id'], {});
  assert.equal('reason' in answer, answer['status'] === 'blocked', 'a reason exactly when blocked');
}

export function assertCheckAnswer(body: unknown): void {
  const answer = assertFields(body, ['status'], ['id', 'metadata', 'request_id'], { status: ['success', 'failure', 'expired_or_not_found'] });
  if ('metadata' in answer) assertFields(answer['metadata'], [], ['correlation_id'], {});
}

export function assertErrorAnswer(body: unknown): void {
  const answer = assertFields(body, ['code', 'message'], ['type', 'param', 'request_id'], {});
  assert.equal(typeof answer['message'], 'string');
  assert.match(String(answer['code']), /^[a-z_]+$/);
}
