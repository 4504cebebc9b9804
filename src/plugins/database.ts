import type { FastifyRequest } from 'fastify';
import type { App } from '../app-types.ts';
import { databaseUnavailable } from './errors.ts';

/** A request still waiting this long makes the process check that its database answers. */
const STALL_MS = 1000;

// What is served without the database: liveness and readiness (which says itself), the metrics,
// the API reference and the console's static files.
const WITHOUT_DATABASE = ['/healthz', '/readyz', '/metrics', '/docs', '/openapi.json', '/console/assets/'];

function needsDatabase(url: string): boolean {
  return !WITHOUT_DATABASE.some((prefix) => url === prefix || url.startsWith(prefix));
}

/**
 * While the database does not answer (see db/health.ts), a request that needs it is refused at
 * once, before authentication or anything else touches the pool: 503 service_unavailable with
 * Retry-After. A request that has waited on the database for STALL_MS has the process check it,
 * so that a database that hangs while requests wait on it is noticed within seconds.
 */
export function installDatabaseGate(app: App): void {
  const health = app.deps.databaseHealth;
  const stalls = new WeakMap<FastifyRequest, NodeJS.Timeout>();
  health.onChange((available, err) => {
    if (available) app.log.info('the database answers again: requests are served');
    else app.log.warn({ err }, 'the database does not answer: requests that need it are refused (503)');
  });
  app.addHook('onRequest', (request, _reply, done) => {
    if (!needsDatabase(request.url)) {
      done();
      return;
    }
    if (!health.available) {
      done(databaseUnavailable());
      return;
    }
    const timer = setTimeout(() => health.suspect(), STALL_MS);
    timer.unref();
    stalls.set(request, timer);
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    clearTimeout(stalls.get(request));
    done();
  });
  app.addHook('onClose', () => health.close());
}
