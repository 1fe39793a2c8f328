// Response conformance: every answer a test sees through the harness must be one the OpenAPI
// document promises. The status must be declared for the operation (or `default`), the content type
// must be one of the declared media types, and a JSON body must validate against the declared schema.
// The document is the one the node serves at /openapi.json (generated from the route schemas), so a
// route whose schema lies about its answers fails the test that exercised it.
import { dereference } from '@readme/openapi-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import { dialectOfPath, ErrorEnvelopeSchema, PreludeErrorSchema, TwilioErrorSchema, VonageProblemSchema } from '../../src/http/error-envelope.js';

interface MediaType { schema?: object }
interface ResponseObject { description?: string; content?: Record<string, MediaType> }
interface Operation { operationId?: string; responses?: Record<string, ResponseObject> }
interface OpenApiDocument { paths?: Record<string, Record<string, Operation>> }

export interface ObservedResponse {
  method: string;
  url: string;
  status: number;
  headers: Record<string, unknown>;
  /** The raw body text. */
  body: string;
}

// OpenAPI 3.1 schemas are JSON Schema 2020-12. Strict mode stays on (a misspelt keyword in a route
// schema would otherwise be silently ignored); only OpenAPI's own annotation keywords are added.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, validateFormats: false });
ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);

/** Compiled validators, shared across nodes: every harness serves the same document. */
const validatorsByText = new Map<string, ValidateFunction>();
const validatorsBySchema = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: object): ValidateFunction {
  let validate = validatorsBySchema.get(schema);
  if (validate) return validate;
  const text = JSON.stringify(schema);
  validate = validatorsByText.get(text);
  if (!validate) {
    validate = ajv.compile(schema);
    validatorsByText.set(text, validate);
  }
  validatorsBySchema.set(schema, validate);
  return validate;
}

const documents = new WeakMap<object, Promise<OpenApiDocument>>();
/** Parsed documents by their text: nodes built from the same routes share one (and its validators). */
const documentsByText = new Map<string, Promise<OpenApiDocument>>();

