// Baseline for bench/create.ts: POST /api/v1/images/generate done the simplest way, with no
// framework. A raw node:http server and a `pg` pool of the service's size; for each request it
// reads the bearer key, hashes it with SHA-256 and looks it up in api_keys (one query), parses the
// JSON body, takes the model's price from the service's catalog, and in one transaction, a
// statement at a time (the plain way; the service makes the same writes in one call of its
// accept_generation function, migration 0036): charges the team (update teams … returning +
// insert into credit_ledger, as apply_credit_change does), inserts the generation row, one
// generation_items row per image, and one graphile-worker job per item; commits; and answers the service's JSON
// {generation_id, status: 'queued', images: [], estimated_time, credits_used}. Ids have the
// service's shape (src/lib/ids.ts newId). 401 for a bad key, 400 for a bad body, 402 when the
// balance is short, like the service. The server, pool and answers are bench/baseline-http.ts.
//
// Environment: DATABASE_URL (required), PORT, HOST, DATABASE_POOL_SIZE (default 10, as the service).
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { loadModelCatalog } from '../src/catalog/models.ts';
import { newId } from '../src/lib/ids.ts';
import { baselinePool, bearerKey, HttpError, send, serveBaseline } from './baseline-http.ts';

const KEY_BY_HASH = 'select id, team_id from api_keys where key_hash = $1::bytea and revoked_at is null';
// As apply_credit_change (migration 0036).
const CREDIT_CHANGE = `with updated as (
       update teams set credits = credits + $3::bigint
       where id = $2::text and credits + $3::bigint >= 0
       returning credits
     )
     insert into credit_ledger (id, team_id, amount, balance_after, kind, reason, generation_id)
     select $1::text, $2::text, $3::bigint, updated.credits, $4::text, $5::text, $6::text from updated
     returning id, team_id, amount, balance_after, kind, reason, generation_id, created_at`;
// The generation's row, as accept_generation (migration 0036) inserts it.
const INSERT_GENERATION = `insert into generations
       (id, team_id, workspace_id, operation, model, input, credits_charged, total_items, estimated_seconds, webhook_url)
     values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::jsonb, $7::bigint, $8::int, $9::numeric, $10::text)
     returning created_at`;
const INSERT_ITEM = `insert into generation_items (id, generation_id, position, type, model, input, price, storage_token)
     values ($1::text, $2::text, $3::int, 'image', $4::text, $5::jsonb, $6::bigint, $7::text)`;
const ADD_JOB = `select graphile_worker.add_job('generation_item', json_build_object('item_id', $1::text), max_attempts => 3)`;
const BODY_LIMIT = 1_048_576;
const DEFAULT_STEPS = 28;

const pool = baselinePool();
const catalog = loadModelCatalog();

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) throw new HttpError(413, 'payload_too_large', 'Body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

interface Body {
  prompt: string;
  model?: string;
  batch?: number;
}

function parse(text: string): Body {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_request', 'Body is not valid JSON');
  }
  const b = body as Partial<Record<keyof Body, unknown>> | null;
  if (typeof b !== 'object' || b === null) throw new HttpError(400, 'invalid_request', 'Body must be an object');
  if (typeof b.prompt !== 'string' || b.prompt.length < 1 || b.prompt.length > 4000)
    throw new HttpError(400, 'invalid_request', 'prompt must be a string of 1-4000 characters');
  if (b.model !== undefined && typeof b.model !== 'string') throw new HttpError(400, 'invalid_request', 'bad model');
  if (b.batch !== undefined && !(Number.isInteger(b.batch) && (b.batch as number) >= 1 && (b.batch as number) <= 10))
    throw new HttpError(400, 'invalid_request', 'batch must be 1-10');
  return b as Body;
}

async function generate(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const key = bearerKey(req.headers.authorization);
  if (key === undefined) throw new HttpError(401, 'unauthorized', "Send the header 'Authorization: Bearer <API key>'");
  const hash = createHash('sha256').update(key).digest();
  const principal = (await pool.query<{ id: string; team_id: string }>(KEY_BY_HASH, [hash])).rows[0];
  if (principal === undefined) throw new HttpError(401, 'unauthorized', 'Invalid or revoked API key');
  const teamId = principal.team_id;

  const body = parse(await readBody(req));
  const model = catalog.find('image', body.model ?? catalog.defaults.image.id);
  if (!model) throw new HttpError(400, 'model_not_found', `Unknown image model '${body.model}'`);
  const batch = body.batch ?? 1;
  const price = model.price.credits_per_image;
  const total = price * batch;
  const input = {
    prompt: body.prompt,
    negative_prompt: null,
    aspect_ratio: '1:1',
    steps: Math.min(DEFAULT_STEPS, model.settings.max_inference_steps),
    references: [],
    lora: null,
  };
  const generationId = newId('gen');
  const itemIds = Array.from({ length: batch }, () => newId('item'));

  const client = await pool.connect();
  try {
    await client.query('begin');
    const charged = await client.query(CREDIT_CHANGE, [
      newId('led'),
      teamId,
      -total,
      'charge',
      `image.generate (${model.id})`,
      generationId,
    ]);
    if (charged.rowCount === 0) throw new HttpError(402, 'insufficient_credits', `This needs ${total} credits`);
    await client.query(INSERT_GENERATION, [
      generationId,
      teamId,
      null,
      'image.generate',
      model.id,
      JSON.stringify(input),
      total,
      batch,
      model.estimated_seconds,
      null,
    ]);
    for (const [position, itemId] of itemIds.entries()) {
      await client.query(INSERT_ITEM, [
        itemId,
        generationId,
        position,
        model.id,
        JSON.stringify({ seed: position }),
        price,
        randomBytes(16).toString('hex'),
      ]);
      await client.query(ADD_JOB, [itemId]);
    }
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  send(
    res,
    200,
    JSON.stringify({
      generation_id: generationId,
      status: 'queued',
      images: [],
      estimated_time: model.estimated_seconds,
      credits_used: total,
    }),
  );
}

serveBaseline(pool, (req, res, path) =>
  req.method === 'POST' && path === '/api/v1/images/generate' ? generate(req, res) : undefined,
);
