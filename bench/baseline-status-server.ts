// Baseline for bench/status.ts: GET /api/v1/generations/{id}/status done the simplest way, with
// no framework. A raw node:http server and a `pg` pool of the service's size; for each request it
// reads the bearer key, hashes it with SHA-256 and looks it up in api_keys (one query), then runs
// the same status statement as the service (src/engine/sql/history.ts selectStatus, copied here: the
// generation by primary key and its items aggregated as JSON, in one statement) and builds the
// same JSON record: result_urls from the completed items, credits_used = charged - refunded,
// expires_at, and each item's error, progress, queue_position and provider.
// Answers 401 JSON for a missing, unknown or revoked key and 404 JSON for an unknown generation
// or another team's, like the service. The server, pool and answers are bench/baseline-http.ts.
//
// Environment: DATABASE_URL (required), PORT, HOST, DATABASE_POOL_SIZE (default 10, as the service).
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { baselinePool, bearerKey, send, sendError, serveBaseline } from './baseline-http.ts';

const KEY_BY_HASH = 'select id, team_id from api_keys where key_hash = $1::bytea and revoked_at is null';
// The text of src/engine/sql/history.ts STATUS_SELECT (STATUS_COLUMNS with STATUS_ITEMS: each
// item's error, progress, queue position among the team's waiting items, and provider) +
// selectStatus's where clause.
const STATUS_SELECT = `
  select g.id, g.team_id, g.status, g.operation, g.credits_charged, g.credits_refunded, g.total_items,
         g.completed_items, g.failed_items, g.result,
         to_char(g.expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as expires_at,
         (select coalesce(json_agg(json_build_object(
                    'id', i.id, 'type', i.type, 'status', i.status, 'url', i.url,
                    'error', case when i.status = 'FAILED' then i.error end,
                    'progress', case i.status when 'COMPLETED' then 1 when 'QUEUED' then 0
                                  else coalesce(i.progress, 0) end,
                    'queue_position', case
                       when i.status = 'QUEUED' then coalesce(
                         (select 1 + (select count(*) from team_waits w2
                                      where w2.team_id = w.team_id
                                        and (w2.generation_created_at, w2.generation_id, w2.position)
                                            < (w.generation_created_at, w.generation_id, w.position))
                          from team_waits w where w.item_id = i.id),
                         i.queue_position)
                       when i.status = 'PROCESSING' then i.queue_position end,
                    'provider', case when i.simulated then 'simulator' end,
                    'created_at', to_char(i.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                    'updated_at', to_char(i.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                  order by i.position), '[]'::json)
            from generation_items i where i.generation_id = g.id) as items
  from generations g where g.id = $1::text and g.team_id = $2::text and g.parent_item_id is null`;
const STATUS_PATH = /^\/api\/v1\/generations\/([^/]{1,64})\/status$/;

interface StatusItem {
  id: string;
  type: string;
  status: string;
  url: string | null;
  error: string | null;
  progress: number;
  queue_position: number | null;
  provider: 'simulator' | null;
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
  expires_at: string | null;
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
    expires_at: row.expires_at,
    items: row.items.map((i) => ({
      id: i.id,
      type: i.type,
      status: i.status,
      url: i.url,
      error: i.error,
      progress: i.progress,
      queue_position: i.queue_position,
      provider: i.provider,
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
