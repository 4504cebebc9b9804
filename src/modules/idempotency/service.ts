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

/** A request's hold on an Idempotency-Key (see ClaimsInFlight). */
export interface ClaimHold {
  readonly teamId: string;
  readonly key: string;
  /** When the request asked for the claim (Date.now()). */
  readonly since: number;
  /** Set once the request got the claim. */
  claimed: boolean;
}

// A request asking for a claim this long (its statement waits on a row lock, or on a slow
// database) protects the key from the ghost check: its claim, once written, may already look old.
// One that asks for less time does not: a client retrying while a ghost holds the key (each retry
// refused with 409 within milliseconds) must not keep the ghost alive, and a claim such a request
// writes is younger than the grace of releaseGhostClaims.
const ASKING_PROTECTS_AFTER_MS = 1000;

/**
 * The Idempotency-Key claims this process's requests hold or are asking for right now (a hold is
 * taken before the claim is asked for, and let go when the response is sent, or at once when the
 * answer is not a claim: a replay, a 409 or 422, an error), so that claims in the database that no
 * request holds can be told apart.
 */
export class ClaimsInFlight {
  readonly #holds = new Set<ClaimHold>();

  hold(teamId: string, key: string): ClaimHold {
    const hold: ClaimHold = { teamId, key, since: Date.now(), claimed: false };
    this.#holds.add(hold);
    return hold;
  }

  release(hold: ClaimHold): void {
    this.#holds.delete(hold);
  }

  /** The keys whose claims are not ghosts: claimed, or asked for since ASKING_PROTECTS_AFTER_MS. */
  list(now = Date.now()): Array<{ teamId: string; key: string }> {
    return [...this.#holds]
      .filter((h) => h.claimed || now - h.since >= ASKING_PROTECTS_AFTER_MS)
      .map(({ teamId, key }) => ({ teamId, key }));
  }
}

// A claim no request of its owner holds, this old, was written after its request gave up (or by a
// request that asked for it less than ASKING_PROTECTS_AFTER_MS before the check: far younger).
const GHOST_GRACE_SECONDS = 5;

/** Releases this process's claims that no request of it holds (see deleteGhostClaims). */
export async function releaseGhostClaims(db: Queryable, owner: string, inFlight: ClaimsInFlight): Promise<number> {
  return sql.deleteGhostClaims(db, owner, inFlight.list(), GHOST_GRACE_SECONDS);
}
