// Request bodies as the clients of both dialects send them. Infobip's clients send JSON, sometimes an
// empty body with a JSON content type, and `null` for "absent" (Infobip's Java stack reads it so);
// resend bodies are optional. Anything else than JSON is refused with a 415 before validation (the
// Twilio plugin adds its own form parser in its scope). Fastify's default JSON parser keeps its
// protections (prototype poisoning, size limit); this only wraps what it parses.
import type { App } from '../route-types.js';

/** Drops `null` members of JSON bodies: Infobip's Java stack reads null as absent, and clients rely on it. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = dropNulls(v);
    return out;
  }
  return value;
}

export function registerJsonBody(app: App): void {
  // An empty body with a JSON content type is an empty object, not a parse error.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // JSON only: a text/plain body is a 415, not a string that fails validation.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, {});
    parseJson(request, body as string, (err, parsed) => (err ? done(err, undefined) : done(null, dropNulls(parsed))));
  });
  // Resend bodies are optional (clients send none, `{}` or only `trackDelivery`); a missing body is validated as `{}`.
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && (request.method === 'POST' || request.method === 'PUT')) request.body = {};
  });
}
