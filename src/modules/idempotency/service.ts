import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../lib/errors.ts';
import * as sql from './sql.ts';

/** How long a key and its response are kept. */
export const IDEMPOTENCY_TTL_HOURS = 24;
// A claim this old whose request never finished (the process died) may be taken over.
const ABANDONED_AFTER_SECONDS = 120;

export interface IdempotencyClaim {
  teamId: string;
  key: string;
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
  teamId: string,
  key: string,
  hash: string,
): Promise<ClaimOutcome> {
  if (await sql.claimKey(db, teamId, key, hash, IDEMPOTENCY_TTL_HOURS, ABANDONED_AFTER_SECONDS)) {
    return { kind: 'claimed', claim: { teamId, key, completed: false } };
  }
  const row = await sql.selectKey(db, teamId, key);
  if (!row) return claimIdempotencyKey(db, teamId, key, hash); // expired and deleted in between
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
    );
  }
  return { kind: 'replay', status: row.response_status, body: row.response_body };
}

/** Stores the response of a claimed key (call inside the work's transaction when it has one). */
export async function completeIdempotencyKey(
  db: Queryable,
  claim: IdempotencyClaim,
  status: number,
  body: string,
): Promise<void> {
  await sql.completeKey(db, claim.teamId, claim.key, status, body);
  claim.completed = true;
}

/** Drops the claim of a refused request. */
export async function releaseIdempotencyKey(db: Queryable, claim: IdempotencyClaim): Promise<void> {
  await sql.releaseKey(db, claim.teamId, claim.key);
}

/** Deletes keys past their retention (a periodic job). */
export async function deleteExpiredIdempotencyKeys(db: Queryable): Promise<number> {
  return sql.deleteExpiredKeys(db, IDEMPOTENCY_TTL_HOURS);
}
