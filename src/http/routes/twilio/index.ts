// The Twilio Verify v2 dialect under /v2, in a plugin of its own: its routes alone parse
// form-encoded bodies (Twilio's), and every route of it declares the dialect, so that its errors
// are Twilio's (error-envelope.ts) and it authenticates with HTTP Basic (plugins/auth.ts).
import type { RegisterRoute } from '../../route-types.js';
import createBucket from './create-bucket.js';
import createMessagingConfiguration from './create-messaging-configuration.js';
import createRateLimit from './create-rate-limit.js';
import createSafeListNumber from './create-safe-list-number.js';
import createService from './create-service.js';
import createVerification from './create-verification.js';
import createVerificationCheck from './create-verification-check.js';
import deleteBucket from './delete-bucket.js';
import deleteMessagingConfiguration from './delete-messaging-configuration.js';
import deleteRateLimit from './delete-rate-limit.js';
import deleteSafeListNumber from './delete-safe-list-number.js';
import deleteService from './delete-service.js';
import fetchAttempt from './fetch-attempt.js';
import fetchAttemptsSummary from './fetch-attempts-summary.js';
import fetchBucket from './fetch-bucket.js';
import fetchMessagingConfiguration from './fetch-messaging-configuration.js';
import fetchRateLimit from './fetch-rate-limit.js';
import fetchSafeListNumber from './fetch-safe-list-number.js';
import fetchService from './fetch-service.js';
import fetchVerification from './fetch-verification.js';
import listAttempts from './list-attempts.js';
import listBuckets from './list-buckets.js';
import listMessagingConfigurations from './list-messaging-configurations.js';
import listRateLimits from './list-rate-limits.js';
import listServices from './list-services.js';
import listTemplates from './list-templates.js';
import updateBucket from './update-bucket.js';
import updateMessagingConfiguration from './update-messaging-configuration.js';
import updateRateLimit from './update-rate-limit.js';
import updateService from './update-service.js';
import updateVerification from './update-verification.js';
import createWebhook from './create-webhook.js';
import deleteWebhook from './delete-webhook.js';
import fetchWebhook from './fetch-webhook.js';
import listWebhooks from './list-webhooks.js';
import updateWebhook from './update-webhook.js';
import createPasskeysFactor from './create-passkeys-factor.js';
import verifyPasskeysFactor from './verify-passkeys-factor.js';
import createPasskeysChallenge from './create-passkeys-challenge.js';
import approvePasskeysChallenge from './approve-passkeys-challenge.js';
import { FACTOR_ROUTES } from './factors/index.js';

const TWILIO_ROUTES: RegisterRoute[] = [
  createService, listServices, fetchService, updateService, deleteService,
  createVerification, fetchVerification, updateVerification, createVerificationCheck,
  createRateLimit, listRateLimits, fetchRateLimit, updateRateLimit, deleteRateLimit,
  createBucket, listBuckets, fetchBucket, updateBucket, deleteBucket,
  listAttempts, fetchAttempt, fetchAttemptsSummary, listTemplates,
  createSafeListNumber, fetchSafeListNumber, deleteSafeListNumber,
  createMessagingConfiguration, listMessagingConfigurations, fetchMessagingConfiguration, updateMessagingConfiguration, deleteMessagingConfiguration,
  createWebhook, listWebhooks, fetchWebhook, updateWebhook, deleteWebhook,
  createPasskeysFactor, verifyPasskeysFactor, createPasskeysChallenge, approvePasskeysChallenge,
  ...FACTOR_ROUTES,
];

/** Form bodies as the SDKs send them: a repeated key becomes an array of its values. */
export function parseForm(body: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const current = out[key];
    out[key] = current === undefined ? value : Array.isArray(current) ? [...current, value] : [current, value];
  }
  return out;
}

const register: RegisterRoute = (app, deps) => {
  app.register(async (twilio) => {
    twilio.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, parseForm(body as string)));
    for (const route of TWILIO_ROUTES) route(twilio, deps);
  });
};
export default register;
