// When the next resend to a destination will be let through, for a screen's countdown. Infobip-shaped
// bodies must stay exact, so on /2fa/2 it travels in a header of its own.
import type { FastifyReply } from 'fastify';
import type { SendOutcome } from '../service/send-pin.js';

export const NEXT_RESEND_HEADER = 'x-next-resend-at';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers X-Next-Resend-At (declared in the OpenAPI document). */
    nextResendAt?: boolean;
  }
}

/** Sets `X-Next-Resend-At` (ISO 8601) from a send's or resend's outcome, then gives the body back. */
export function withNextResendAt<T>(reply: FastifyReply, outcome: SendOutcome, body: T): T {
  void reply.header(NEXT_RESEND_HEADER, new Date(outcome.nextResendAt).toISOString());
  return body;
}
