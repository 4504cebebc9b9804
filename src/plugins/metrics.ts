import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { App } from '../app-types.ts';
import { bearerSecretHook } from './auth.ts';

/** The process's Prometheus registry, with Node's own metrics (CPU, memory, event loop, GC). */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Counts every answer of `app` and its latency, by method, route pattern and status. */
export function installRequestMetrics(app: App): void {
  const registry = app.deps.metrics;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL, keeps the label set bounded.
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}

/**
 * GET /metrics in Prometheus text format. With METRICS_TOKEN set it takes that bearer token, and a
 * wrong one counts as a failed authentication of the client's address.
 */
export function installMetricsRoute(app: App): void {
  const { metrics, config } = app.deps;
  const token = config.metrics.token;
  app.get(
    '/metrics',
    {
      schema: { hide: true },
      logLevel: 'warn',
      ...(token ? { onRequest: bearerSecretHook(app, 'metrics token', () => token) } : {}),
    },
    async (_request, reply) => {
      reply.type(metrics.contentType);
      return metrics.metrics();
    },
  );
}
