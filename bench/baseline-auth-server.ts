// Baseline for bench/auth.ts: GET /api/v1/billing/credits done the simplest way, with no
// framework. A raw node:http server and a `pg` pool of the service's size; for each request it
// reads the bearer key, hashes it with SHA-256 and runs one query that both checks the key and
// reads the team's balance. Answers 401 JSON for a missing, unknown or revoked key, else the
// balance as a bare JSON number, like the service. The server, pool and answers are
// bench/baseline-http.ts.
//
// Environment: DATABASE_URL (required), PORT, HOST, DATABASE_POOL_SIZE (default 10, as the service).
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { baselinePool, bearerKey, send, sendError, serveBaseline } from './baseline-http.ts';

const BALANCE_BY_KEY =
  'select t.credits from api_keys k join teams t on t.id = k.team_id where k.key_hash = $1 and k.revoked_at is null';

const pool = baselinePool();

async function balance(res: ServerResponse, authorization: string | undefined): Promise<void> {
  const key = bearerKey(authorization);
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

serveBaseline(pool, (req, res, path) =>
  req.method === 'GET' && path === '/api/v1/billing/credits' ? balance(res, req.headers.authorization) : undefined,
);
