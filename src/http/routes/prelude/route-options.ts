// The options every route of the Prelude dialect shares: it declares the dialect (so that the error
// envelope answers in Prelude's shape and tells its SDK which answers not to repeat, error-envelope.ts)
// and sits under the `Prelude Verify` tag of the OpenAPI document. Prelude's Bearer token is a twofa
// API key, read as every key is. A route adds its scope and its schema.
import type { FastifySchema } from 'fastify';

export function preludeRoute<S extends FastifySchema & { operationId: string; summary: string }>(scope: string, schema: S) {
  return { config: { scope, dialect: 'prelude' as const }, schema: { ...schema, tags: ['Prelude Verify'] } };
}
