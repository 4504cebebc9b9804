// Whether this process's database answers: a circuit in front of it. When the database stays
// silent (see #probe: a check's connection and a fresh one both get no answer in time), it counts
// as unavailable: requests that need it are refused at once (503 with Retry-After) instead of each
// waiting out the pool's timeouts, and the queries that have waited on it longer than a check's
// timeout are cut off. Meanwhile it is checked again every CHECK_INTERVAL_MS, and the first answer
// closes the circuit: the process recovers without a restart. An error (a connection the server
// or a proxy closed, a refused connection, "too many clients") is no silence: it never opens the
// circuit, though a check that gets no answer at all still says the database is not ready.
import pg from 'pg';
import { ping } from './sql.ts';

/** How often a database that did not answer is checked again; also the least time between checks. */
export const CHECK_INTERVAL_MS = 500;

export type DatabaseHealthListener = (available: boolean, err?: unknown) => void;

// pg's internals: the socket (`end()` would wait for a server that does not answer) and the query
// a connection is running (the public getter is deprecated).
type Internals = { connection?: { stream?: { destroy(): void } }; _activeQuery?: object | null };

/** Closes a connection's socket at once. */
function destroyConnection(client: pg.ClientBase): void {
  (client as unknown as Internals).connection?.stream?.destroy();
}

function activeQuery(client: pg.ClientBase): object | undefined {
  return (client as unknown as Internals)._activeQuery ?? undefined;
}

/** One `select 1` on one connection (opened first when `fresh`). */
class Attempt {
  state: 'waiting' | 'answered' | 'failed' = 'waiting';
  error: unknown;
  readonly done: Promise<void>;
  readonly client: pg.Client;
  readonly fresh: boolean;

  constructor(client: pg.Client, fresh: boolean) {
    this.client = client;
    this.fresh = fresh;
    const answer = fresh ? client.connect().then(() => ping(client)) : ping(client);
    this.done = answer.then(
      () => {
        if (this.state === 'waiting') this.state = 'answered';
      },
      (err: unknown) => {
        this.state = 'failed';
        this.error = err;
      },
    );
  }
}

/**
 * Waits until one of `attempts` answers, all of them failed, or `ms` passed. A busy process runs
 * its timers late: the answer may be read already and not yet handled, so the time limit is
 * checked after the pending reads (setImmediate): only a real silence counts.
 */
function settle(attempts: Attempt[], ms: number): Promise<void> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const check = () => {
      if (attempts.some((a) => a.state === 'answered') || attempts.every((a) => a.state === 'failed')) {
        clearTimeout(timer);
        resolve();
      }
    };
    timer = setTimeout(() => setImmediate(resolve), ms);
    for (const attempt of attempts) void attempt.done.then(check);
    check();
  });
}

export class DatabaseHealth {
  readonly #pool: pg.Pool;
  readonly #timeoutMs: number;
  readonly #connectMs: number;
  readonly #listeners: DatabaseHealthListener[] = [];
  #available = true;
  #client: pg.Client | undefined;
  #checking: Promise<boolean> | undefined;
  /** What check() answers for the check under way. */
  #verdict: Promise<boolean> | undefined;
  #lastCheckAt = 0;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  /** The pool's connections that are checked out (by a request, the worker, a listener). */
  readonly #inUse = new Set<pg.PoolClient>();
  /** When a check first saw each query that a checked-out connection was running. */
  readonly #seen = new WeakMap<object, number>();

  /**
   * `timeoutMs`: how long a check (`select 1` on a connection of its own, kept open) waits for an
   * answer; `connectMs`: how long opening that connection may take on top, when it must be opened.
   */
  constructor(pool: pg.Pool, timeoutMs: number, connectMs: number) {
    this.#pool = pool;
    this.#timeoutMs = timeoutMs;
    this.#connectMs = connectMs;
    pool.on('acquire', (client) => this.#inUse.add(client));
    pool.on('release', (_err, client) => this.#inUse.delete(client));
    pool.on('remove', (client) => this.#inUse.delete(client));
  }

  /** Tells `listener` when the database stops or starts answering. */
  onChange(listener: DatabaseHealthListener): void {
    this.#listeners.push(listener);
  }

  /** False from checks that got no answer until one that does. */
  get available(): boolean {
    return this.#available;
  }

  /**
   * Something suggests that the database may not be answering (a request has waited on it for a
   * while, a query timed out): check now, unless a check is running or has just answered.
   */
  suspect(): void {
    if (this.#closed || this.#checking || !this.#available) return;
    if (Date.now() - this.#lastCheckAt < CHECK_INTERVAL_MS) return;
    void this.check();
  }

  /**
   * Checks the database now (or joins the check under way); true when it answered within the
   * check timeout (plus the connect timeout when the check's connection must be opened). False
   * as soon as that time has passed without an answer, although the check goes on: whether the
   * circuit opens is decided by the whole check (see #probe).
   */
  check(): Promise<boolean> {
    if (!this.#verdict) {
      const limitMs = this.#timeoutMs + (this.#client ? 0 : this.#connectMs);
      let timer: NodeJS.Timeout | undefined;
      const silent = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => setImmediate(() => resolve(false)), limitMs);
      });
      this.#checking = this.#probe().finally(() => {
        clearTimeout(timer);
        this.#checking = undefined;
        this.#verdict = undefined;
        this.#lastCheckAt = Date.now();
      });
      this.#verdict = Promise.race([this.#checking, silent]);
    }
    return this.#verdict;
  }

