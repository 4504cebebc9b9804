import type { FastifyRequest } from 'fastify';
import type { App } from '../app-types.ts';
import { databaseUnavailable } from '../db/errors.ts';

/** A request still waiting this long makes the process check that its database answers. */
const STALL_MS = 500;

// What is served without the database: liveness and readiness (which says itself), the metrics,
// the API reference, the console's static files, and stored files (/media/*: read from storage;
// only a file that is missing needs the database, to tell 410 from 404, see app.ts).
const WITHOUT_DATABASE = ['/healthz', '/readyz', '/metrics', '/docs', '/openapi.json', '/console/assets/', '/media/'];

function needsDatabase(url: string): boolean {
  return !WITHOUT_DATABASE.some((prefix) => url.startsWith(prefix));
}

/**
 * While the database does not answer (see db/health.ts), a request that needs it is refused at
 * once, before authentication or anything else touches the pool: 503 service_unavailable with
 * Retry-After. A request still unanswered after STALL_MS has the process check it, so that a
 * database that hangs while requests wait on it is noticed within seconds. A request still
 * sending its body (an upload) waits on its client, not on the database, and one whose answer has
 * started (a live status stream, whose reply is hijacked) no longer waits: neither has the
 * database checked.
 */
export function installDatabaseGate(app: App): void {
  const health = app.deps.databaseHealth;
  const stalls = new WeakMap<FastifyRequest, NodeJS.Timeout>();
  health.onChange((available, err) => {
    if (available) app.log.info('the database answers again: requests are served');
    else app.log.warn({ err }, 'the database does not answer: requests that need it are refused (503)');
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (!needsDatabase(request.url)) {
      done();
      return;
    }
    if (!health.available) {
      done(databaseUnavailable());
      return;
    }
    const stalled = () => {
      if (reply.sent || reply.raw.headersSent || request.raw.destroyed) return;
      if (!request.raw.complete) {
        arm();
        return;
      }
      health.suspect();
    };
    const arm = () => {
      const timer = setTimeout(stalled, STALL_MS);
      timer.unref();
      stalls.set(request, timer);
    };
    arm();
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    clearTimeout(stalls.get(request));
    done();
  });
  app.addHook('onClose', () => health.close());
}
