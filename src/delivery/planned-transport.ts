// The one answer to "which transport will this message be handed first?", asked at send time so that a
// budget can charge the price the message will cost before anything is queued. Today it is the first
// delivering member of the channel's transport (a failover route's first leaf); with a routes table by
// country it is the first transport of the route the number falls in. The price actually charged is
// recorded at delivery, by the transport that took the message (after a failover, another one).
import type { Channel } from '../domain/channels.js';
import { routeLeaves } from './routing/routed-transport.js';
import type { Transport } from './transport.js';

export function plannedTransportOf(transports: Partial<Record<Channel, Transport>>): (channel: Channel, to: string) => string | undefined {
  return (channel) => {
    const transport = transports[channel];
    return transport === undefined ? undefined : routeLeaves(transport)[0]?.name;
  };
}
