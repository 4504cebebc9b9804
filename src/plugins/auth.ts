import type { RouteOptions } from 'fastify';
import type { App } from '../app-types.ts';
import { errorResponses } from '../lib/schemas.ts';
import { apiKeyAuthHook, bearerSecretHook } from '../modules/api-keys/hooks.ts';

export type AuthMode = 'api-key' | 'admin' | 'none';

export interface RegisteredRoute {
  method: string;
  url: string;
  auth: AuthMode;
}

/** Which credential a path takes: the public API a team key, the admin API the admin token. */
export function authModeOf(url: string): AuthMode {
  if (url.startsWith('/api/')) return 'api-key';
  if (url.startsWith('/admin/')) return 'admin';
  return 'none';
}

/**
 * Puts authentication (and, after the key, the team's rate limits) in front of every route by its
 * path prefix, before the body is read, and records the route table (for the docs' security and
 * for tests that sweep every route). Every wrong credential counts against the client's address
 * (see AuthFailureThrottle).
 */
export function installAuth(app: App, routeTable: RegisteredRoute[]): void {
  app.decorateRequest('principal', null as never);

  const apiKeyHook = apiKeyAuthHook(app, { takeRateLimit: true });

  const adminHook = bearerSecretHook(app, 'admin token', () => app.deps.adminToken);

  app.addHook('onRoute', (route: RouteOptions) => {
    const auth = authModeOf(route.url);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) if (method !== 'HEAD') routeTable.push({ method, url: route.url, auth });
    if (auth === 'none') return;
    route.config = { ...(route.config as object), auth };
    const existing = route.onRequest ? [route.onRequest].flat() : [];
    route.onRequest = [auth === 'api-key' ? apiKeyHook : adminHook, ...existing];
    if (route.schema && !route.schema.hide) {
      (route.schema as Record<string, unknown>).security = [{ [auth === 'api-key' ? 'apiKey' : 'adminToken']: [] }];
      // Every route with a credential may answer 429: past the team's rate limit, or after too
      // many failed authentications from the client's address; and 503 while the database (which
      // every credential check may need) cannot be reached.
      if (route.schema.response) {
        route.schema.response = { ...(route.schema.response as object), ...errorResponses(429, 503) };
      }
    }
  });
}
