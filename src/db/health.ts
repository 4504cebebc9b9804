// Whether this process's database answers: a circuit in front of it. When a check gets no answer
// in time, the database counts as unavailable: requests that need it are refused at once (503
// with Retry-After) instead of each waiting out the pool's timeouts, and the queries already
// waiting on it are cut off. Meanwhile it is checked again every CHECK_INTERVAL_MS, and the first
// answer closes the circuit: the process recovers without a restart.
import pg from 'pg';
import { ping } from './sql.ts';

/** How often a database that did not answer is checked again; also the least time between checks. */
export const CHECK_INTERVAL_MS = 500;

export type DatabaseHealthListener = (available: boolean, err?: unknown) => void;

type Destroyable = { connection?: { stream?: { destroy(): void } } };

/** Closes a connection's socket at once: `end()` would wait for a server that does not answer. */
function destroyConnection(client: pg.ClientBase): void {
  (client as unknown as Destroyable).connection?.stream?.destroy();
}

export class DatabaseHealth {
  readonly #pool: pg.Pool;
  readonly #timeoutMs: number;
  readonly #connectMs: number;
  readonly #listeners: DatabaseHealthListener[] = [];
  #available = true;
  #client: pg.Client | undefined;
  #checking: Promise<boolean> | undefined;
  #lastCheckAt = 0;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  /** The pool's connections that are checked out (by a request, the worker, a listener). */
  readonly #inUse = new Set<pg.PoolClient>();

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

  /** False from a check that got no answer until one that does. */
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

  /** Checks the database now (or joins the check under way); true when it answered in time. */
  check(): Promise<boolean> {
    this.#checking ??= this.#probe().finally(() => {
      this.#checking = undefined;
      this.#lastCheckAt = Date.now();
    });
    return this.#checking;
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

  async #probe(): Promise<boolean> {
    const timeoutMs = this.#timeoutMs + (this.#client ? 0 : this.#connectMs);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      // A busy process runs its timers late: the answer may be read already and not yet handled.
      // setImmediate runs after the pending reads, so only a real silence counts.
      const fail = () => reject(new Error(`the database gave no answer within ${timeoutMs} ms`));
      timer = setTimeout(() => setImmediate(fail), timeoutMs);
    });
    try {
      await Promise.race([this.#ask(), timeout]);
      this.#up();
      return true;
    } catch (err) {
      // The check's own connection may be the stuck one: the next check opens a new one.
      if (this.#client) destroyConnection(this.#client);
      this.#client = undefined;
      this.#down(err);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async #ask(): Promise<void> {
    if (!this.#client) {
      const { connectionString } = this.#pool.options as pg.PoolConfig;
      const client = new pg.Client({
        connectionString,
        application_name: 'genmedia-health',
      });
      client.on('error', () => undefined);
      this.#client = client;
      await client.connect();
    }
    await ping(this.#client);
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
      // What waits on the database now would wait out its timeouts: cut it off, so that its
      // request answers 503 and the work it belongs to is retried (as after a restart).
      for (const client of this.#inUse) destroyConnection(client);
    }
    if (!this.#closed) {
      this.#retry = setTimeout(() => void this.check(), CHECK_INTERVAL_MS);
      this.#retry.unref();
    }
  }
}
