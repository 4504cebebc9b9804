// The floor of bench/door.ts: the least a gateway that charges each chat request and keeps it in
// PostgreSQL must do, with nothing else. A raw node:http server on HOST:PORT that, for
// `POST /v1/chat/completions`, reads the JSON body, accepts a generation of one item in one call
// (accept_generation: the charge and its ledger row, the generation and its item claimed by the
// request, as the service's synchronous requests are accepted), sends the body to the upstream
// (UPSTREAM_URL, model `plain@floor`), settles the item in one call (finish_item: the item
// completed with the answer's text, the unused part of the charge refunded with its ledger row,
// the generation's counts) and answers the upstream's chat.completion. Each request is charged
// FLOOR_CHARGE credits and kept FLOOR_KEPT of them, on team FLOOR_TEAM_ID, in DATABASE_URL (the
// service's schema), through a pool of DATABASE_POOL_SIZE connections. No authentication, no
// validation, no tokenizer, no stored file, no framework: what the service does beyond this is
// the difference between its figures and these. `GET /healthz` answers 200.
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';
import { newId } from '../src/lib/ids.ts';

export const FLOOR_CHARGE = 100;
export const FLOOR_KEPT = 40;

// Who is woken when room frees in the team's cap (nobody waits in this bench).
const wake = { default_cap: 1_000_000, task: 'run_generation_item', max_attempts: 3, channel: 'item_room' };

function answer(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function chat(pool: pg.Pool, upstream: string, teamId: string, raw: string): Promise<string> {
  const body = JSON.parse(raw) as Record<string, unknown>;
  const generationId = newId('gen');
  const itemId = newId('item');
  const accepted = await pool.query<{ a: { created_at?: string } }>('select accept_generation($1::jsonb) as a', [
    JSON.stringify({
      generation: {
        id: generationId,
        team_id: teamId,
        workspace_id: null,
        operation: 'text.generate',
        model: body.model,
        input: body,
        credits_charged: FLOOR_CHARGE,
        total_items: 1,
        estimated_seconds: 1,
        webhook_url: null,
        retention_days: 0,
        input_keys: [],
        parent_item_id: null,
        purpose: null,
        traceparent: null,
      },
      charge: { id: newId('led'), reason: 'text.generate (floor)' },
      items: [
        {
          id: itemId,
          position: 0,
          type: 'text',
          model: body.model,
          input: body,
          price: FLOOR_CHARGE,
          storage_token: 'floor',
          accepted_routes: 'catalog',
          run_at: null,
        },
      ],
      claim: { lease_ms: 30_000, default_cap: wake.default_cap },
    }),
  ]);
  if (accepted.rows[0]?.a.created_at === undefined) throw new Error('the floor team cannot pay');
  const res = await fetch(`${upstream}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-floor' },
    body: JSON.stringify({ ...body, model: 'plain@floor' }),
  });
  const text = await res.text();
  const completion = JSON.parse(text) as { choices?: Array<{ message?: { content?: string } }>; usage?: unknown };
  const finished = await pool.query<{ f: { recorded: boolean } }>('select finish_item($1::jsonb) as f', [
    JSON.stringify({
      item_id: itemId,
      team_id: teamId,
      route_served: null,
      ledger_id: newId('led'),
      wake,
      ok: true,
      url: `floor:${itemId}`,
      result: { text: completion.choices?.[0]?.message?.content ?? '', usage: completion.usage ?? null },
      bytes: null,
      attempt: null,
      actual_credits: FLOOR_KEPT,
    }),
  ]);
  if (finished.rows[0]?.f.recorded !== true) throw new Error('the item was not settled');
  return text;
}

function startFloor(): void {
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.DATABASE_POOL_SIZE ?? 16),
  });
  const upstream = process.env.UPSTREAM_URL ?? '';
  const teamId = process.env.FLOOR_TEAM_ID ?? '';
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/healthz') return answer(res, 200, '{"status":"ok"}');
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return answer(res, 404, '{}');
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      chat(pool, upstream, teamId, Buffer.concat(parts).toString('utf8')).then(
        (text) => answer(res, 200, text),
        (err: unknown) => answer(res, 500, JSON.stringify({ error: String(err) })),
      );
    });
  });
  server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
  const stop = () => {
    server.close();
    server.closeAllConnections();
    void pool.end();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (import.meta.main) startFloor();
