/** Accepting a generation: its row, its items' rows and their jobs, in the caller's transaction. */

import type { Queryable } from '../../db/pool.ts';
import type { AcceptedRoutes } from '../types.ts';

export interface GenerationInsert {
  id: string;
  teamId: string;
  workspaceId: string | null;
  operation: string;
  model: string | null;
  input: unknown;
  creditsCharged: number;
  totalItems: number;
  estimatedSeconds: number;
  webhookUrl: string | null;
  /** Days its result files are kept (0: kept for good). */
  retentionDays: number;
  /** Storage keys of the copies of its input media (deleted with its results). */
  inputKeys: string[];
  /**
   * The item this generation is work for, and what for (sub-work): its files then expire with that
   * item's generation, whatever `retentionDays` says.
   */
  parent?: { itemId: string; purpose: string };
  /** Its items, inserted with it. */
  items: ItemInsert[];
  /** The trace its items' jobs continue (a W3C traceparent; see migration 0035), when tracing is on. */
  traceparent?: string | null;
}

export interface ItemInsert {
  id: string;
  position: number;
  type: string;
  model: string | null;
  input: unknown;
  price: number;
  storageToken: string;
  /** The routes its model had when it was accepted (see migration 0032). */
  acceptedRoutes: AcceptedRoutes;
  /** Run by the synchronous request that accepts it, in its own process: no job (migration 0034). */
  inRequest?: boolean;
}

/** The generation's row and its items' rows, in one statement; returns when it was created. */
export async function insertGeneration(db: Queryable, g: GenerationInsert): Promise<Date> {
  // The items' foreign key to the generation is checked at the end of the statement, when both are in.
  const { rows } = await db.query<{ created_at: Date }>(
    `with generation as (
       insert into generations
         (id, team_id, workspace_id, operation, model, input, credits_charged, total_items, estimated_seconds,
          webhook_url, expires_at, input_keys, parent_item_id, purpose)
       values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::jsonb, $7::bigint, $8::int, $9::numeric, $10::text,
               case
                 when $13::text is not null then
                   (select p.expires_at from generation_items pi join generations p on p.id = pi.generation_id
                    where pi.id = $13::text)
                 when $11::int > 0 then now() + make_interval(days => $11::int)
               end,
               $12::text[], $13::text, $14::text)
       returning created_at
     ), items as (
       insert into generation_items
         (id, generation_id, position, type, model, input, price, storage_token, accepted_routes, in_request,
          traceparent)
       select x.id, $1::text, x.position, x.type, x.model, x.input, x.price, x.storage_token, x.accepted_routes,
              coalesce(x.in_request, false), $16::text
       from jsonb_to_recordset($15::jsonb)
         as x(id text, position int, type text, model text, input jsonb, price bigint, storage_token text,
              accepted_routes jsonb, in_request boolean)
     )
     select created_at from generation`,
    [
      g.id,
      g.teamId,
      g.workspaceId,
      g.operation,
      g.model,
      JSON.stringify(g.input),
      g.creditsCharged,
      g.totalItems,
      g.estimatedSeconds,
      g.webhookUrl,
      g.retentionDays,
      g.inputKeys,
      g.parent?.itemId ?? null,
      g.parent?.purpose ?? null,
      JSON.stringify(
        g.items.map((i) => ({
          id: i.id,
          position: i.position,
          type: i.type,
          model: i.model,
          input: i.input,
          price: i.price,
          storage_token: i.storageToken,
          accepted_routes: i.acceptedRoutes,
          in_request: i.inRequest ?? false,
        })),
      ),
      g.traceparent ?? null,
    ],
  );
  return (rows[0] as { created_at: Date }).created_at;
}

/** The trace an item's jobs continue, when it was accepted with tracing on. */
export async function selectItemTraceparent(db: Queryable, itemId: string): Promise<string | null> {
  const { rows } = await db.query<{ traceparent: string | null }>(
    'select traceparent from generation_items where id = $1',
    [itemId],
  );
  return rows[0]?.traceparent ?? null;
}

/**
 * Queues one job per item of a generation, in the caller's transaction; `runAt` delays them (a
 * synchronous request runs its items itself and leaves the jobs as a safety net).
 */
export async function addItemJobs(
  db: Queryable,
  task: string,
  itemIds: string[],
  maxAttempts: number,
  runAt: Date | null = null,
): Promise<void> {
  await db.query(
    `select graphile_worker.add_job($1::text, json_build_object('item_id', item_id), max_attempts => $3::int,
       run_at => $4::timestamptz)
     from unnest($2::text[]) as item_id`,
    [task, itemIds, maxAttempts, runAt],
  );
}

/** A team's generation as accepted, with its items' storage tokens (to finish it after a crash). */
export async function selectAcceptedGeneration(
  db: Queryable,
  id: string,
  teamId: string,
): Promise<
  | {
      credits_charged: number;
      estimated_seconds: number;
      created_at: Date;
      items: Array<{ id: string; storage_token: string }>;
    }
  | undefined
> {
  const { rows } = await db.query<{
    credits_charged: number;
    estimated_seconds: number;
    created_at: Date;
    items: Array<{ id: string; storage_token: string }>;
  }>(
    `select g.credits_charged, g.estimated_seconds::float8 as estimated_seconds, g.created_at,
            (select json_agg(json_build_object('id', i.id, 'storage_token', i.storage_token) order by i.position)
             from generation_items i where i.generation_id = g.id) as items
     from generations g where g.id = $1::text and g.team_id = $2::text`,
    [id, teamId],
  );
  return rows[0];
}

/**
 * Holds, until the end of the caller's transaction, the lock the transaction accepting generation
 * `id` takes first: whoever else takes it waits until that transaction has committed or rolled back.
 */
export async function lockGenerationId(db: Queryable, id: string): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtextextended('generation:' || $1::text, 0))`, [id]);
}

/** Whether the team has a generation with this id (one primary-key probe). */
export async function generationExists(db: Queryable, id: string, teamId: string): Promise<boolean> {
  const { rowCount } = await db.query('select 1 from generations where id = $1::text and team_id = $2::text', [
    id,
    teamId,
  ]);
  return (rowCount ?? 0) > 0;
}

/** Sub-work of an item for a purpose, as the item that needs it reads it: its one item's outcome. */
export interface SubWorkRow {
  generation_id: string;
  item_id: string;
  status: 'QUEUED' | 'PROCESSING' | 'COMPLETED' | 'FAILED';
  url: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
}

/** The sub-work made for item `itemId` under `purpose`, if there is some. */
export async function selectSubWork(db: Queryable, itemId: string, purpose: string): Promise<SubWorkRow | undefined> {
  const { rows } = await db.query<SubWorkRow>(
    `select g.id as generation_id, i.id as item_id, i.status, i.url, i.result, i.error
     from generations g join generation_items i on i.generation_id = g.id
     where g.parent_item_id = $1::text and g.purpose = $2::text
     order by i.position limit 1`,
    [itemId, purpose],
  );
  return rows[0];
}
