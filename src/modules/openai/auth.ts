// The door's credential: the team API key, as every /api route takes it. The auth plugin guards
// routes by path prefix (/api, /admin), so the door checks the key itself, against the same
// authenticator and failed-authentication throttle. A route that forwards to a native endpoint
// leaves the team's rate limit to that call (one request, one token); the others take it here.
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { App } from '../../app-types.ts';
import { AppError } from '../../lib/errors.ts';
import type { RateLimited } from '../../lib/rate-limiter.ts';
import type { Principal } from '../api-keys/authenticator.ts';

function rateLimited({ limit, perMinute, retryAfterSeconds }: RateLimited): AppError {
  const message =
    limit === 'failed-auth'
      ? `Too many failed authentications from this address (${perMinute} a minute); retry after ${retryAfterSeconds} s with a valid API key`
      : `Rate limit reached: this team may make ${perMinute} ${limit === 'writes' ? 'write requests' : 'API requests'} per minute; retry after ${retryAfterSeconds} s`;
  return new AppError('rate_limited', message, undefined, { 'retry-after': String(retryAfterSeconds) });
}

function bearerToken(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

/** An onRequest hook admitting requests with a valid team API key (`takeRateLimit`: count it here). */
export function apiKeyAuth(app: App, { takeRateLimit }: { takeRateLimit: boolean }): onRequestHookHandler {
  return async (request) => {
    const token = bearerToken(request);
    if (token === undefined) {
      throw new AppError(
        'unauthorized',
        "Missing or malformed credential: send 'Authorization: Bearer <API key>' (the OpenAI client's apiKey)",
      );
    }
    const { authenticator, authThrottle, rateLimiter } = app.deps;
    let principal: Principal | null | undefined = authenticator.cached(token);
    if (!principal) {
      const throttled = authThrottle.check(request.ip);
      if (throttled) throw rateLimited(throttled);
      principal = await authenticator.authenticate(token);
    }
    if (!principal) {
      authThrottle.fail(request.ip);
      throw new AppError('unauthorized', 'Invalid or revoked API key');
    }
    request.principal = principal;
    const limited = takeRateLimit ? rateLimiter.take(principal.teamId, request.method) : undefined;
    if (limited) throw rateLimited(limited);
  };
}