  /** Stops checking and closes the check's connection. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    await this.#checking;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  /**
   * A check. While the circuit is closed, silence must last: the check's connection gets half its
   * time (DATABASE_CHECK_TIMEOUT_MS, plus the connect timeout when it must be opened) and then a
   * fresh connection is tried beside it, which gets the whole check timeout; only when neither
   * answered does the circuit open (the database was silent for 1.5 times the check timeout, on
   * two connections). A connection that failed (closed by the server or a proxy) is replaced by a
   * fresh one at once; when that one fails too, the database is not ready, but it is not silent.
   * While the circuit is open, one attempt on a fresh connection decides.
   */
  async #probe(): Promise<boolean> {
    this.#noteWaitingQueries();
    const first = this.#attempt(false);
    const firstMs = this.#timeoutMs + (first.fresh ? this.#connectMs : 0);
    if (!this.#available) {
      await settle([first], firstMs);
      return this.#conclude([first]);
    }
    await settle([first], firstMs / 2);
    if (first.state === 'answered') return this.#conclude([first]);
    const second = this.#attempt(true);
    const secondMs = this.#timeoutMs + (first.state === 'failed' ? this.#connectMs : 0);
    await settle([first, second], secondMs);
    return this.#conclude([first, second]);
  }

  /** A new attempt, on the check's connection unless `fresh` or it has none. */
  #attempt(fresh: boolean): Attempt {
    if (!fresh && this.#client) return new Attempt(this.#client, false);
    const { connectionString } = this.#pool.options as pg.PoolConfig;
    const client = new pg.Client({ connectionString, application_name: 'genmedia-health' });
    // A connection the server or a proxy closed is not asked again: the next check opens another.
    const forget = () => {
      if (this.#client === client) this.#client = undefined;
    };
    client.on('error', forget);
    client.on('end', forget);
    return new Attempt(client, true);
  }

  #conclude(attempts: Attempt[]): boolean {
    const answered = attempts.find((a) => a.state === 'answered');
    for (const attempt of attempts) {
      if (attempt === answered) continue;
      if (this.#client === attempt.client) this.#client = undefined;
      destroyConnection(attempt.client);
    }
    if (answered) {
      this.#client = answered.client;
      this.#up();
      return true;
    }
    const silent = attempts.some((a) => a.state === 'waiting');
    if (silent) {
      this.#down(new Error(`the database gave no answer within ${this.#timeoutMs} ms on two connections`));
    } else if (!this.#available) {
      this.#scheduleRetry();
    }
    return false;
  }

  /** Notes when the queries that checked-out connections are running were first seen waiting. */
  #noteWaitingQueries(): void {
    const now = Date.now();
    for (const client of this.#inUse) {
      const query = activeQuery(client);
      if (query && !this.#seen.has(query)) this.#seen.set(query, now);
    }
  }

  #up(): void {
    if (this.#available) return;
    this.#available = true;
    clearTimeout(this.#retry);
    for (const listener of this.#listeners) listener(true);
  }

  #down(err: unknown): void {
    if (this.#available) {
      this.#available = false;
      for (const listener of this.#listeners) listener(false, err);
    }
    // A query that has waited on the silent database longer than a check would wait out its
    // timeouts: cut it off, so that its request answers 503 and the work it belongs to is retried
    // (as after a restart). A connection that is not waiting on the database (between two
    // statements of the worker's transaction, a LISTEN) is left alone.
    this.#noteWaitingQueries();
    const now = Date.now();
    for (const client of this.#inUse) {
      const query = activeQuery(client);
      const since = query && this.#seen.get(query);
      if (since !== undefined && now - since >= this.#timeoutMs) destroyConnection(client);
    }
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    if (this.#closed) return;
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => void this.check(), CHECK_INTERVAL_MS);
    this.#retry.unref();
  }
}
