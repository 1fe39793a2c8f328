// The rules of a passkey factor that need no I/O: the relying party a passkey is bound to and the
// authenticator criteria it is made with, merged from the request over the Service's `Passkeys.*`
// settings (Twilio's order: a factor's own `config` wins), and checked before any ceremony starts.
// The ceremonies themselves (options, attestation, assertion) are service/webauthn.ts.

export const AUTHENTICATOR_ATTACHMENTS = ['platform', 'cross-platform', 'any'] as const;
export const REQUIREMENT_LEVELS = ['required', 'preferred', 'discouraged'] as const;
export type AuthenticatorAttachment = (typeof AUTHENTICATOR_ATTACHMENTS)[number];
export type RequirementLevel = (typeof REQUIREMENT_LEVELS)[number];

/** A passkey factor's settings as Twilio answers them (`config` of a passkeys factor). */
export interface PasskeyConfig {
  relying_party: { id: string; name: string; origins: string[] };
  authenticator_attachment: AuthenticatorAttachment;
  discoverable_credentials: RequirementLevel;
  user_verification: RequirementLevel;
}

/** Settings given in part: by the Service (`Passkeys.*`) or by one request (`config`). */
export interface PasskeyConfigPatch {
  relying_party?: { id?: string | null; name?: string | null; origins?: readonly string[] | null } | null;
  authenticator_attachment?: string | null;
  discoverable_credentials?: string | null;
  user_verification?: string | null;
}

/** How long a registration may take (Twilio's options say 600000 ms). */
export const REGISTRATION_TIMEOUT_MS = 10 * 60_000;
/** A Twilio challenge lives 5 minutes unless it says otherwise, and at most 60. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** The settings (relying party, origins) are bounded: they are echoed in every answer. */
export const ORIGINS_MAX = 10;
const NAME_MAX = 64;

export type PasskeyConfigOutcome =
  | { ok: true; config: PasskeyConfig }
  | { ok: false; problem: 'criteria'; fields: string[] }
  | { ok: false; problem: 'invalid'; errors: Record<string, string> };

const present = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined && value !== '';

/**
 * What is wrong with settings given in part (a Service's, or a request's merged over them), by field:
 * the relying party id a domain, each origin on it, the criteria among their values. Missing fields
 * are not errors here.
 */
export function passkeySettingsErrors(settings: PasskeyConfigPatch): Record<string, string> {
  const errors: Record<string, string> = {};
  const rp = settings.relying_party ?? {};
  const rpIdProblem = present(rp.id) ? relyingPartyIdProblem(rp.id) : undefined;
  if (rpIdProblem) errors['relying_party.id'] = rpIdProblem;
  const origins = rp.origins ?? [];
  if (origins.length > ORIGINS_MAX) errors['relying_party.origins'] = `at most ${ORIGINS_MAX} origins`;
  else if (present(rp.id) && !rpIdProblem) {
    const problem = origins.map((o) => originProblem(o, rp.id!)).find((p) => p !== undefined);
    if (problem) errors['relying_party.origins'] = problem;
  }
  if (present(rp.name) && rp.name.length > NAME_MAX) errors['relying_party.name'] = `at most ${NAME_MAX} characters`;
  const oneOf = (field: string, value: string | null | undefined, allowed: readonly string[]) => {
    if (present(value) && !allowed.includes(value)) errors[field] = `one of ${allowed.join(', ')}`;
  };
  oneOf('authenticator_attachment', settings.authenticator_attachment, AUTHENTICATOR_ATTACHMENTS);
  oneOf('discoverable_credentials', settings.discoverable_credentials, REQUIREMENT_LEVELS);
  oneOf('user_verification', settings.user_verification, REQUIREMENT_LEVELS);
  return errors;
}

/**
 * The effective settings of a new passkey: each field from the request, else from the Service.
 * The relying party must name an id and origins (the name defaults to the id); the three criteria
 * have no default, as Twilio's (60393 when neither gives one).
 */
