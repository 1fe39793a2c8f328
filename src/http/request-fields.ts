// Query and form parameters a request left out stay absent in what a route hands its service:
// services tell an absent field from a present one (a patch leaves it unchanged, a filter does not
// apply), and a key present with the value `undefined` would blur that.

/** `fields` without the members whose value is undefined. */
export function definedFields<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/**
 * The end user's address a backend names in `X-Client-Ip` (the caller's own address is its backend's):
 * a signal of the risk score. Undefined when absent, repeated or too long to be an address.
 */
export function clientAddressHeader(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers['x-client-ip'];
  if (typeof value !== 'string') return undefined;
  const address = value.trim();
  return address.length > 0 && address.length <= 64 ? address : undefined;
}

/** A numeric parameter (its schema checks the digits), undefined when absent. */
export function numberOrUndefined(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}
