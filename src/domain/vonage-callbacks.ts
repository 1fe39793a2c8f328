// The callbacks of Vonage Verify v2 (shared/reference/vonage-verify-v2.md, section 11): per-channel
// `event` callbacks and the request's `summary`, JSON POSTed to the Vonage application's callback URL
// and signed as Vonage signs them: `Authorization: Bearer <JWT>`, HS256 keyed with the signature
// secret, whose claims carry `payload_hash`, the SHA-256 (hex) of the exact body sent, so a receiver
// that checked the token with @vonage/jwt's verifySignature can tell the body was not changed.
import { createHash, createHmac, randomUUID } from 'node:crypto';

export const VONAGE_CALLBACK_EVENT = 'vonage.event';
export const VONAGE_CALLBACK_SUMMARY = 'vonage.summary';
export const VONAGE_CALLBACK_TYPES = [VONAGE_CALLBACK_EVENT, VONAGE_CALLBACK_SUMMARY] as const;
export type VonageCallbackType = (typeof VONAGE_CALLBACK_TYPES)[number];

export function isVonageCallback(type: string): type is VonageCallbackType {
  return (VONAGE_CALLBACK_TYPES as readonly string[]).includes(type);
}

/** How a request ended: Vonage's summary `status`. */
export type VonageFinalStatus = 'completed' | 'failed' | 'expired';
/** A workflow step's `status` in the summary. */
export type VonageStepStatus = 'unused' | 'completed' | 'failed' | 'expired' | 'user_rejected';

export interface VonageEventCallback {
  request_id: string;
  triggered_at: string;
  type: 'event';
  channel: string;
  status: VonageFinalStatus;
  finalized_at: string;
  client_ref?: string;
}

export interface VonageSummaryStep {
  channel: string;
  initiated_at?: string;
  status: VonageStepStatus;
}

export interface VonageSummaryCallback {
  request_id: string;
  submitted_at: string;
  status: VonageFinalStatus;
  type: 'summary';
  channel_timeout: number;
  workflow: VonageSummaryStep[];
  finalized_at: string;
  client_ref?: string;
}

/** A step of an ended request as the engine ran it: when it went out (undefined: never), and whether its delivery failed. */
export interface RanStep {
  channel: string;
  initiatedAt: number | undefined;
  failed: boolean;
}

export interface EndedRequest {
  requestId: string;
  clientRef: string | null;
  channelTimeout: number;
  submittedAt: number;
  finalizedAt: number;
  status: VonageFinalStatus;
  steps: RanStep[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The callbacks an ended request sends, in order: the `event` of the channel it ended on (the last
 * one sent), then the `summary`. Steps sent before that one ran out their time (`expired`), unless
 * their delivery failed; steps never sent are `unused`.
 */
export function vonageEndCallbacks(request: EndedRequest): [VonageEventCallback, VonageSummaryCallback] {
  const lastSent = request.steps.reduce((last, step, i) => (step.initiatedAt !== undefined ? i : last), 0);
  const clientRef = request.clientRef === null ? {} : { client_ref: request.clientRef };
  const workflow = request.steps.map((step, i): VonageSummaryStep => {
    if (step.initiatedAt === undefined) return { channel: step.channel, status: 'unused' };
    const status: VonageStepStatus = i === lastSent ? request.status : step.failed ? 'failed' : 'expired';
    return { channel: step.channel, initiated_at: iso(step.initiatedAt), status };
  });
  const event: VonageEventCallback = {
    request_id: request.requestId, triggered_at: iso(request.finalizedAt), type: 'event', channel: request.steps[lastSent]!.channel,
    status: request.status, finalized_at: iso(request.finalizedAt), ...clientRef,
  };
  const summary: VonageSummaryCallback = {
    request_id: request.requestId, submitted_at: iso(request.submittedAt), status: request.status, type: 'summary',
    channel_timeout: request.channelTimeout, workflow, finalized_at: iso(request.finalizedAt), ...clientRef,
  };
  return [event, summary];
}

/** The id the signature secret of a Vonage application is encrypted under (PinKeyring.encryptWebhookSecret). */
export const vonageSignatureSecretId = (applicationId: string) => `vonage-application:${applicationId}`;

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/**
 * `Authorization` of a callback: a JWT (HS256, keyed with the application's signature secret) with
 * Vonage's claims: `iat`, `jti`, `iss` "Vonage", `api_key` and `application_id` (both the twofa
 * application: its id is what a Basic login names as api_key), and `payload_hash`. Made at each
 * attempt, so `iat` is the attempt's time.
 */
export function vonageCallbackAuthorization(secret: string, applicationId: string, body: string, nowSeconds: number): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const claims = base64url(JSON.stringify({
    iat: nowSeconds, jti: randomUUID(), iss: 'Vonage', api_key: applicationId, application_id: applicationId,
    payload_hash: createHash('sha256').update(body, 'utf8').digest('hex'),
  }));
  const signature = createHmac('sha256', secret).update(`${header}.${claims}`).digest('base64url');
  return `Bearer ${header}.${claims}.${signature}`;
}
