// Vonage's request ids over the engine's PIN ids, one to one, so nothing is stored to find the PIN an
// id names: the PIN id's 128 bits written as a UUID (lower-case hex, 8-4-4-4-12), the shape of
// Vonage's own request ids. The version and variant nibbles are the PIN id's: clients treat the id as
// an opaque string (the SDK does not parse it).
const PIN_ID = /^[0-9A-F]{32}$/;
const REQUEST_ID = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i;

export function vonageRequestId(pinId: string): string {
  if (!PIN_ID.test(pinId)) throw new Error('a PIN id is 32 upper-case hex characters');
  const hex = pinId.toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The PIN id a Vonage request id names, or undefined when it is not one. */
export function pinIdOfVonageRequestId(requestId: string): string | undefined {
  const match = REQUEST_ID.exec(requestId);
  return match ? match.slice(1).join('').toUpperCase() : undefined;
}

/** A template's or a fragment's id as Vonage writes it: the engine's 32-hex id as a UUID, as a request id is. */
export const vonageResourceId = vonageRequestId;

/** The engine's id a Vonage template or fragment id names; the input itself when it is no UUID (then nothing has it). */
export function resourceIdOfVonageId(id: string): string {
  return pinIdOfVonageRequestId(id) ?? id;
}
