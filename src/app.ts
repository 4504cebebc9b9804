import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { App, Deps } from './app-types.ts';
import { databaseUnavailable } from './db/errors.ts';
import { isPurgedKey } from './engine/retention.ts';
import { GenerationStatusRecord } from './engine/status.ts';
import { readKeptText } from './engine/text-results.ts';
import { closeIfBodyUnread } from './lib/early-answer.ts';
import { ErrorBody } from './lib/schemas.ts';
import apiKeyAdminRoutes from './modules/api-keys/admin-routes.ts';
import billingRoutes from './modules/billing/routes.ts';
import consoleRoutes from './modules/console/routes.ts';
import credentialAdminRoutes from './modules/credentials/admin-routes.ts';
import creditAdminRoutes from './modules/credits/admin-routes.ts';
import desktopProjectsRoutes from './modules/desktop-projects/routes.ts';
import { createGenerationWatch } from './modules/generations/events.ts';
import generationRoutes from './modules/generations/routes.ts';
import healthRoutes from './modules/health/routes.ts';
import imageRoutes from './modules/images/routes.ts';
import influencerRoutes from './modules/influencers/routes.ts';
import { startInstanceHeartbeat } from './modules/instances/service.ts';
import liveConfigAdminRoutes from './modules/live-config/admin-routes.ts';
import { applyConfigFile } from './modules/live-config/config-file.ts';
import liveRoutesAdminRoutes from './modules/live-config/routes-admin.ts';
import modelRoutes from './modules/models/routes.ts';
import model3dRoutes from './modules/models3d/routes.ts';
import musicRoutes from './modules/music/routes.ts';
import openAiRoutes from './modules/openai/routes.ts';
import paymentsRoutes from './modules/payments/routes.ts';
import providerWebhookRoutes from './modules/provider-webhooks/routes.ts';
import reportAdminRoutes from './modules/reports/admin-routes.ts';
import speechRoutes from './modules/speech/routes.ts';
import storyboardsRoutes from './modules/storyboards/routes.ts';
import teamAdminRoutes from './modules/teams/admin-routes.ts';
import textRoutes from './modules/text/routes.ts';
import providerAdminRoutes from './modules/vendor-admin/admin-routes.ts';
import videoRoutes from './modules/videos/routes.ts';
import voiceRoutes from './modules/voices/routes.ts';
import webhookRoutes from './modules/webhooks/routes.ts';
import workspaceRoutes, { workspaceAdminRoutes } from './modules/workspaces/routes.ts';
import { installAuth, type RegisteredRoute } from './plugins/auth.ts';
import { installDatabaseGate } from './plugins/database.ts';
import { installErrorHandling } from './plugins/errors.ts';
import { installIdempotency } from './plugins/idempotency.ts';
import { installMetricsRoute, installRequestMetrics } from './plugins/metrics.ts';
import { installOpenApi } from './plugins/openapi.ts';
import { installTracing } from './plugins/tracing.ts';
import { installValidators } from './plugins/validation.ts';
import { mediaRoutes } from './storage/index.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Where the request log goes instead of stdout (tests read it). */
export interface LogStream {
  write(line: string): void;
}

// Query values that are credentials wherever they appear.
const SECRET_PARAM = /(token|key|secret|sig|signature|password)/i;

/**
 * A request's URL as the log shows it: the query of a vendor's webhook (its credentials) is
 * replaced whole, and elsewhere the values of credential-like parameters.
 */
export function loggedUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const path = url.slice(0, at);
  if (path.startsWith('/webhooks/')) return `${path}?[redacted]`;
  const query = new URLSearchParams(url.slice(at + 1));
  for (const name of new Set(query.keys())) if (SECRET_PARAM.test(name)) query.set(name, '[redacted]');
  return `${path}?${query.toString().replaceAll('%5Bredacted%5D', '[redacted]')}`;
}

/** Fastify's request serializer, with the URL's credentials left out. */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: loggedUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export interface BuiltApp {
  app: App;
  /** Every route registered, with the credential it takes. */
  routes: RegisteredRoute[];
}

/**
 * A Fastify instance on the shared dependencies, with the service's request ids (echoed in
 * x-request-id) and client address rule.
 */
