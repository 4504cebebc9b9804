// Group commit for the two calls every generation makes: accept_generation and finish_item. A call
// made while a statement of either is under way waits, and the calls that waited, of both
// functions, are then sent together, as one statement and so one transaction (call_batch,
// migration 0044). Under load this is what the database's time goes on: one transaction, one
// commit, one lock of a team's row per batch instead of per call, and no waiting on one another's
// lock of that row. One statement under way at a time: two (or one per function, as before 0044)
// only took the team's row from each other and committed one after the other (measured on the
// door's floor: one of both, one of each, two of each at once, 957, 814 and 753 requests per second
// for one team; for eight teams 960 against 851 for two of each). A call made while the database
// keeps up goes alone, as it was made.
//
// A call's outcome is its own. The calls of a batch share one subtransaction (with a savepoint
// each, the team's row carried every call's transaction id, which cost a quarter of the database's
// CPU under load): when one of them raises, the database undoes the whole batch and says which call
// it was; that call fails its caller with its SQLSTATE, and the others are sent again, first in
// line, so each counts once. A batch that fails as a whole (the
// connection lost, the statement cancelled) fails each of its callers with that error, as it would
// have failed each call alone, and each caller judges from it what it judges from its own call's
// failure (e.g. whether a COMMIT it did not hear the end of went through). The calls of a batch run
// in the order of their `order` key (the team), so that two batches lock team rows in one order
// and cannot deadlock on them.
import pg from 'pg';
import type { Queryable } from './pool.ts';

/** The functions call_batch calls: each takes one jsonb and answers one. */
export type BatchableFunction = 'accept_generation' | 'finish_item';

/**
 * One call of `fn` with `payload`, alone, on `db` (the pool, or a client inside a transaction). As a
 * named statement, like call_batch's: each connection parses it once, not at every call.
 */
export async function callOnce<T>(db: Queryable, fn: BatchableFunction, payload: unknown): Promise<T | undefined> {
  const { rows } = await db.query<{ answer: T }>({
    name: fn,
    text: `select ${fn}($1::jsonb) as answer`,
    values: [JSON.stringify(payload)],
  });
  return rows[0]?.answer;
}

/** A call that failed inside a batch: the error PostgreSQL raised in it. */
export class BatchedCallError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'BatchedCallError';
    this.code = code;
  }
}

/**
 * Whether a call failed on a unique constraint (23505): alone (pg's error) or in a batch (a
 * BatchedCallError), whichever way it happened to go.
 */
export function isUniqueViolation(err: unknown): boolean {
  return (err instanceof pg.DatabaseError || err instanceof BatchedCallError) && err.code === '23505';
}

export interface BatchedCallOptions {
  /** Statements under way at once; calls made meanwhile wait and go together. */
  inFlight: number;
  /** The most calls one statement carries. */
  maxBatch: number;
}

interface Waiting {
  fn: BatchableFunction;
  payload: unknown;
  order: string;
  resolve(answer: unknown): void;
  reject(err: unknown): void;
}

/** call_batch's answer: each call's answer in order, or which call raised (all were undone). */
type Answers = unknown[] | { failed: number; error: { code: string; message: string } };

/** What one function's calls were sent as: alone, in a batch, and sent again (see BatchedCalls' `sent`). */
export interface CallsSent {
  alone: number;
  batch: number;
  again: number;
}

/** Calls of accept_generation and finish_item on one pool, batched as they come. */
export class BatchedCalls {
  readonly #pool: pg.Pool;
  readonly #options: BatchedCallOptions;
  #waiting: Waiting[] = [];
  #inFlight = 0;
  /**
   * Statements sent (one call alone, or a batch of several), and per function the calls sent alone
   * and in a batch (a call sent again counts again), and of these the calls sent again because
   * another call of their batch raised.
   */
  readonly sent: {
    statements: { alone: number; batch: number };
    calls: Record<BatchableFunction, CallsSent>;
  } = {
    statements: { alone: 0, batch: 0 },
    calls: { accept_generation: { alone: 0, batch: 0, again: 0 }, finish_item: { alone: 0, batch: 0, again: 0 } },
  };

  constructor(pool: pg.Pool, options: BatchedCallOptions) {
    this.#pool = pool;
    this.#options = options;
  }

  /** Calls `fn` with `payload`; `order` places it in a batch. */
  call<T>(fn: BatchableFunction, payload: unknown, order: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ fn, payload, order, resolve: resolve as (answer: unknown) => void, reject });
      this.#send();
    });
  }

  #send(): void {
    while (this.#inFlight < this.#options.inFlight && this.#waiting.length > 0) {
      const calls = this.#waiting.splice(0, this.#options.maxBatch);
      this.#inFlight += 1;
      this.#run(calls).finally(() => {
        this.#inFlight -= 1;
        this.#send();
      });
    }
  }

  async #run(calls: Waiting[]): Promise<void> {
    try {
      if (calls.length === 1) {
        const [call] = calls as [Waiting];
        this.sent.statements.alone += 1;
        this.sent.calls[call.fn].alone += 1;
        call.resolve(await callOnce(this.#pool, call.fn, call.payload));
        return;
      }
      this.sent.statements.batch += 1;
      for (const call of calls) this.sent.calls[call.fn].batch += 1;
      const ordered = [...calls].sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
      const { rows } = await this.#pool.query<{ answers: Answers }>({
        name: 'call_batch',
        text: 'select call_batch($1::jsonb) as answers',
        values: [JSON.stringify(ordered.map((c) => ({ function: c.fn, payload: c.payload })))],
      });
      const answers = rows[0]?.answers;
      if (answers !== undefined && !Array.isArray(answers)) {
        // One call raised and the batch was undone: that call fails, the others go again first.
        const failed = ordered[answers.failed];
        if (!failed) throw new Error(`call_batch named call ${answers.failed} of ${ordered.length} as failed`);
        failed.reject(new BatchedCallError(answers.error.code, answers.error.message));
        const others = ordered.filter((call) => call !== failed);
        for (const call of others) this.sent.calls[call.fn].again += 1;
        this.#waiting.unshift(...others);
        return;
      }
      for (const [i, call] of ordered.entries()) {
        if (answers && i < answers.length) call.resolve(answers[i]);
        else call.reject(new Error(`call_batch answered ${answers?.length ?? 0} of ${ordered.length} calls`));
      }
    } catch (err) {
      for (const call of calls) call.reject(err);
    }
  }
}
