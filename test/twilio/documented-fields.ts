// Holds an answer of the Twilio dialect against the fields Twilio's own OpenAPI document lists for
// that operation and status (fixtures/twilio-verify-v2-fields.json, extracted from it): the same
// keys, no more and no fewer, at every level the document spells out.
import assert from 'node:assert/strict';
import fs from 'node:fs';

type Shape = null | { [key: string]: Shape } | Shape[];
const { operations } = JSON.parse(fs.readFileSync(new URL('./fixtures/twilio-verify-v2-fields.json', import.meta.url), 'utf8')) as {
  operations: Record<string, { operationId: string; fields: Shape }>;
};

/** "/v2/Services/VA.../Verifications/VE..." as the document's template "/v2/Services/{ServiceSid}/Verifications/{Sid}". */
export function templateOf(method: string, path: string): string | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  const matching: string[] = [];
  for (const key of Object.keys(operations)) {
    const [m, template] = key.split(' ') as [string, string];
    if (m !== method.toUpperCase()) continue;
    const parts = template.split('/').filter((s) => s !== '');
    if (parts.length === segments.length && parts.every((p, i) => p.startsWith('{') || p === segments[i])) matching.push(template);
  }
  // A static segment wins over a parameter (/Attempts/Summary over /Attempts/{Sid}), as in the router.
  const params = (template: string) => (template.match(/\{/g) ?? []).length;
  return matching.sort((a, b) => params(a) - params(b))[0];
}

function assertShape(value: unknown, shape: Shape, where: string): void {
  if (shape === null || value === null) return;
  if (Array.isArray(shape)) {
    assert.ok(Array.isArray(value), `${where} is an array`);
    if (shape.length > 0) (value as unknown[]).forEach((item, i) => assertShape(item, shape[0]!, `${where}[${i}]`));
    return;
  }
  // An object the document leaves open (links: a map of URLs) is only checked to be an object.
  assert.equal(typeof value, 'object', `${where} is an object`);
  if (Object.keys(shape).length === 0) return;
  assert.deepEqual(Object.keys(value as object).sort(), Object.keys(shape).sort(), `${where}: the keys Twilio documents`);
  for (const [key, inner] of Object.entries(shape)) assertShape((value as Record<string, unknown>)[key], inner, `${where}.${key}`);
}

/** Asserts that `body` carries exactly the documented fields of the operation's answer. Returns the operationId. */
export function assertDocumentedFields(method: string, url: string, status: number, body: unknown): string {
  const path = new URL(url).pathname;
  const template = templateOf(method, path);
  assert.ok(template, `${method} ${path} is an operation of Twilio's document`);
  const operation = operations[`${method.toUpperCase()} ${template} ${status}`];
  assert.ok(operation, `${method} ${template} answers ${status} in Twilio's document`);
  if (operation.fields === null) assert.ok(body === undefined || body === '' || body === null, `${method} ${template} ${status} has no body`);
  else assertShape(body, operation.fields, `${operation.operationId} ${status}`);
  return operation.operationId;
}

/** Twilio's error body: exactly code, message, more_info and status. */
export function assertTwilioError(body: unknown, status: number, code: number): void {
  assert.deepEqual(Object.keys(body as object).sort(), ['code', 'message', 'more_info', 'status']);
  const b = body as { code: number; status: number; more_info: string };
  assert.equal(b.status, status);
  assert.equal(b.code, code);
  assert.equal(b.more_info, `https://www.twilio.com/docs/errors/${code}`);
}
