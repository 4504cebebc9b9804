// accept_generation and finish_item made on the pool (not inside a transaction of the caller's)
// go through one batcher per pool (src/db/batched-calls.ts).
import pg from 'pg';
import { type BatchableFunction, BatchedCalls, callOnce } from '../../db/batched-calls.ts';
import type { Queryable } from '../../db/pool.ts';

/** One statement under way at once (the calls made meanwhile wait and go together), of at most 32 calls. */
const BATCHING = { inFlight: 1, maxBatch: 32 };

const batchers = new WeakMap<pg.Pool, BatchedCalls>();

/** The batcher of a pool. */
function batchedCalls(pool: pg.Pool): BatchedCalls {
  let calls = batchers.get(pool);
  if (!calls) {
    calls = new BatchedCalls(pool, BATCHING);
    batchers.set(pool, calls);
  }
  return calls;
}

/**
 * Calls `fn` with `payload` on `db`: batched when `db` is the pool (`order`, the team, orders a
 * batch's calls), alone in the caller's transaction when it is a client.
 */
export async function callWithPayload<T>(
  db: Queryable,
  fn: BatchableFunction,
  payload: unknown,
  order: string,
): Promise<T | undefined> {
  return db instanceof pg.Pool ? batchedCalls(db).call<T>(fn, payload, order) : callOnce<T>(db, fn, payload);
}

/** What the batcher of a pool has sent so far (see BatchedCalls' `sent`). */
export function batchedCallsSent(pool: pg.Pool): BatchedCalls['sent'] {
  return batchedCalls(pool).sent;
}
