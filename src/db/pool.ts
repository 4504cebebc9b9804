import pg from 'pg';

/** Anything that can run a query: the pool, or one client inside a transaction. */
export type Queryable = pg.Pool | pg.PoolClient | pg.Client;

// bigint columns (credits, amounts) come back as JS numbers: balances stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** A connection pool with the service's settings; errors of idle clients are logged, not thrown. */
export function createPool(
  connectionString: string,
  max: number,
  onError: (err: Error) => void,
  applicationName = 'genmedia',
): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, application_name: applicationName });
  pool.on('error', onError);
  // A client that breaks while checked out (e.g. a LISTEN connection) must not crash the process.
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}

/** Runs `fn` inside one transaction; commits when it returns, rolls back when it throws. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await fn(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
