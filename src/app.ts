import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import type pg from 'pg';
import type { App, Deps } from './app-types.ts';
import { loadCreditPlans } from './catalog/plans.ts';
import type { Config } from './config.ts';
import { ErrorBody } from './lib/schemas.ts';
import apiKeyAdminRoutes from './modules/api-keys/admin-routes.ts';
import { ApiKeyAuthenticator } from './modules/api-keys/authenticator.ts';
import billingRoutes from './modules/billing/routes.ts';
import creditAdminRoutes from './modules/credits/admin-routes.ts';
import healthRoutes from './modules/health/routes.ts';
import teamAdminRoutes from './modules/teams/admin-routes.ts';
import workspaceRoutes, { workspaceAdminRoutes } from './modules/workspaces/routes.ts';
import { installAuth, type RegisteredRoute } from './plugins/auth.ts';
import { installErrorHandling } from './plugins/errors.ts';
import { installMetrics } from './plugins/metrics.ts';
import { installOpenApi } from './plugins/openapi.ts';
import { installValidators } from './plugins/validation.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface BuiltApp {
  app: App;
  /** Every route registered, with the credential it takes. */
  routes: RegisteredRoute[];
}

/** Builds the HTTP application on an existing pool; listening and closing belong to the caller. */
export async function buildApp(config: Config, pool: pg.Pool, adminToken: string | undefined): Promise<BuiltApp> {
  const app = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: config.jsonBodyLimit,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomBytes(10).toString('hex')}`;
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 200 },
  }).withTypeProvider() as unknown as App;

  const deps: Deps = {
    config,
    pool,
    authenticator: new ApiKeyAuthenticator(pool, config.authCacheTtlMs),
    plans: loadCreditPlans(),
    adminToken,
  };
  app.decorate('deps', deps);

  app.addSchema(ErrorBody);
  installValidators(app, [ErrorBody]);
  installErrorHandling(app);

  // While shutting down, answers close their connection so that keep-alive clients do not hold
  // the server open after their in-flight request is done.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  const routes: RegisteredRoute[] = [];
  installAuth(app, routes);
  installMetrics(app);
  await installOpenApi(app);

  await app.register(healthRoutes);
  await app.register(billingRoutes);
  await app.register(workspaceRoutes);
  await app.register(teamAdminRoutes);
  await app.register(apiKeyAdminRoutes);
  await app.register(creditAdminRoutes);
  await app.register(workspaceAdminRoutes);

  await app.ready();
  return { app, routes };
}
