// The credential checks in front of routes: a team's API key (and its rate limits), or a bearer
// secret (the admin token, the metrics token). plugins/auth.ts puts them in front of every route
// by its path; a module that forwards in-process (the OpenAI-compatible door) takes one itself.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { App } from '../../app-types.ts';
import { AppError } from '../../lib/errors.ts';
import type { RateLimited } from '../../lib/rate-limiter.ts';
import { secretsEqual } from '../../lib/secrets.ts';
import type { Principal } from './authenticator.ts';

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

export type AuthHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

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
