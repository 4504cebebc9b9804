import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import type { App } from '../app-types.ts';
import { AppError } from '../lib/errors.ts';
import type { RateLimited } from '../lib/rate-limiter.ts';
import { errorResponses } from '../lib/schemas.ts';
import { secretsEqual } from '../lib/secrets.ts';
import type { Principal } from '../modules/api-keys/authenticator.ts';

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

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

const MISSING = "Missing credential: send the header 'Authorization: Bearer <API key>'";
const MALFORMED = "Malformed Authorization header: use 'Bearer <API key>'";

function rateLimited({ limit, perMinute, retryAfterSeconds }: RateLimited): AppError {
  const what = limit === 'writes' ? 'write requests (POST, PUT, PATCH, DELETE)' : 'API requests';
  return new AppError(
    'rate_limited',
    `Rate limit reached: this team may make ${perMinute} ${what} per minute; retry after ${retryAfterSeconds} s`,
    undefined,
    { 'retry-after': String(retryAfterSeconds) },
  );
}

/**
 * Puts authentication (and, after the key, the team's rate limits) in front of every route by its
 * path prefix, before the body is read, and records the route table (for the docs' security and
 * for tests that sweep every route).
 */
export function installAuth(app: App, routeTable: RegisteredRoute[]): void {
  app.decorateRequest('principal', null as never);

  const apiKeyHook = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const token = bearerToken(request);
    if (token === undefined || token === '') {
      done(new AppError('unauthorized', token === undefined ? MISSING : MALFORMED));
      return;
    }
    const finish = (principal: Principal | null): void => {
      if (!principal) {
        done(new AppError('unauthorized', 'Invalid or revoked API key'));
        return;
      }
      request.principal = principal;
      const limited = app.deps.rateLimiter.take(principal.teamId, request.method);
      done(limited ? rateLimited(limited) : undefined);
    };
    const result = app.deps.authenticator.authenticate(token);
    if (result instanceof Promise) result.then(finish, done);
    else finish(result);
  };

  const adminHook = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const token = bearerToken(request);
    const expected = app.deps.adminToken;
    if (token === undefined)
      done(new AppError('unauthorized', "Missing credential: send 'Authorization: Bearer <admin token>'"));
    else if (!expected || !token || !secretsEqual(token, expected))
      done(new AppError('unauthorized', 'Invalid admin token'));
    else done();
  };

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
      // Every team route may answer 429 once the team passes its rate limit.
      if (auth === 'api-key' && route.schema.response) {
        route.schema.response = { ...(route.schema.response as object), ...errorResponses(429) };
      }
    }
  });
}
