// Query and form parameters a request left out stay absent in what a route hands its service:
// services tell an absent field from a present one (a patch leaves it unchanged, a filter does not
// apply), and a key present with the value `undefined` would blur that.

/** `fields` without the members whose value is undefined. */
export function definedFields<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** One header's value, undefined when absent, repeated, empty or longer than `max`. */
function singleHeader(headers: Record<string, string | string[] | undefined>, name: string, max: number): string | undefined {
  const value = headers[name];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed.length > 0 && trimmed.length <= max ? trimmed : undefined;
}

/**
 * The end user a backend names in the optional X-Client-* headers (the caller's own address is its
 * backend's), signals of the risk score (docs/security.md): `X-Client-Ip`, their address;
 * `X-Client-Device-Id`, their device, or without one `X-Client-Session-Id`, their session. A header
 * absent, repeated or too long is left out.
 */
export function clientSignalHeaders(headers: Record<string, string | string[] | undefined>): { address?: string; device?: string } {
  const address = singleHeader(headers, 'x-client-ip', 64);
  const device = singleHeader(headers, 'x-client-device-id', 128) ?? singleHeader(headers, 'x-client-session-id', 128);
  return definedFields({ address, device });
}

/** A numeric parameter (its schema checks the digits), undefined when absent. */
export function numberOrUndefined(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}
