import type { FastifyRequest } from 'fastify';
import type { App } from '../app-types.ts';
import { isDryRun } from '../lib/dry-run.ts';
import { AppError } from '../lib/errors.ts';
import {
  type ClaimHold,
  ClaimsInFlight,
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseGhostClaims,
  releaseIdempotencyKey,
  requestHash,
} from '../modules/idempotency/service.ts';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const GHOST_CHECK_MS = 5000;

/**
 * `Idempotency-Key` on every POST of the public API: the same key with the same body within
 * 24 h replays the first response (without doing the work again), another body is a 422 and a
 * key still in flight a 409. Work that has its own transaction stores the response inside it (see
 * the engine); for the rest the response is stored when it is sent. Streamed (multipart) uploads
 * cannot be fingerprinted, so the key is ignored there; so is a dry run (`Prefer: dry-run`), which
 * does nothing to replay, and so is a route whose answer holds a secret (it is never stored).
 */
export function installIdempotency(app: App): void {
  app.decorateRequest('idempotency', null);
  const inFlight = new ClaimsInFlight();
  const holders = new WeakMap<FastifyRequest, ClaimHold>();
  // A claim the database wrote after its request gave up (the database hung, then ran the
  // statement when it resumed) has a live owner and no request: such claims are released within
  // GHOST_CHECK_MS plus the grace of releaseGhostClaims after the database wrote them.
  const ghostTimer = setInterval(() => {
    releaseGhostClaims(app.deps.pool, app.deps.instanceId, inFlight).catch(() => undefined);
  }, GHOST_CHECK_MS);
  ghostTimer.unref();
  app.addHook('onClose', (_instance, done) => {
    clearInterval(ghostTimer);
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const holder = holders.get(request);
    if (holder) inFlight.release(holder);
    done();
  });

  // Callback-style hooks: requests without a key (nearly all) pay no promise on the hot path.
  app.addHook('preHandler', (request, reply, done) => {
    const header = request.headers['idempotency-key'];
    // Only JSON bodies can be fingerprinted; a streamed (multipart) body is read by its handler later.
    const json = (request.headers['content-type'] ?? '').startsWith('application/json');
    if (
      header === undefined ||
      !json ||
      request.method !== 'POST' ||
      request.routeOptions.config.auth !== 'api-key' ||
      request.routeOptions.config.answersSecret === true ||
      isDryRun(request)
    ) {
      done();
      return;
    }
    if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
      done(
        new AppError('invalid_request', 'Idempotency-Key must be 1-255 visible ASCII characters', [
          { field: 'Idempotency-Key', message: 'must be 1-255 visible ASCII characters' },
        ]),
      );
      return;
    }
    const hash = requestHash(`${request.method} ${request.url}`, request.body);
    // Held before the claim is asked for, so that the ghost check never takes a claim whose
    // statement waited (on a lock, a slow database) for a ghost; let go at once when the answer
    // is not a claim (a replay, a 409 or 422, an error), so that a client retrying while a ghost
    // holds the key does not keep the ghost alive. A claim is held until its response is sent.
    const teamId = request.principal.teamId;
    const holder = inFlight.hold(teamId, header);
    const letGo = () => inFlight.release(holder);
    claimIdempotencyKey(app.deps.pool, { teamId, key: header, hash, owner: app.deps.instanceId }).then(
      (outcome) => {
        if (outcome.kind === 'replay') {
          letGo();
          reply.code(outcome.status).header('idempotent-replayed', 'true').type('application/json; charset=utf-8');
          reply.send(outcome.body);
          return;
        }
        holder.claimed = true;
        holders.set(request, holder);
        request.idempotency = outcome.claim;
        done();
      },
      (err: unknown) => {
        letGo();
        done(err as Error);
      },
    );
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const claim = request.idempotency;
    if (!claim || claim.completed) {
      done(null, payload);
      return;
    }
    claim.completed = true;
    const stored =
      reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string'
        ? completeIdempotencyKey(app.deps.pool, claim, reply.statusCode, payload)
        : releaseIdempotencyKey(app.deps.pool, claim);
    // The work is done and its answer goes out whatever happens here: a claim that could not be
    // stored (taken over, or the database away) stays as it is, and is released with its owner.
    stored.then(
      () => done(null, payload),
      (err: unknown) => {
        request.log.warn({ err }, 'could not store the Idempotency-Key response');
        done(null, payload);
      },
    );
  });
}
