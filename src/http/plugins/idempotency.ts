// Idempotency keys on every authenticated POST, whatever its dialect (Stripe's `Idempotency-Key`, the
// IETF draft-ietf-httpapi-idempotency-key-header): the first request with a key runs; a repeat with
// the same key, method, path and body within the window gets the first answer again (status, body,
// and the headers a client acts on) without running anything, marked `Idempotent-Replayed: true`; the
// same key on another request is a 422; a repeat while the first still runs is a 409. Keys belong to
// the account of the API key, so two accounts never see each other's.
//
// What is stored: the answer, encrypted under a key derived from TWOFA_SECRET (an answer may carry a
// secret shown once, the key of POST /api/v1/api-keys), and the SHA-256 of the request, never the
// request. Answers worth repeating are stored: 2xx and 4xx, except 429 (nothing was done, and
// Retry-After invites the same request again) and 5xx (the failure was ours; a retry should run).
//
// What one account can make the shared database keep is bounded: at most `maxKeys` keys within
// their window, each answer at most IDEMPOTENCY_ANSWER_MAX_BYTES. A larger refusal (4xx: nothing was
// done, so running it again is harmless) is not kept; a larger success is kept as done without its
// body, so that a repeat still runs nothing (409 IDEMPOTENCY_ANSWER_NOT_KEPT).
//
// Requests without the header pay one header lookup: no query, no hashing.
import type { FailureName } from '../../domain/errors.js';
import { FailureError } from '../error-envelope.js';
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../service/context.js';
import type { App } from '../route-types.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
/** 1 to 255 printable ASCII characters (space to tilde). */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x20-\\x7E]{1,255}$';
const VALID_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);
/** The IETF draft's form, a Structured Field string ("..." with backslash escapes); Stripe's is the bare key. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5B\x5D-\x7E]|\\["\\])*)"$/;

/** The key a header value names: the draft's quoted form and the bare form are one key. Undefined when malformed. */
export function idempotencyKeyOf(value: string | string[]): string | undefined {
  if (typeof value !== 'string') return undefined;
  const quoted = SF_STRING.exec(value);
  const key = quoted ? quoted[1]!.replace(/\\(.)/g, '$1') : value;
  return VALID_KEY.test(key) ? key : undefined;
}

export const DEFAULT_IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;
export const DEFAULT_IDEMPOTENCY_MAX_KEYS = 10_000;
/** The answers worth replaying are small (a send's is under 300 bytes); an echo of a large body is not kept. */
export const IDEMPOTENCY_ANSWER_MAX_BYTES = 4096;

/** The answer headers a replay carries again: those a client acts on. */
const REPLAYED_HEADERS = ['content-type', 'cache-control', 'retry-after', 'location', 'x-next-resend-at'] as const;

interface StoredAnswer {
  headers: Record<string, string>;
  body: string;
  /** A success whose answer was over IDEMPOTENCY_ANSWER_MAX_BYTES: done, and not replayable. */
  notKept?: true;
}

interface Held {
  id: string;
  token: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The idempotency key this request holds while it runs; null without one. */
    idempotency: Held | null;
  }
}

export interface IdempotencyOptions {
  ctx: ServiceContext;
  /** How long a key and its answer are kept (TWOFA_IDEMPOTENCY_WINDOW). */
  windowMs: number;
  /** Keys one account may hold within the window (TWOFA_IDEMPOTENCY_MAX_KEYS). */
  maxKeys: number;
  /**
   * How long a running request holds its key before a repeat may take it over: a node that dies
   * mid-request must not lock the key for the whole window.
   */
  leaseMs: number;
}