export function effectivePasskeyConfig(service: PasskeyConfigPatch, request: PasskeyConfigPatch | undefined): PasskeyConfigOutcome {
  const pick = <K extends 'authenticator_attachment' | 'discoverable_credentials' | 'user_verification'>(key: K) => (present(request?.[key]) ? request?.[key] : service[key]) ?? undefined;
  const rp = {
    id: present(request?.relying_party?.id) ? request.relying_party.id : service.relying_party?.id,
    name: present(request?.relying_party?.name) ? request.relying_party.name : service.relying_party?.name,
    origins: request?.relying_party?.origins ?? service.relying_party?.origins,
  };
  const attachment = pick('authenticator_attachment');
  const discoverable = pick('discoverable_credentials');
  const verification = pick('user_verification');
  const errors = passkeySettingsErrors({ relying_party: rp, authenticator_attachment: attachment, discoverable_credentials: discoverable, user_verification: verification });
  if (!present(rp.id)) errors['relying_party.id'] ??= 'is required: set the Service\'s Passkeys.RelyingParty.Id or config.relying_party.id';
  const origins = rp.origins ?? [];
  if (origins.length === 0) errors['relying_party.origins'] ??= 'is required: set the Service\'s Passkeys.RelyingParty.Origins or config.relying_party.origins';
  if (Object.keys(errors).length > 0) return { ok: false, problem: 'invalid', errors };
  const missing = ([['authenticator_attachment', attachment], ['discoverable_credentials', discoverable], ['user_verification', verification]] as const)
    .filter(([, v]) => !present(v)).map(([k]) => k);
  if (missing.length > 0) return { ok: false, problem: 'criteria', fields: missing };
  return {
    ok: true,
    config: {
      relying_party: { id: rp.id!.toLowerCase(), name: present(rp.name) ? rp.name : rp.id!, origins: origins.map(normalOrigin) },
      authenticator_attachment: attachment as AuthenticatorAttachment,
      discoverable_credentials: discoverable as RequirementLevel,
      user_verification: verification as RequirementLevel,
    },
  };
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** A relying party id is a domain (browsers refuse IP addresses), without scheme or port. */
export function relyingPartyIdProblem(id: string): string | undefined {
  if (!DOMAIN.test(id) || IPV4.test(id)) return 'must be a domain name such as example.com (no scheme, port or IP address)';
  return undefined;
}

/** An origin is scheme://host[:port], https (http only for localhost), its host the relying party id or under it. */
export function originProblem(origin: string, rpId: string): string | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return `${origin} is not an origin (https://host[:port])`;
  }
  if (url.origin !== normalOrigin(origin)) return `${origin} is not an origin: scheme://host[:port], no path`;
  const host = url.hostname.toLowerCase();
  const local = host === 'localhost' || host.endsWith('.localhost');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) return `${origin} must be https (http only on localhost)`;
  const id = rpId.toLowerCase();
  if (host !== id && !host.endsWith(`.${id}`)) return `${origin} is not on the relying party ${rpId} (its host must be ${rpId} or end with .${rpId})`;
  return undefined;
}

/** An origin as browsers write it in clientDataJSON: no trailing slash, lower-case scheme and host. */
export function normalOrigin(origin: string): string {
  return origin.replace(/\/+$/, '').replace(/^[a-z]+:\/\/[^/:]+/i, (head) => head.toLowerCase());
}

/** Whether a user verification level makes the authenticator's UV flag mandatory. */
export const userVerificationRequired = (level: RequirementLevel) => level === 'required';

/** The WebAuthn authenticatorSelection for a config (Twilio's options carry `requireResidentKey` too). */
export function authenticatorSelectionOf(config: PasskeyConfig) {
  return {
    ...(config.authenticator_attachment !== 'any' ? { authenticatorAttachment: config.authenticator_attachment } : {}),
    requireResidentKey: config.discoverable_credentials === 'required',
    residentKey: config.discoverable_credentials,
    userVerification: config.user_verification,
  };
}

/**
 * The challenge a client says it answered: base64url `challenge` of its clientDataJSON, untrusted
 * (only a lookup key: the ceremony's own checks compare it with the stored one). Undefined when the
 * data is not base64url JSON with a string challenge of sane length.
 */
export function claimedChallenge(clientDataJSON: unknown): string | undefined {
  if (typeof clientDataJSON !== 'string' || clientDataJSON.length > 8192 || !/^[A-Za-z0-9_-]+={0,2}$/.test(clientDataJSON)) return undefined;
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)['challenge'] : undefined;
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 256 ? challenge : undefined;
  } catch {
    return undefined;
  }
}
