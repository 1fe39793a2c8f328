// The options every route of the Vonage dialect shares: it declares the dialect (so that the auth hook
// takes Vonage's credentials and the error envelope answers RFC 7807 problems, error-envelope.ts) and
// sits under the `Vonage Verify` tag of the OpenAPI document. A route adds its schema.
import type { FastifySchema } from 'fastify';
import { SCOPE_PIN_SEND } from '../../../service/api-keys.js';

export function vonageRoute<S extends FastifySchema & { operationId: string; summary: string }>(schema: S) {
  return { config: { scope: SCOPE_PIN_SEND, dialect: 'vonage' as const }, schema: { ...schema, tags: ['Vonage Verify'] } };
}
