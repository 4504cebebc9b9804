// Baseline for bench/auth.ts: GET /api/v1/billing/credits done the simplest way, with no
// framework. A raw node:http server and a `pg` pool of the service's size; for each request it
// reads the bearer key, hashes it with SHA-256 and runs one query that both checks the key and
// reads the team's balance. Answers 401 JSON for a missing, unknown or revoked key, else the
// balance as a bare JSON number, like the service.
//
// Environment: DATABASE_URL (required), PORT, HOST, DATABASE_POOL_SIZE (default 10, as the service).
import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';

const BALANCE_BY_KEY =
  'select t.credits from api_keys k join teams t on t.id = k.team_id where k.key_hash = $1 and k.revoked_at is null';
const BEARER = /^Bearer\s+(\S+)\s*$/i;

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL must be set');
const port = Number(process.env.PORT ?? 8081);
const host = process.env.HOST ?? '127.0.0.1';
const poolSize = Number(process.env.DATABASE_POOL_SIZE ?? 10);

// bigint balances come back as JS numbers, as in the service.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize, application_name: 'genmedia-bench-baseline' });
pool.on('error', (err) => process.stderr.write(`baseline: idle database client error: ${err.message}\n`));

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  send(res, status, JSON.stringify({ error: { code, message } }));
}

async function balance(res: ServerResponse, authorization: string | undefined): Promise<void> {
  const key = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  if (key === undefined) {
    sendError(res, 401, 'unauthorized', "Send the header 'Authorization: Bearer <API key>'");
    return;
  }
  const hash = createHash('sha256').update(key).digest();
  const { rows } = await pool.query<{ credits: number }>(BALANCE_BY_KEY, [hash]);
  const row = rows[0];
  if (row === undefined) sendError(res, 401, 'unauthorized', 'Invalid or revoked API key');
  else send(res, 200, JSON.stringify(row.credits));
}

const server = createServer((req, res) => {
  const path = req.url?.split('?', 1)[0];
  if (req.method === 'GET' && path === '/api/v1/billing/credits') {
    balance(res, req.headers.authorization).catch((err: unknown) => {
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
