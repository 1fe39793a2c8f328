// Time to the phone as the node's health: once the oldest message still waiting for delivery has
// waited longer than TWOFA_DELIVERY_DEGRADED_AFTER, /healthz answers `degraded` with the reason.
// Liveness is not in question (the answer stays 200: restarting a node does not make a provider
// faster), but a monitor or a load balancer's health view sees that users wait for their codes.
/** How long the oldest waiting message has waited; 0 when none waits. */
export function outboxAgeMs(oldestAcceptedAt: number | undefined, now: number): number {
  return oldestAcceptedAt === undefined ? 0 : Math.max(0, now - oldestAcceptedAt);
}

/** Why delivery is degraded, or undefined when it is not. */
export function deliveryHealth(store: { oldestPendingOutboxAt(): Promise<number | undefined> }, degradedAfterMs: number, clock: () => number): () => Promise<string | undefined> {
  return async () => {
    let ageMs: number;
    try {
      ageMs = outboxAgeMs(await store.oldestPendingOutboxAt(), clock());
    } catch {
      return 'the delivery queue cannot be read (database unreachable)';
    }
    if (ageMs <= degradedAfterMs) return undefined;
    return `the oldest queued message has waited ${Math.round(ageMs / 1000)} s for delivery (more than TWOFA_DELIVERY_DEGRADED_AFTER, ${degradedAfterMs / 1000} s)`;
  };
}
