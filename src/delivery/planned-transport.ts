// The one answer to "which transports will this message be tried through?", asked at send time so that
// a budget can charge the price the message will cost before anything is queued (the first of them is
// the one it is priced by). With named transports it is the routes table's plan for the number, in
// order (the cheapest strategy's order included, each named transport by its operator name, as the
// price list names it); else the members of the channel's own DSN by their kind (`smpp`, `log`). The
// price actually charged is recorded at delivery, by the transport that took the message (after a
// failover, another one).
import type { Channel } from '../domain/channels.js';
import type { Routing } from './routing/routing.js';
import { routeLeaves } from './routing/routed-transport.js';
import type { Transport } from './transport.js';

export type PlannedTransports = (channel: Channel, to: string, applicationId: string) => Promise<string[]>;

export function plannedTransportsOf(ownTransports: Partial<Record<Channel, Transport>>, routing?: Pick<Routing, 'plannedTransports'>): PlannedTransports {
  return async (channel, to, applicationId) => {
    if (routing !== undefined) return routing.plannedTransports(channel, to, applicationId);
    const transport = ownTransports[channel];
    return transport === undefined ? [] : routeLeaves(transport).map((t) => t.name);
  };
}
