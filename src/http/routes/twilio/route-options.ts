// The options every route of the Twilio dialect shares: it declares the dialect (so that auth asks
// for HTTP Basic and the error envelope answers in Twilio's shape, plugins/auth.ts and
// error-envelope.ts) and sits under the `Twilio Verify` tag of the OpenAPI document. A route adds
// its scope and its schema.
import type { FastifySchema } from 'fastify';

export function twilioRoute<S extends FastifySchema & { operationId: string; summary: string }>(scope: string, schema: S) {
  return { config: { scope, dialect: 'twilio' as const }, schema: { ...schema, tags: ['Twilio Verify'] } };
}
