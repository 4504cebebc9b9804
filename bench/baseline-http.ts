// The scaffolding shared by the baselines (bench/baseline-*-server.ts): the environment, the `pg`
// pool of the service's size, JSON answers in the service's shapes, the bearer key, and the raw
// node:http server with /healthz, 404, error answers and shutdown on SIGTERM/SIGINT. Each baseline
// keeps its own SQL and per-request work and hands it to serveBaseline as one handler.
//
// Environment: DATABASE_URL (required), PORT, HOST, DATABASE_POOL_SIZE (default 10, as the service).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** An error a handler throws to answer with its status, code and message instead of a 500. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The pool from DATABASE_URL and DATABASE_POOL_SIZE, bigints read as JS numbers as in the service. */
export function baselinePool(): pg.Pool {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL must be set');
  const poolSize = Number(process.env.DATABASE_POOL_SIZE ?? 10);
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    application_name: 'genmedia-bench-baseline',
  });
  pool.on('error', (err) => process.stderr.write(`baseline: idle database client error: ${err.message}\n`));
  return pool;
}

/** Answers `status` with a JSON body. */
export function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** Answers `status` with the service's error body {error: {code, message}}. */
export function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  send(res, status, JSON.stringify({ error: { code, message } }));
}

/** The API key of an `Authorization: Bearer <key>` header, or undefined when there is none. */
export function bearerKey(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}

/** A baseline's route: its work's promise for a request it serves, undefined for one it does not. */
export type BaselineHandler = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void> | undefined;

/**
 * Serves `handle` on HOST:PORT (default 127.0.0.1:8081); other requests get /healthz or a 404. A
 * rejected handler answers its HttpError's status, else a logged 500; SIGTERM/SIGINT close the
 * server and the pool, then exit.
 */
export function serveBaseline(pool: pg.Pool, handle: BaselineHandler): void {
  const port = Number(process.env.PORT ?? 8081);
  const host = process.env.HOST ?? '127.0.0.1';
  const server = createServer((req, res) => {
    const path = req.url?.split('?', 1)[0] ?? '';
    const work = handle(req, res, path);
    if (work !== undefined) {
      work.catch((err: unknown) => {
        if (err instanceof HttpError) {
          if (!res.headersSent) sendError(res, err.status, err.code, err.message);
          return;
        }
        process.stderr.write(`baseline: ${err instanceof Error ? err.message : String(err)}\n`);
        if (!res.headersSent) sendError(res, 500, 'internal', 'Internal error');
      });
    } else if (req.method === 'GET' && path === '/healthz') {
      send(res, 200, '{"status":"ok"}');
    } else {
      sendError(res, 404, 'not_found', 'Not found');
    }
  });

  server.listen(port, host);

  const shutdown = (): void => {
    server.close();
    server.closeAllConnections();
    pool.end().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