function refusal(name: FailureName, text: string, retryAfterMs?: number): FailureError {
  return new FailureError({ name, text, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The request as the key promises it: method, path with query, and the parsed body. */
function fingerprint(request: FastifyRequest): string {
  return sha256(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`);
}

function replay(reply: FastifyReply, status: number, answer: StoredAnswer): FastifyReply {
  for (const [name, value] of Object.entries(answer.headers)) void reply.header(name, value);
  // A string body with its content type set is sent as it was serialised the first time.
  return reply.code(status).header(REPLAYED_HEADER, 'true').send(answer.body);
}

/**
 * Adds the hooks to `app` itself (not an encapsulated child), so that they run for every route,
 * including routes registered later in any plugin. Call before the hook that awaits durability
 * in onSend, so that a stored answer is durable before the client reads it.
 */
export function registerIdempotency(app: App, options: IdempotencyOptions): void {
  const { ctx, windowMs, maxKeys, leaseMs } = options;
  app.decorateRequest('idempotency', null);

  /** Claims the key; true when the request was answered here (a replay) and must go no further. */
  async function claimKey(request: FastifyRequest, reply: FastifyReply, presented: string | string[]): Promise<boolean> {
    const key = idempotencyKeyOf(presented);
    if (key === undefined) throw refusal('IDEMPOTENCY_KEY_INVALID', 'Idempotency-Key must be one value of 1 to 255 printable ASCII characters');
    const id = sha256(`${request.principal.accountId}\n${key}`);
    const token = randomUUID();
    const now = ctx.clock();
    const claim = await ctx.store.idempotency.claim({ id, accountId: request.principal.accountId, fingerprint: fingerprint(request), token, now, leaseUntil: now + leaseMs, expiresAt: now + windowMs, maxLiveKeys: maxKeys });
    switch (claim.kind) {
      case 'claimed':
        request.idempotency = { id, token };
        return false;
      case 'mismatch':
        throw refusal('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with another request (method, path or body); use a new key for a new request');
      case 'running':
        throw refusal('IDEMPOTENCY_KEY_RUNNING', 'A request with this Idempotency-Key is still being processed; retry later');
      case 'answered': {
        const text = ctx.keyring.decryptAnswer(id, claim.answer);
        // An answer stored under a secret no longer configured cannot be replayed, and the request must not run twice.
        if (text === null) throw refusal('IDEMPOTENCY_ANSWER_UNREADABLE', 'The answer stored for this Idempotency-Key cannot be read (TWOFA_SECRET changed); use a new key');
        const answer = JSON.parse(text) as StoredAnswer;
        if (answer.notKept) throw refusal('IDEMPOTENCY_ANSWER_NOT_KEPT', `The request with this Idempotency-Key was done, and its answer was larger than ${IDEMPOTENCY_ANSWER_MAX_BYTES} bytes and not kept; use a new key for a new request`);
        replay(reply, claim.status, answer);
        return true;
      }
      case 'full':
        throw refusal('IDEMPOTENCY_KEYS_FULL', `This account holds ${maxKeys} Idempotency-Keys within their window, at most; retry once the oldest expires, or send without a key`, claim.retryAfterMs);
    }
  }

  /** Stores the answer worth repeating, or gives the key back. */
  async function settleKey(held: Held, reply: FastifyReply, payload: unknown): Promise<void> {
    const status = reply.statusCode;
    if (status >= 500 || status === 429 || typeof payload !== 'string') return ctx.store.idempotency.release(held.id, held.token);
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    let answer = JSON.stringify({ headers, body: payload } satisfies StoredAnswer);
    if (Buffer.byteLength(answer, 'utf8') > IDEMPOTENCY_ANSWER_MAX_BYTES) {
      if (status >= 400) return ctx.store.idempotency.release(held.id, held.token);
      answer = JSON.stringify({ headers: {}, body: '', notKept: true } satisfies StoredAnswer);
    }
    await ctx.store.idempotency.complete(held.id, held.token, status, ctx.keyring.encryptAnswer(held.id, answer));
  }

  // Callback hooks, so that a request without the header passes through without a promise.
  // After authentication and body validation: a malformed request is answered as such, and not kept.
  app.addHook('preHandler', (request, reply, done) => {
    const presented = request.headers[IDEMPOTENCY_HEADER];
    if (presented === undefined || request.method !== 'POST' || !request.principal) return done();
    claimKey(request, reply, presented).then((answered) => { if (!answered) done(); }, (err: Error) => done(err));
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const held = request.idempotency;
    if (held === null) return done(null, payload);
    request.idempotency = null;
    // The answer goes out even if it could not be stored: what the request did is done. The key then
    // stays held until its lease runs out.
    settleKey(held, reply, payload).catch((err: unknown) => request.log.error({ err }, 'could not store the answer of an Idempotency-Key request'))
      .finally(() => done(null, payload));
  });

  // A request that ended without its answer going through onSend gives its key back rather than
  // holding it until the lease runs out.
  app.addHook('onResponse', (request, _reply, done) => {
    const held = request.idempotency;
    if (held === null) return done();
    request.idempotency = null;
    ctx.store.idempotency.release(held.id, held.token).catch((err: unknown) => request.log.error({ err }, 'could not release an Idempotency-Key')).finally(() => done());
  });
}
