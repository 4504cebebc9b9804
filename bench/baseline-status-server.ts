// Baseline for bench/status.ts: GET /api/v1/generations/{id}/status done the simplest way, with
// no framework. A raw node:http server and a `pg` pool of the service's size; for each request it
// reads the bearer key, hashes it with SHA-256 and looks it up in api_keys (one query), then runs
// the same status statement as the service (src/engine/sql/history.ts selectStatus, copied here: the
// generation by primary key and its items aggregated as JSON, in one statement) and builds the
// same JSON record: result_urls from the completed items, credits_used = charged - refunded.
// Answers 401 JSON for a missing, unknown or revoked key and 404 JSON for an unknown generation
// or another team's, like the service. The server, pool and answers are bench/baseline-http.ts.
//
// Environment: DATABASE_URL (required), PORT, HOST, DATABASE_POOL_SIZE (default 10, as the service).
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { baselinePool, bearerKey, send, sendError, serveBaseline } from './baseline-http.ts';

const KEY_BY_HASH = 'select id, team_id from api_keys where key_hash = $1::bytea and revoked_at is null';
// The text of src/engine/sql/history.ts STATUS_SELECT + selectStatus's where clause.
const STATUS_SELECT = `
  select g.id, g.team_id, g.status, g.operation, g.credits_charged, g.credits_refunded, g.total_items,
         g.completed_items, g.failed_items, g.result,
         (select coalesce(json_agg(json_build_object(
                    'id', i.id, 'type', i.type, 'status', i.status, 'url', i.url,
                    'created_at', to_char(i.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                    'updated_at', to_char(i.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                  order by i.position), '[]'::json)
            from generation_items i where i.generation_id = g.id) as items
  from generations g where g.id = $1::text and g.team_id = $2::text`;
const STATUS_PATH = /^\/api\/v1\/generations\/([^/]{1,64})\/status$/;

interface StatusItem {
  id: string;
  type: string;
  status: string;
  url: string | null;
  created_at: string;
  updated_at: string;
}

interface StatusRow {
  id: string;
  status: string;
  credits_charged: number;
  credits_refunded: number;
  total_items: number;
  completed_items: number;
  failed_items: number;
  items: StatusItem[];
}

const pool = baselinePool();

async function status(res: ServerResponse, authorization: string | undefined, rawId: string): Promise<void> {
  const key = bearerKey(authorization);
  if (key === undefined) {
    sendError(res, 401, 'unauthorized', "Send the header 'Authorization: Bearer <API key>'");
    return;
  }
  const hash = createHash('sha256').update(key).digest();
  const principal = (await pool.query<{ id: string; team_id: string }>(KEY_BY_HASH, [hash])).rows[0];
  if (principal === undefined) {
    sendError(res, 401, 'unauthorized', 'Invalid or revoked API key');
    return;
  }
  const id = decodeURIComponent(rawId);
  const row = (await pool.query<StatusRow>(STATUS_SELECT, [id, principal.team_id])).rows[0];
  if (row === undefined) {
    sendError(res, 404, 'not_found', `Generation '${id}' not found`);
    return;
  }
  const resultUrls: string[] = [];
  for (const item of row.items) if (item.status === 'COMPLETED' && item.url) resultUrls.push(item.url);
  const record = {
    generation_id: row.id,
    status: row.status,
    result_urls: resultUrls,
    credits_used: row.credits_charged - row.credits_refunded,
    total_items: row.total_items,
    completed_items: row.completed_items,
    failed_items: row.failed_items,
    items: row.items.map((i) => ({
      id: i.id,
      type: i.type,
      status: i.status,
      url: i.url,
      created_at: i.created_at,
      updated_at: i.updated_at,
    })),
  };
  send(res, 200, JSON.stringify(record));
}

serveBaseline(pool, (req, res, path) => {
  const match = req.method === 'GET' ? STATUS_PATH.exec(path) : null;
  return match ? status(res, req.headers.authorization, match[1] as string) : undefined;
});
