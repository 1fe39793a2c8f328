// Request latency for Prometheus (twofa_http_request_duration_seconds), labelled by route pattern,
// method and status. The pattern, never the raw URL: a URL may carry a destination or a pinId, and
// every distinct label value is a new time series.
import type { PrometheusMetrics } from '../../observability/metrics.js';
import type { App } from '../route-types.js';

export function registerRequestMetrics(app: App, metrics: PrometheusMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpSeconds.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
}
