// Holds an answer of the Entities, Factors and Challenges routes against the response schema Twilio's
// OpenAPI document gives that operation and status (fixtures/twilio-verify-v2-factors-openapi.json,
// its schemas copied verbatim, descriptions left out): types, SID patterns, enums and date-times, and,
// beyond what the document enforces itself, exactly its keys, each present (null when empty).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type Schema = Record<string, unknown>;
const fixture = JSON.parse(fs.readFileSync(new URL('./fixtures/twilio-verify-v2-factors-openapi.json', import.meta.url), 'utf8')) as {
  operations: Record<string, { operationId: string; schema: Schema | null }>;
  schemas: Record<string, Schema>;
};

/** OpenAPI 3.0 to JSON Schema: `nullable` becomes a type that admits null; every object's keys are all required, no others allowed. */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable') continue;
    out[key] = key === '$ref' ? `#/definitions/${String(value).split('/').pop()}` : strict(value);
  }
  const s = schema as Schema;
  if (s['nullable'] === true) {
    if (typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
    if (Array.isArray(out['enum'])) out['enum'] = [...out['enum'] as unknown[], null];
  }
  if (s['properties'] && typeof s['properties'] === 'object') {
    out['required'] = Object.keys(s['properties']);
    out['additionalProperties'] = false;
  }
  return out;
}

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);
ajv.addFormat('uri-map', true);
const definitions = Object.fromEntries(Object.entries(fixture.schemas).map(([name, schema]) => [name, strict(schema)]));
const validators = new Map<string, ValidateFunction>();

function templateOf(method: string, path: string): string | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  return Object.keys(fixture.operations).map((k) => k.split(' ')).filter(([m, template]) => {
    const parts = template!.split('/').filter((s) => s !== '');
    return m === method.toUpperCase() && parts.length === segments.length && parts.every((p, i) => p.startsWith('{') || p === segments[i]);
  }).map(([, template]) => template!)[0];
}

/** Whether the path is one of these operations' (the other answers are held by documented-fields.ts). */
export function isFactorOperation(method: string, url: string): boolean {
  return templateOf(method, new URL(url).pathname) !== undefined;
}

/** Asserts that `body` is what Twilio's document says the operation answers with `status`. */
export function assertTwilioSchema(method: string, url: string, status: number, body: unknown): void {
  const template = templateOf(method, new URL(url).pathname);
  assert.ok(template, `${method} ${url} is an operation of Twilio's document`);
  const key = `${method.toUpperCase()} ${template} ${status}`;
  const operation = fixture.operations[key];
  assert.ok(operation, `${key} is in Twilio's document`);
  if (operation.schema === null || operation.schema === undefined) {
    assert.ok(body === undefined || body === '' || body === null, `${key} has no body`);
    return;
  }
  let validate = validators.get(key);
  if (!validate) validators.set(key, validate = ajv.compile({ definitions, ...strict(operation.schema) as Schema }));
  assert.ok(validate(body), `${operation.operationId} ${status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
}
