// accept_generation and finish_item made on the pool (not inside a transaction of the caller's)
// go through one batcher per pool and function (src/db/batched-calls.ts).
import pg from 'pg';
import { type BatchableFunction, BatchedCall, callOnce } from '../../db/batched-calls.ts';
import type { Queryable } from '../../db/pool.ts';

/** Two statements of each function under way at once (the rest wait and go together), each of at most 32 calls. */
const BATCHING = { inFlight: 2, maxBatch: 32 };

const batchers = new WeakMap<pg.Pool, Record<BatchableFunction, BatchedCall>>();

/** The batchers of a pool. */
function batchedCalls(pool: pg.Pool): Record<BatchableFunction, BatchedCall> {
  let calls = batchers.get(pool);
  if (!calls) {
    calls = {
      accept_generation: new BatchedCall(pool, 'accept_generation', BATCHING),
      finish_item: new BatchedCall(pool, 'finish_item', BATCHING),
    };
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
  return db instanceof pg.Pool ? batchedCalls(db)[fn].call<T>(payload, order) : callOnce<T>(db, fn, payload);
}

/** What the batchers of a pool have sent so far, by function (see BatchedCall's `sent`). */
export function batchedCallsSent(pool: pg.Pool): Record<BatchableFunction, BatchedCall['sent']> {
  const calls = batchedCalls(pool);
  return { accept_generation: calls.accept_generation.sent, finish_item: calls.finish_item.sent };
}
