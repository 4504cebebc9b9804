import pg from 'pg';
import { isDatabaseUnavailable } from './errors.ts';

/** Anything that can run a query: the pool, or one client inside a transaction. */
export type Queryable = pg.Pool | pg.PoolClient | pg.Client;

// bigint columns (credits, amounts) come back as JS numbers: balances stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** How long the service waits on the database before it calls it unavailable. */
export interface DatabaseTimeouts {
  /** To open a connection, or to get one from a full pool. */
  connectMs: number;
  /** Server side: a statement running longer is cancelled (57014). */
  statementMs: number;
  /** Client side: no answer at all in this time (a hung server) fails the query. */
  queryMs: number;
  /**
   * The health check (`select 1` on a connection of its own): no answer in this time and the
   * database counts as unavailable until it answers again (see health.ts).
   */
  checkMs: number;
}

export interface PoolOptions {
  applicationName?: string;
  /** Unset for migrations, which may wait on a lock or run long. */
  timeouts?: DatabaseTimeouts;
}

/** A connection pool with the service's settings; errors of idle clients are logged, not thrown. */
export function createPool(
  connectionString: string,
  max: number,
  onError: (err: Error) => void,
  options: PoolOptions = {},
): pg.Pool {
  const { timeouts } = options;
  const pool = new pg.Pool({
    connectionString,
    max,
    application_name: options.applicationName ?? 'genmedia',
    keepAlive: true,
    ...(timeouts && {
      connectionTimeoutMillis: timeouts.connectMs,
      statement_timeout: timeouts.statementMs,
      query_timeout: timeouts.queryMs,
    }),
  });
  pool.on('error', onError);
  // A client that breaks while checked out (e.g. a LISTEN connection) must not crash the process.
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}

/**
 * Runs `fn` inside one transaction; commits when it returns, rolls back when it throws. A
 * connection that failed (or could not roll back) is dropped, not returned to the pool.
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const result = await fn(client);
    await client.query('commit');
    return result;
  } catch (err) {
    if (isDatabaseUnavailable(err)) broken = err as Error;
    await client.query('rollback').catch((rollbackError: unknown) => {
      broken = rollbackError as Error;
    });
    throw err;
  } finally {
    client.release(broken);
  }
}
