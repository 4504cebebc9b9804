import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../lib/errors.ts';
import { INSTANCE_DEAD_AFTER_MS } from '../instances/service.ts';
import * as sql from './sql.ts';

/** How long a key and its response are kept. */
export const IDEMPOTENCY_TTL_HOURS = 24;
// A claim from before claims had owners, never finished, may be taken over after this long.
const ABANDONED_AFTER_SECONDS = 120;
/** What a 409 tells the client to wait before it retries. */
export const CONFLICT_RETRY_AFTER_S = 1;

export interface IdempotencyClaim {
  teamId: string;
  key: string;
  /** The process holding the claim (its service_instances id). */
  owner: string;
  /**
   * The generation an earlier holder of this claim created before its process died (synchronous
   * endpoints): the request finishes that one instead of creating and paying for another.
   */
  unfinishedGenerationId: string | null;
  /** Set once the response has been stored (inside the work's own transaction, when it has one). */
  completed: boolean;
}

export type ClaimOutcome =
  | { kind: 'claimed'; claim: IdempotencyClaim }
  | { kind: 'replay'; status: number; body: string };

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** A fingerprint of the request: route and body, with object keys in a fixed order. */
export function requestHash(route: string, body: unknown): string {
  return createHash('sha256')
    .update(`${route}\n${JSON.stringify(canonical(body ?? null))}`)
    .digest('hex');
}

/**
 * Claims an Idempotency-Key for a request, or says how to answer instead: the stored response
 * (replay), 422 for a different body under the same key, 409 while the first is in flight.
 */
export async function claimIdempotencyKey(
  db: Queryable,
  request: { teamId: string; key: string; hash: string; owner: string },
): Promise<ClaimOutcome> {
  const { teamId, key, owner } = request;
  const claimed = await sql.claimKey(
    db,
    request,
    IDEMPOTENCY_TTL_HOURS,
    INSTANCE_DEAD_AFTER_MS,
    ABANDONED_AFTER_SECONDS,
  );
  if (claimed) {
    return {
      kind: 'claimed',
      claim: { teamId, key, owner, completed: false, unfinishedGenerationId: claimed.generationId },
    };
  }
  const row = await sql.selectKey(db, teamId, key);
  if (!row) return claimIdempotencyKey(db, request); // expired and deleted in between
  const hash = request.hash;
  if (row.request_hash !== hash) {
    throw new AppError(
      'idempotency_mismatch',
      'This Idempotency-Key was used with a different request; use a new key for a new request',
    );
  }
  if (row.state === 'in_flight' || row.response_status === null || row.response_body === null) {
    throw new AppError(
      'idempotency_conflict',
      'A request with this Idempotency-Key is still in progress; retry after it finishes',
      undefined,
      { 'retry-after': String(CONFLICT_RETRY_AFTER_S) },
    );
  }
  return { kind: 'replay', status: row.response_status, body: row.response_body };
}

function takenOver(): AppError {
  return new AppError(
    'idempotency_conflict',
    'Another request took over this Idempotency-Key; retry to get its answer',
    undefined,
    { 'retry-after': String(CONFLICT_RETRY_AFTER_S) },
  );
}

/**
 * Stores the response of a claimed key (call inside the work's transaction when it has one). A
 * claim taken over in the meantime (this process was thought gone) is a 409, so that the work's
 * transaction rolls back instead of doing the work a second time.
 */
export async function completeIdempotencyKey(
  db: Queryable,
  claim: IdempotencyClaim,
  status: number,
  body: string,
): Promise<void> {
  const stored = await sql.completeKey(db, claim, status, body);
  claim.completed = true;
  if (!stored) {
    throw takenOver();
  }
}

/**
 * Ties the generation a claimed request created to its claim (in the creating transaction), so
 * that a retry after this process dies finishes it instead of paying again.
 */
export async function recordClaimedGeneration(
  db: Queryable,
  claim: IdempotencyClaim,
  generationId: string,
): Promise<void> {
  if (!(await sql.setKeyGeneration(db, claim, generationId))) {
    throw takenOver();
  }
}

/** Drops the claim of a refused request. */
export async function releaseIdempotencyKey(db: Queryable, claim: IdempotencyClaim): Promise<void> {
  await sql.releaseKey(db, claim);
}

/** Deletes keys past their retention (a periodic job). */
export async function deleteExpiredIdempotencyKeys(db: Queryable): Promise<number> {
  return sql.deleteExpiredKeys(db, IDEMPOTENCY_TTL_HOURS);
}

/**
 * The Idempotency-Key claims this process's requests hold right now (added once a request got its
 * claim, removed when its response is sent), so that claims in the database that no request
 * holds can be told apart. A claim whose statement is still on its way is not listed: the grace
 * of releaseGhostClaims covers it.
 */
export class ClaimsInFlight {
  // Counted: two requests of this process may send the same key at once (one gets a 409).
  readonly #held = new Map<string, { teamId: string; key: string; requests: number }>();

  add(teamId: string, key: string): void {
    const id = `${teamId}\n${key}`;
    const held = this.#held.get(id);
    if (held) held.requests += 1;
    else this.#held.set(id, { teamId, key, requests: 1 });
  }

  delete(teamId: string, key: string): void {
    const id = `${teamId}\n${key}`;
    const held = this.#held.get(id);
    if (held && --held.requests === 0) this.#held.delete(id);
  }

  list(): Array<{ teamId: string; key: string }> {
    return [...this.#held.values()];
  }
}

// A claim no request of its owner holds, this old, was written after its request gave up (a
// request's claim statement comes back far sooner than this, or the request has given up on it).
const GHOST_GRACE_SECONDS = 5;

/** Releases this process's claims that no request of it holds (see deleteGhostClaims). */
export async function releaseGhostClaims(db: Queryable, owner: string, inFlight: ClaimsInFlight): Promise<number> {
  return sql.deleteGhostClaims(db, owner, inFlight.list(), GHOST_GRACE_SECONDS);
}
