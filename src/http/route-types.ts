// The shape every route file shares: it receives the typed app and the dependencies, and registers itself.
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Inbox } from '../delivery/log/inbox.js';
import type { BoundProviderCallback } from '../delivery/providers/provider-callback.js';
import type { PrometheusMetrics } from '../observability/metrics.js';
import type { ServiceContext } from '../service/context.js';
import type { DeliveryTracking } from '../service/delivery-tracking.js';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

export interface RouteDeps {
  ctx: ServiceContext;
  inbox: Inbox;
  /** Readiness beyond the database (the delivery worker running, not shutting down). */
  isReady: () => boolean;
  /** Why delivery is degraded (messages wait too long), or undefined; /healthz reports it. Absent: never. */
  deliveryHealth?: () => Promise<string | undefined>;
  metrics: PrometheusMetrics;
  /** Delivery-status callbacks of the configured HTTP SMS providers. */
  callbacks: BoundProviderCallback[];
  /** Where their receipts go: the same use case as the SMPP transport's. */
  receipts: Pick<DeliveryTracking, 'receive'>;
}

export type RegisterRoute = (app: App, deps: RouteDeps) => void;