/** The node's own OpenAPI document, fully dereferenced (fetched once per app, without the harness). */
function documentOf(app: FastifyInstance): Promise<OpenApiDocument> {
  let doc = documents.get(app);
  if (!doc) {
    doc = (async () => {
      const response = await app.inject({ method: 'GET', url: '/openapi.json' });
      if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`);
      let parsed = documentsByText.get(response.body);
      if (!parsed) {
        const json = JSON.parse(response.body) as object;
        parsed = (response.body.includes('"$ref"') ? dereference(json as never) : Promise.resolve(json)) as Promise<OpenApiDocument>;
        documentsByText.set(response.body, parsed);
      }
      return parsed;
    })();
    documents.set(app, doc);
  }
  return doc;
}

/** "/a//b/" as the router sees it (duplicate and trailing slashes are ignored), split into decoded segments. */
function segmentsOf(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0).map((s) => {
    try { return decodeURIComponent(s); } catch { return s; }
  });
}

/**
 * The OpenAPI path template of the route the router matched: the one whose static segments equal the
 * request's and whose `{name}` segments equal the parameters the router extracted.
 */
function templateFor(doc: OpenApiDocument, method: string, path: string, params: Record<string, string | undefined>): string | undefined {
  const segments = segmentsOf(path);
  const candidates = Object.entries(doc.paths ?? {}).filter(([, item]) => item[method] !== undefined).map(([template]) => template);
  return candidates.find((template) => {
    const parts = template.split('/').filter((s) => s.length > 0);
    if (parts.length !== segments.length) return false;
    return parts.every((part, i) => {
      const param = /^\{(.+)\}$/.exec(part)?.[1];
      return param === undefined ? part === segments[i] : params[param] === segments[i];
    });
  });
}

function essence(contentType: unknown): string {
  return String(contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

const isJsonMedia = (media: string) => media === 'application/json' || media.endsWith('+json');

function preview(body: string): string {
  return body.length > 600 ? `${body.slice(0, 600)}...` : body;
}

function schemaErrors(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? e.keyword}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`).join('; ');
}

const infobipEnvelope = ajv.compile(JSON.parse(JSON.stringify(ErrorEnvelopeSchema)) as object);
const twilioEnvelope = ajv.compile(JSON.parse(JSON.stringify(TwilioErrorSchema)) as object);
const preludeEnvelope = ajv.compile(JSON.parse(JSON.stringify(PreludeErrorSchema)) as object);
const vonageEnvelope = ajv.compile(JSON.parse(JSON.stringify(VonageProblemSchema)) as object);
/** The error body of the dialect a path belongs to (error-envelope.ts's dialectOfPath). */
const envelopeFor = (path: string) => ({ infobip: infobipEnvelope, twilio: twilioEnvelope, prelude: preludeEnvelope, vonage: vonageEnvelope })[dialectOfPath(path)];

/**
 * Throws an Error naming the route, the status and what differs when `response` is not one the
 * OpenAPI document declares for the route that answered it.
 */
export async function assertResponseConforms(app: FastifyInstance, response: ObservedResponse): Promise<void> {
  // Routes exist once the app has booted (inject() boots it; a direct call may come first).
  await app.ready();
  const method = response.method.toUpperCase();
  const path = response.url.split('?')[0] ?? response.url;
  const route = app.findRoute({ method: method as 'GET', url: path });
  const label = `${method} ${response.url} -> ${response.status}`;

  // A path that is not valid percent-encoding (e.g. %ED%A0%80, a lone surrogate) is refused by the
  // router before any route: the answer is a 400 error envelope, in no operation of the document.
  const undecodable = path.split('/').some((s) => { try { decodeURIComponent(s); return false; } catch { return true; } });
  if (undecodable && response.status === 400) {
    let body: unknown;
    try { body = JSON.parse(response.body); } catch { throw new Error(`OpenAPI conformance: ${label}: bad-URL body is not JSON: ${preview(response.body)}`); }
    const envelope = envelopeFor(path);
    if (!envelope(body)) throw new Error(`OpenAPI conformance: ${label}: bad-URL body is not the error envelope: ${schemaErrors(envelope)}`);
    return;
  }

  if (route === null) {
    // No route matched: the not-found handler answered. It is in no operation of the document, but
    // its answer is still the error envelope, and nothing but 404.
    if (response.status !== 404) throw new Error(`OpenAPI conformance: ${label}: no route matches, yet the status is not 404`);
    let body: unknown;
    try { body = JSON.parse(response.body); } catch { throw new Error(`OpenAPI conformance: ${label}: not-found body is not JSON: ${preview(response.body)}`); }
    const envelope = envelopeFor(path);
    if (!envelope(body)) throw new Error(`OpenAPI conformance: ${label}: not-found body is not the error envelope: ${schemaErrors(envelope)}\nbody: ${preview(response.body)}`);
    return;
  }

  // Exempt: the document itself and the interactive docs (HTML, scripts and styles of swagger-ui) are
  // hidden from the document on purpose; openapi-valid.test.ts checks both separately.
  const segments = segmentsOf(path);
  if ((segments.length === 1 && segments[0] === 'openapi.json') || segments[0] === 'docs') return;

  // HEAD is answered by the GET route (without a body); the document lists only GET.
  const opMethod = method === 'HEAD' ? 'get' : method.toLowerCase();
  const doc = await documentOf(app);
  const template = templateFor(doc, opMethod, path, route.params as Record<string, string | undefined>);
  if (template === undefined) throw new Error(`OpenAPI conformance: ${label}: the route that answered has no operation in /openapi.json`);
  const operation = doc.paths![template]![opMethod]!;
  const where = `${opMethod.toUpperCase()} ${template} (${operation.operationId ?? 'no operationId'}) answered ${response.status}`;

  const responses = operation.responses ?? {};
  const status = String(response.status);
  const declared = responses[status] ?? responses[`${status[0]}XX`] ?? responses['default'];
  if (!declared) throw new Error(`OpenAPI conformance: ${where}, which it does not declare (declared: ${Object.keys(responses).join(', ')})\nrequest: ${method} ${response.url}\nbody: ${preview(response.body)}`);

  const content = declared.content ?? {};
  const mediaTypes = Object.keys(content);
  if (method === 'HEAD' || response.body === '') {
    if (method !== 'HEAD' && mediaTypes.length > 0) throw new Error(`OpenAPI conformance: ${where} with an empty body, but declares ${mediaTypes.join(', ')}`);
    return;
  }
  if (mediaTypes.length === 0) throw new Error(`OpenAPI conformance: ${where} with a body, but declares no content\nbody: ${preview(response.body)}`);

  const contentType = essence(response.headers['content-type']);
  const mediaKey = mediaTypes.find((m) => essence(m) === contentType);
  if (mediaKey === undefined) throw new Error(`OpenAPI conformance: ${where} with content type "${contentType}", which it does not declare (declared: ${mediaTypes.join(', ')})`);
  const schema = content[mediaKey]!.schema;
  if (schema === undefined) return;

  let body: unknown = response.body;
  if (isJsonMedia(contentType)) {
    try { body = JSON.parse(response.body); } catch { throw new Error(`OpenAPI conformance: ${where} with a body that is not JSON: ${preview(response.body)}`); }
  }
  const validate = validatorFor(schema);
  if (!validate(body)) {
    throw new Error(`OpenAPI conformance: ${where} with a body that does not match the declared schema: ${schemaErrors(validate)}\nrequest: ${method} ${response.url}\nbody: ${preview(response.body)}`);
  }
}
