// The floor of bench/door.ts: the least a gateway that charges each chat request and keeps it in
// PostgreSQL must do, with nothing else. A raw node:http server on HOST:PORT that, for
// `POST /v1/chat/completions`, reads the JSON body, accepts a generation of one item in one call
// (accept_generation: the charge and its ledger row, the generation and its item claimed by the
// request, as the service's synchronous requests are accepted), sends the body to the upstream
// (UPSTREAM_URL, model `plain@floor`), settles the item in one call (finish_item: the item
// completed with the answer's text, the unused part of the charge refunded with its ledger row,
// the generation's counts) and answers the upstream's chat.completion; both calls through the
// engine's own wrappers of them (engine/sql: acceptGeneration, recordFinish), which batch the calls
// that come while one is under way, as the service's are (group commit). Each request is charged
// FLOOR_CHARGE credits and kept FLOOR_KEPT of them, on team FLOOR_TEAM_ID, in DATABASE_URL (the
// service's schema), through a pool of DATABASE_POOL_SIZE connections. No authentication, no
// validation, no tokenizer, no stored file, no framework: what the service does beyond this is
// the difference between its figures and these. `GET /healthz` answers 200.
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';
import { wakeTarget } from '../src/engine/create.ts';
import { recordFinish } from '../src/engine/sql/finish.ts';
import { acceptGeneration } from '../src/engine/sql/generations.ts';
import { newId } from '../src/lib/ids.ts';

export const FLOOR_CHARGE = 100;
export const FLOOR_KEPT = 40;

// Who is woken when room frees in the team's cap (nobody waits in this bench): as the service does.
const WAKE = wakeTarget(1_000_000);

function answer(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function chat(pool: pg.Pool, upstream: string, teamId: string, raw: string): Promise<string> {
  const body = JSON.parse(raw) as Record<string, unknown>;
  const model = typeof body.model === 'string' ? body.model : null;
  const itemId = newId('item');
  const accepted = await acceptGeneration(
    pool,
    {
      id: newId('gen'),
      teamId,
      workspaceId: null,
      operation: 'text.generate',
      model,
      input: body,
      creditsCharged: FLOOR_CHARGE,
      totalItems: 1,
      estimatedSeconds: 1,
      webhookUrl: null,
      retentionDays: 0,
      inputKeys: [],
      items: [
        {
          id: itemId,
          position: 0,
          type: 'text',
          model,
          input: body,
          price: FLOOR_CHARGE,
          storageToken: 'floor',
          acceptedRoutes: 'catalog',
        },
      ],
    },
    { ledgerId: newId('led'), reason: 'text.generate (floor)' },
    { claim: { leaseMs: 30_000, defaultCap: WAKE.default_cap } },
  );
  if (accepted.kind !== 'accepted' || accepted.claimed.length !== 1) throw new Error('the floor team cannot pay');
  const res = await fetch(`${upstream}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-floor' },
    body: JSON.stringify({ ...body, model: 'plain@floor' }),
  });
  const text = await res.text();
  const completion = JSON.parse(text) as { choices?: Array<{ message?: { content?: string } }>; usage?: unknown };
  const finished = await recordFinish(pool, {
    itemId,
    teamId,
    ledgerId: newId('led'),
    wake: WAKE,
    ok: true,
    url: `floor:${itemId}`,
    result: { text: completion.choices?.[0]?.message?.content ?? '', usage: completion.usage ?? null },
    actualCredits: FLOOR_KEPT,
  });
  if (!finished.recorded) throw new Error('the item was not settled');
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
