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
  const message =
    limit === 'failed-auth'
      ? `Too many failed authentication attempts from this address (${perMinute} a minute are allowed after a short burst): credentials from it are not checked for ${retryAfterSeconds} s; retry after that with a valid credential`
      : `Rate limit reached: this team may make ${perMinute} ${limit === 'writes' ? 'write requests (POST, PUT, PATCH, DELETE)' : 'API requests'} per minute; retry after ${retryAfterSeconds} s`;
  return new AppError('rate_limited', message, undefined, { 'retry-after': String(retryAfterSeconds) });
}

type AuthHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/**
 * A hook admitting only requests that bear the secret `expected()` returns (the admin token, the
 * metrics token). A wrong one counts as a failed authentication of the client's address, and an
 * address over that limit is refused before the comparison.
 */
export function bearerSecretHook(app: App, name: string, expected: () => string | undefined): AuthHook {
  return (request, _reply, done) => {
    const token = bearerToken(request);
    if (token === undefined) {
      done(new AppError('unauthorized', `Missing credential: send 'Authorization: Bearer <${name}>'`));
      return;
    }
    const { authThrottle } = app.deps;
    if (token !== '') {
      const throttled = authThrottle.check(request.ip);
      if (throttled) {
        done(rateLimited(throttled));
        return;
      }
    }
    const secret = expected();
    if (secret && token && secretsEqual(token, secret)) {
      done();
      return;
    }
    if (token !== '') authThrottle.fail(request.ip);
    done(new AppError('unauthorized', `Invalid ${name}`));
  };
}

/**
 * A hook admitting requests that bear a valid team API key, and (`takeRateLimit`) counting them
 * against the team's rate limit. Every /api route has it; a route outside /api that forwards to an
 * /api route in-process (the OpenAI-compatible door) takes it without the rate limit, which the
 * forwarded call counts.
 */
export function apiKeyAuthHook(app: App, { takeRateLimit }: { takeRateLimit: boolean }): AuthHook {
  return (request, _reply, done) => {
    const token = bearerToken(request);
    if (token === undefined || token === '') {
      done(new AppError('unauthorized', token === undefined ? MISSING : MALFORMED));
      return;
    }
    const { authenticator, authThrottle } = app.deps;
    const finish = (principal: Principal | null): void => {
      if (!principal) {
        authThrottle.fail(request.ip);
        done(new AppError('unauthorized', 'Invalid or revoked API key'));
        return;
      }
      request.principal = principal;
      const limited = takeRateLimit ? app.deps.rateLimiter.take(principal.teamId, request.method) : undefined;
      done(limited ? rateLimited(limited) : undefined);
    };
    // A key verified moments ago passes even while its address is refused: a client that shares
    // its address with someone guessing keys keeps working.
    const cached = authenticator.cached(token);
    if (cached) {
      finish(cached);
      return;
    }
    const throttled = authThrottle.check(request.ip);
    if (throttled) {
      done(rateLimited(throttled));
      return;
    }
    const result = authenticator.authenticate(token);
    if (result instanceof Promise) result.then(finish, done);
    else finish(result);
  };
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
