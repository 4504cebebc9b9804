// accept_generation and finish_item made on the pool (not inside a transaction of the caller's)
// go through one batcher per pool and function (src/db/batched-calls.ts).
import pg from 'pg';
import { BatchedCall } from '../../db/batched-calls.ts';
import type { Queryable } from '../../db/pool.ts';

/** Two statements of each function under way at once (the rest wait and go together), each of at most 32 calls. */
const BATCHING = { inFlight: 2, maxBatch: 32 };

const batchers = new WeakMap<pg.Pool, Record<'accept_generation' | 'finish_item', BatchedCall>>();

/** The batchers of a pool. */
export function batchedCalls(pool: pg.Pool): Record<'accept_generation' | 'finish_item', BatchedCall> {
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
  fn: 'accept_generation' | 'finish_item',
  payload: unknown,
  order: string,
): Promise<T | undefined> {
  if (db instanceof pg.Pool) return batchedCalls(db)[fn].call<T>(payload, order);
  const { rows } = await db.query<{ answer: T }>(`select ${fn}($1::jsonb) as answer`, [JSON.stringify(payload)]);
  return rows[0]?.answer;
}
