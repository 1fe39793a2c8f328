// What went wrong, in words an operator can act on, with the API's field errors (validationErrors,
// keyed like `configuration.pinTimeToLive`) kept apart so forms show each beside its field.
import { TwofaApiError } from '../../src/client/index.js';

export interface Problem {
  message: string;
  fields: Record<string, string>;
}

export function problemOf(error: unknown): Problem {
  if (error instanceof TwofaApiError) {
    const fields: Record<string, string> = {};
    for (const [field, messages] of Object.entries(error.validationErrors ?? {})) fields[field] = messages.join('; ');
    const message = error.status === 401 ? 'The API key was not accepted (unknown or revoked). Sign in again.' : error.text;
    return { message, fields };
  }
  if (error instanceof DOMException && error.name === 'TimeoutError') return { message: 'The service did not answer in time. Try again.', fields: {} };
  const passkey = error instanceof Error ? PASSKEY_REFUSALS[error.name] : undefined;
  if (passkey !== undefined) return { message: passkey(), fields: {} };
  return { message: `The service could not be reached (${error instanceof Error ? error.message : String(error)}).`, fields: {} };
}

/** What the browser's passkey ceremonies (navigator.credentials, through @simplewebauthn/browser) refuse with, by error name. */
const PASSKEY_REFUSALS: Record<string, () => string> = {
  NotAllowedError: () => 'The passkey request was cancelled, timed out, or no authenticator answered it.',
  AbortError: () => 'The passkey request was cancelled.',
  SecurityError: () => `The browser refused the relying party for this page: its id must be this page's domain (${window.location.hostname}) or a domain it is under.`,
  InvalidStateError: () => 'This authenticator holds a passkey of this user already.',
};

/** Field errors that no input of the form shows: they go into the form's summary. */
export function unplacedFields(problem: Problem | null, placed: readonly string[]): string[] {
  if (!problem) return [];
  return Object.entries(problem.fields).filter(([field]) => !placed.some((p) => field === p || field.startsWith(`${p}.`))).map(([field, message]) => `${field}: ${message}`);
}
