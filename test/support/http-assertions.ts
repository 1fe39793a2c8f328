// Assertions and small helpers shared by the HTTP suites (test/http/). The harness stays the one way
// to build a node; this file only reads what it answers.
import assert from 'node:assert/strict';
import type { Harness } from './harness.js';

export type HttpResult = Awaited<ReturnType<Harness['request']>>;

/**
 * Wraps `h.request` so that any 5xx answer fails the test at once: none of the HTTP suites sends
 * anything that should make the service fail.
 */
export function forbid5xx(h: Harness): Harness {
  const original = h.request.bind(h);
  h.request = async (method, url, options) => {
    const response = await original(method, url, options);
    assert.ok(response.status < 500, `${method} ${url} answered ${response.status}: ${JSON.stringify(response.body)}`);
    return response;
  };
  return h;
}

/**
 * Checks that `response` is exactly Infobip's error envelope with the given status and messageId:
 * `{"requestError":{"serviceException":{"messageId","text"[,"validationErrors"]}}}`, nothing more,
 * and no stack trace. Returns the serviceException.
 */
export function assertEnvelope(response: HttpResult, status: number, messageId: string): { messageId: string; text: string; validationErrors?: Record<string, string[]> } {
  assert.equal(response.status, status, `expected ${status}, got ${response.status}: ${JSON.stringify(response.body)}`);
  const body = response.body;
  assert.equal(typeof body, 'object', `error body is not JSON: ${String(body)}`);
  assert.deepEqual(Object.keys(body), ['requestError']);
  assert.deepEqual(Object.keys(body.requestError), ['serviceException']);
  const se = body.requestError.serviceException;
  const keys = Object.keys(se).sort();
  assert.ok(
    JSON.stringify(keys) === JSON.stringify(['messageId', 'text']) || JSON.stringify(keys) === JSON.stringify(['messageId', 'text', 'validationErrors']),
    `unexpected serviceException keys ${JSON.stringify(keys)}`,
  );
  assert.equal(se.messageId, messageId);
  assert.equal(typeof se.text, 'string');
  assert.ok(se.text.length > 0, 'empty error text');
  if (se.validationErrors !== undefined) {
    assert.equal(typeof se.validationErrors, 'object');
    for (const [field, messages] of Object.entries(se.validationErrors)) {
      assert.ok(Array.isArray(messages) && messages.length > 0, `validationErrors.${field} is not a non-empty array`);
      for (const m of messages as unknown[]) assert.equal(typeof m, 'string');
    }
  }
  const text = JSON.stringify(body);
  assert.doesNotMatch(text, /\bat [\w.<>]+ \(|\.ts:\d+|node_modules|stack/i, 'error body leaks a stack trace');
  assert.equal(response.headers['content-type']?.toString().split(';')[0], 'application/json');
  return se;
}

/** A 400 BAD_REQUEST whose validationErrors name `field`. */
export function assertFieldError(response: HttpResult, field: string): string[] {
  const se = assertEnvelope(response, 400, 'BAD_REQUEST');
  assert.ok(se.validationErrors, `no validationErrors in ${JSON.stringify(se)}`);
  assert.ok(Object.hasOwn(se.validationErrors, field), `validationErrors has no "${field}": ${JSON.stringify(se.validationErrors)}`);
  return se.validationErrors[field] as string[];
}

/** A Retry-After header in whole seconds, at least 1 and at most `maxSeconds`. */
export function assertRetryAfter(response: HttpResult, maxSeconds: number): number {
  const value = response.headers['retry-after'];
  assert.equal(typeof value, 'string', 'no Retry-After header');
  assert.match(value as string, /^[1-9][0-9]*$/);
  const seconds = Number(value);
  assert.ok(seconds <= maxSeconds, `Retry-After ${seconds} s exceeds ${maxSeconds} s`);
  return seconds;
}

/** Delivers what is queued and answers the inbox of the caller's account, newest first. */
export async function inboxFor(h: Harness, to: string, key?: string): Promise<Array<{ channel: string; to: string; from?: string; subject?: string; text?: string; html?: string; pinId: string }>> {
  await h.node.worker.drain();
  const response = await h.request('GET', `/api/v1/inbox?to=${encodeURIComponent(to)}&limit=1000`, { ...(key !== undefined ? { key } : {}) });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.messages;
}

let phoneCounter = 0;
/** A fresh, valid Swiss mobile number for every call, so tests never share a per-destination limit or inbox. */
export function freshPhone(): string {
  phoneCounter += 1;
  return `41793${String(100000 + ((process.pid * 7 + phoneCounter) % 900000)).padStart(6, '0')}`;
}

/** A Spanish mobile number, different on each call: its country's language is es. */
export function spanishPhone(): string {
  phoneCounter += 1;
  return `346${String((process.pid * 17 + phoneCounter) % 100_000_000).padStart(8, '0')}`;
}

let emailCounter = 0;
export function freshEmail(): string {
  emailCounter += 1;
  return `user${emailCounter}.${process.pid}@example.com`;
}

/** Creates an email template (our /api/v1 resource) and a 2FA email message using it. */
export async function createEmailMessage(h: Harness, applicationId: string, options: { key?: string; template?: Record<string, unknown>; message?: Record<string, unknown> } = {}) {
  const key = options.key !== undefined ? { key: options.key } : {};
  const template = await h.request('POST', '/api/v1/email-templates', { ...key, body: { name: 'login code', subject: 'Your code', text: 'Code {{pin}}', ...options.template } });
  assert.equal(template.status, 200, JSON.stringify(template.body));
  const message = await h.request('POST', `/2fa/2/applications/${applicationId}/email/messages`, { ...key, body: { emailTemplateId: template.body.id, ...options.message } });
  assert.equal(message.status, 200, JSON.stringify(message.body));
  return { emailTemplateId: template.body.id as number, messageId: message.body.messageId as string };
}

/** A 32-character upper-case hex id nobody has: the shape of real ids, so only existence differs. */
export const MISSING_ID = '0123456789ABCDEF0123456789ABCDEF';
