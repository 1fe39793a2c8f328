// Twilio's resource ids (SIDs: two letters + 32 lower-case hex) over the engine's own ids. Each maps
// one to one, so nothing has to be stored to find the resource a SID names:
// - an account's SID and an API key's are derived from their ids (a hash: those ids are UUIDs);
// - a Service is an application and a Verification a PIN, both of whose ids are 32 upper-case hex.
import { createHash, randomBytes } from 'node:crypto';

const HEX32 = /^[0-9a-f]{32}$/;

const derivedHex = (kind: string, id: string) => createHash('sha256').update(`twofa-${kind}:${id}`, 'utf8').digest('hex').slice(0, 32);

export function accountSid(accountId: string): string {
  return `AC${derivedHex('account', accountId)}`;
}

/** An API key's SID, derived from its id (never from the key): the user name Twilio takes with a key's secret. */
export function apiKeySid(keyId: string): string {
  return `SK${derivedHex('api-key', keyId)}`;
}

export function serviceSid(applicationId: string): string {
  return `VA${applicationId.toLowerCase()}`;
}

export function verificationSid(pinId: string): string {
  return `VE${pinId.toLowerCase()}`;
}

/** The engine id a SID of the given prefix names, or undefined when the SID is not one. */
function idOf(prefix: string, sid: string): string | undefined {
  if (!sid.startsWith(prefix)) return undefined;
  const hex = sid.slice(2);
  return HEX32.test(hex) ? hex.toUpperCase() : undefined;
}

export const applicationIdOf = (sid: string) => idOf('VA', sid);
export const pinIdOf = (sid: string) => idOf('VE', sid);

/** A message template's SID (a custom template: Twilio's TemplateSid), from its 32 upper-case hex id. */
export function templateSid(messageId: string): string {
  return `HJ${messageId.toLowerCase()}`;
}

export const messageIdOfTemplateSid = (sid: string) => idOf('HJ', sid);

/** A Verification Attempt's SID: the outbox row's id when a message was queued, random otherwise. */
export function attemptSid(deliveryId: string | undefined): string {
  const hex = deliveryId?.replace(/-/g, '').toLowerCase();
  return `VL${hex !== undefined && HEX32.test(hex) ? hex : randomBytes(16).toString('hex')}`;
}