function createFastify(
  deps: Deps,
  options: Pick<FastifyServerOptions, 'bodyLimit' | 'routerOptions'> = {},
  logStream?: LogStream,
): App {
  const { config } = deps;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      ...(logStream ? { stream: logStream } : {}),
      serializers: { req: serializeRequest },
    },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomBytes(10).toString('hex')}`;
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // request.ip: the client's address, as the trusted proxies in front of us name it.
    trustProxy: config.trustProxy,
    ...options,
  }).withTypeProvider() as unknown as App;
  app.decorate('deps', deps);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  return app;
}

/**
 * Builds the HTTP application on the shared dependencies; listening and closing belong to the
 * caller. /metrics is among its routes unless METRICS_PORT gives it a listener of its own.
 */
export async function buildApp(deps: Deps, options: { logStream?: LogStream | undefined } = {}): Promise<BuiltApp> {
  const { config } = deps;
  const app = createFastify(
    deps,
    { bodyLimit: config.jsonBodyLimit, routerOptions: { maxParamLength: 200 } },
    options.logStream,
  );
  installTracing(app);
  // The process's liveness row: Idempotency-Key claims it takes are released when it stops beating.
  const heartbeat = await startInstanceHeartbeat(deps.pool, deps.instanceId, 'api', (err) =>
    app.log.warn({ err }, 'instance heartbeat failed'),
  );
  app.addHook('onClose', () => heartbeat.stop());
  // The operator's configuration file, applied before the live configuration is read (nothing
  // changes when it matches what is set; a bad file stops the start with the path at fault).
  if (deps.config.configFile) await applyConfigFile(deps, deps.config.configFile, app.log);
  // The operator's live changes: read now, and again whenever a process announces one.
  await deps.live.start(app.log);
  app.addHook('onClose', () => deps.live.stop());
  await deps.credentials.start(app.log);
  app.addHook('onClose', () => deps.credentials.stop());
  // Revoked API keys, heard as they are revoked, so that verified keys can be trusted longer.
  await deps.authenticator.start(app.log);
  app.addHook('onClose', () => deps.authenticator.stop());
  // Synchronous requests waiting for room in their team's cap (listening only once one waits).
  deps.work.rooms.log = app.log;
  app.addHook('onClose', () => deps.work.rooms.stop());

  app.addSchema(ErrorBody);
  app.addSchema(GenerationStatusRecord);
  installValidators(app, [ErrorBody, GenerationStatusRecord]);
  installErrorHandling(app);

  // While shutting down, answers close their connection so that keep-alive clients do not hold
  // the server open after their in-flight request is done; so does an answer given before the
  // whole request body arrived (with a lingering close, see early-answer.ts).
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    closeIfBodyUnread(request, reply);
    done(null, payload);
  });

  const routes: RegisteredRoute[] = [];
  installDatabaseGate(app);
  installAuth(app, routes);
  installRequestMetrics(app);
  if (config.metrics.port === undefined) installMetricsRoute(app);
  installIdempotency(app);
  await installOpenApi(app);

  await app.register(healthRoutes);
  await app.register(billingRoutes);
  await app.register(modelRoutes);
  await app.register(imageRoutes);
  await app.register(videoRoutes);
  await app.register(musicRoutes);
  await app.register(model3dRoutes);
  await app.register(textRoutes);
  await app.register(speechRoutes);
  await app.register(influencerRoutes);
  await app.register(voiceRoutes);
  await app.register(desktopProjectsRoutes);
  await app.register(storyboardsRoutes);
  await app.register(paymentsRoutes);
  await app.register(providerWebhookRoutes);
  const watch = createGenerationWatch(app);
  await app.register(generationRoutes, { watch });
  await app.register(webhookRoutes);
  await app.register(openAiRoutes);
  await app.register(mediaRoutes, {
    storage: deps.storage,
    signer: deps.mediaSigner,
    // Served while the database does not answer (the gate lets /media/* through); only a missing
    // file needs it, to tell 410 from 404, and is then a 503 rather than a wait on the database.
    expired: (key) =>
      deps.databaseHealth.available ? isPurgedKey(deps.pool, key) : Promise.reject(databaseUnavailable()),
    kept: (key) =>
      deps.databaseHealth.available ? readKeptText(deps.pool, key) : Promise.reject(databaseUnavailable()),
  });
  await app.register(workspaceRoutes);
  await app.register(teamAdminRoutes);
  await app.register(liveConfigAdminRoutes);
  await app.register(liveRoutesAdminRoutes);
  await app.register(credentialAdminRoutes);
  await app.register(providerAdminRoutes);
  await app.register(reportAdminRoutes);
  await app.register(apiKeyAdminRoutes);
  await app.register(creditAdminRoutes);
  await app.register(workspaceAdminRoutes);
  await app.register(consoleRoutes, { watch });

  await app.ready();
  return { app, routes };
}

/** The listener of METRICS_PORT: GET /metrics alone, answering errors like the API. */
export async function buildMetricsApp(deps: Deps): Promise<App> {
  const app = createFastify(deps);
  installErrorHandling(app);
  installMetricsRoute(app);
  await app.ready();
  return app;
}
