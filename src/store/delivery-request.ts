// The request a queued message is rendered from: its own module, because both the Store contract
// (store.ts) and the workflow steps (workflow-store.ts, which store.ts imports) name it.
/** What the worker needs, besides the PIN and its template, to render a message at delivery time. */
export interface DeliveryRequest {
  placeholders: Record<string, string>;
  from?: string;
  /**
   * Members of a failover route not to try for this message: those whose earlier message for the
   * PIN a delivery receipt reported undeliverable. Written by service/delivery-tracking.ts, obeyed by
   * delivery/routing; the store keeps it as given.
   */
  skipTransports?: string[];
  /**
   * The locale the send asked for (a dialect's locale field), which picks among the template's
   * locale texts at delivery (domain/template-locales.ts); absent: the number's country decides.
   */
  locale?: string;
}
