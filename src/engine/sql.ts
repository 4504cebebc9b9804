import type { Queryable } from '../db/pool.ts';

export type GenerationStatus = 'queued' | 'processing' | 'completed' | 'failed';
export type ItemStatus = 'QUEUED' | 'PROCESSING' | 'COMPLETED' | 'FAILED';

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
}

export interface ItemInsert {
  id: string;
  position: number;
  type: string;
  model: string | null;
  input: unknown;
  price: number;
  storageToken: string;
}

export async function insertGeneration(db: Queryable, g: GenerationInsert): Promise<Date> {
  const { rows } = await db.query<{ created_at: Date }>(
    `insert into generations
       (id, team_id, workspace_id, operation, model, input, credits_charged, total_items, estimated_seconds, webhook_url,
        expires_at, input_keys)
     values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::jsonb, $7::bigint, $8::int, $9::numeric, $10::text,
             case when $11::int > 0 then now() + make_interval(days => $11::int) end, $12::text[])
     returning created_at`,
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
    ],
  );
  return (rows[0] as { created_at: Date }).created_at;
}

/** All items of a generation in one statement. */
export async function insertItems(db: Queryable, generationId: string, items: ItemInsert[]): Promise<void> {
  await db.query(
    `insert into generation_items (id, generation_id, position, type, model, input, price, storage_token)
     select x.id, $1::text, x.position, x.type, x.model, x.input, x.price, x.storage_token
     from jsonb_to_recordset($2::jsonb)
       as x(id text, position int, type text, model text, input jsonb, price bigint, storage_token text)`,
    [
      generationId,
      JSON.stringify(
        items.map((i) => ({
          id: i.id,
          position: i.position,
          type: i.type,
          model: i.model,
          input: i.input,
          price: i.price,
          storage_token: i.storageToken,
        })),
      ),
    ],
  );
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

/** The stored outcome of one item (for synchronous answers). */
export async function selectItemResult(db: Queryable, itemId: string): Promise<ItemResult | undefined> {
  const { rows } = await db.query<ItemResult>(
    'select status, url, result, error, error_kind from generation_items where id = $1::text',
    [itemId],
  );
  return rows[0];
}

export interface ItemResult {
  status: ItemStatus;
  url: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
  /** The ProviderError kind of a failure, when a provider said why. */
  error_kind: string | null;
}

export interface StatusRow {
  id: string;
  team_id: string;
  status: GenerationStatus;
  operation: string;
  credits_charged: number;
  credits_refunded: number;
  total_items: number;
  completed_items: number;
  failed_items: number;
  result: unknown;
  /** When its result files are deleted (ISO); null: kept. */
  expires_at: string | null;
  items: Array<{
    id: string;
    type: string;
    status: ItemStatus;
    url: string | null;
    error: string | null;
    progress: number;
    queue_position: number | null;
    /** 'simulator' when the simulator made (or is making) it in place of a vendor; null otherwise. */
    provider: 'simulator' | null;
    created_at: string;
    updated_at: string;
  }>;
}

/** A generation's items as its status record lists them, in order (a correlated subquery on `g`). */
const STATUS_ITEMS = `
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
     from generation_items i where i.generation_id = g.id) as items`;

const STATUS_COLUMNS = `g.id, g.team_id, g.status, g.operation, g.credits_charged, g.credits_refunded, g.total_items,
  g.completed_items, g.failed_items, g.result,
  to_char(g.expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as expires_at, ${STATUS_ITEMS}`;

const STATUS_SELECT = `select ${STATUS_COLUMNS} from generations g`;

/** A generation as the team's history lists it: its status row, and what it was. */
export interface HistoryRow extends StatusRow {
  model: string | null;
  workspace_id: string | null;
  prompt: string | null;
  created_at: string;
  /** created_at to the microsecond (the cursor's key, with the id). */
  cursor_at: string;
}

/** Filters of the team's history. */
export interface HistoryFilter {
  status?: GenerationStatus;
  /** The operation's family (`video` for `video.generate`, `video.lipsync`, ...). */
  kind?: string;
  operation?: string;
  model?: string;
  workspaceId?: string;
  createdAfter?: string;
  createdBefore?: string;
  /** Strictly older than this (created_at, id): the cursor of the page before. */
  before?: { createdAt: string; id: string };
}

/** How long the prompt excerpt of a history entry is. */
const PROMPT_EXCERPT = 200;

/**
 * One page of a team's generations, newest first, with their status records: one statement, by
 * the (team_id, created_at, id) index, or with a filter by that filter's (team_id, <filter>,
 * created_at, id) index (status, kind, operation, model, workspace: migrations 0015 and 0021).
 */
export async function selectHistory(
  db: Queryable,
  teamId: string,
  filter: HistoryFilter,
  limit: number,
): Promise<HistoryRow[]> {
  const args: unknown[] = [teamId];
  const where = ['g.team_id = $1::text'];
  const arg = (value: unknown, cast: string) => {
    args.push(value);
    return `$${args.length}::${cast}`;
  };
  if (filter.status) where.push(`g.status = ${arg(filter.status, 'text')}`);
  if (filter.operation) where.push(`g.operation = ${arg(filter.operation, 'text')}`);
  if (filter.kind) where.push(`g.kind = ${arg(filter.kind, 'text')}`);
  if (filter.model) where.push(`g.model = ${arg(filter.model, 'text')}`);
  if (filter.workspaceId) where.push(`g.workspace_id = ${arg(filter.workspaceId, 'text')}`);
  // Times are shown to the millisecond: after 12:00:00.123 is from 12:00:00.124 on.
  if (filter.createdAfter) {
    where.push(`g.created_at >= ${arg(filter.createdAfter, 'timestamptz')} + interval '1 millisecond'`);
  }
  if (filter.createdBefore) where.push(`g.created_at < ${arg(filter.createdBefore, 'timestamptz')}`);
  if (filter.before) {
    where.push(
      `(g.created_at, g.id) < (${arg(filter.before.createdAt, 'timestamptz')}, ${arg(filter.before.id, 'text')})`,
    );
  }
  const { rows } = await db.query<HistoryRow>(
    `select ${STATUS_COLUMNS}, g.model, g.workspace_id,
            left(coalesce(g.input->>'prompt', g.input->>'text', g.input->>'script', g.input->>'description',
                          g.input->>'dialog', g.input->>'lyrics'), ${PROMPT_EXCERPT}) as prompt,
            to_char(g.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at,
            to_char(g.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
     from generations g
     where ${where.join(' and ')}
     order by g.created_at desc, g.id desc
     limit ${arg(limit, 'int')}`,
    args,
  );
  return rows;
}

/**
 * The whole status record of a team's generation in one statement: the generation by primary
 * key, its items through the (generation_id, position) index.
 */
export async function selectStatus(db: Queryable, id: string, teamId: string): Promise<StatusRow | undefined> {
  const { rows } = await db.query<StatusRow>(`${STATUS_SELECT} where g.id = $1::text and g.team_id = $2::text`, [
    id,
    teamId,
  ]);
  return rows[0];
}

/** The status rows of several generations at once (any team: the callers checked who may see them). */
export async function selectStatuses(db: Queryable, ids: string[]): Promise<StatusRow[]> {
  const { rows } = await db.query<StatusRow>(`${STATUS_SELECT} where g.id = any($1::text[])`, [ids]);
  return rows;
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

export interface ClaimedItem {
  id: string;
  generation_id: string;
  position: number;
  type: string;
  model: string | null;
  input: Record<string, unknown>;
  storage_token: string;
  /** Claims so far, this one included. */
  attempts: number;
  /** Claims that ended in a provider failure. */
  failures: number;
  price: number;
  /** Set once the item went to a vendor (see migration 0010). */
  provider: string | null;
  vendor_endpoint: string | null;
  vendor_state: 'submitting' | 'accepted' | null;
  vendor_handle: Record<string, string | number | null> | null;
  /** When the vendor accepted the job it runs now. */
  vendor_accepted_at: Date | null;
  /** Routes ('provider endpoint') the item moved away from (failover). */
  skipped_routes: string[];
  /** Provider failures on the route it is on now. */
  route_failures: number;
  /** Set once its result file is being stored (see migration 0024): a cancel leaves it to complete. */
  storing_result_at: Date | null;
  team_id: string;
  workspace_id: string | null;
  operation: string;
  generation_input: Record<string, unknown>;
}

/**
 * Moves an item to PROCESSING (again, after a crash) under a lease of `leaseMs`, and its
 * generation from queued to processing. Nothing comes back for an item that is already
 * finished: the job is then a no-op.
 */
export async function claimItem(db: Queryable, itemId: string, leaseMs: number): Promise<ClaimedItem | undefined> {
  const { rows } = await db.query<ClaimedItem>(
    `with item as (
       update generation_items set status = 'PROCESSING', attempts = attempts + 1, updated_at = now(),
         started_at = coalesce(started_at, now()),
         lease_expires_at = now() + make_interval(secs => $2::float8 / 1000)
       where id = $1::text and status in ('QUEUED', 'PROCESSING')
       returning id, generation_id, position, type, model, input, storage_token, attempts, failures, price,
                 provider, vendor_endpoint, vendor_state, vendor_handle, vendor_accepted_at, skipped_routes,
                 route_failures, storing_result_at
     ), generation as (
       update generations g set status = 'processing', updated_at = now()
       from item where g.id = item.generation_id and g.status = 'queued'
       returning g.id
     )
     select item.*, g.team_id, g.workspace_id, g.operation, g.input as generation_input
     from item join generations g on g.id = item.generation_id`,
    [itemId, leaseMs],
  );
  return rows[0];
}

/** What claiming an item within its team's cap came to. */
export type CappedClaim =
  | { kind: 'claimed'; item: ClaimedItem }
  /** The team runs its cap of items: this one waits its turn (team_waits) and is started then. */
  | { kind: 'waiting' }
  /** It had finished: the job has nothing to do. */
  | { kind: 'finished' };

/**
 * Claims an item if its team has room: fewer running items than its cap, counting the team's
 * queued items that came before it (so work starts in the order it came). Without room, the item
 * waits in team_waits and is woken when room frees. An item already PROCESSING (claimed again
 * after a crash) holds its room. The team's row lock orders the claims of one team; while the
 * team's running and queued items fit under its cap, no count is needed.
 */
export async function claimItemWithinCap(
  db: Queryable,
  itemId: string,
  leaseMs: number,
  defaultCap: number,
): Promise<CappedClaim> {
  const { rows } = await db.query<{
    status: ItemStatus;
    team_id: string;
    cap: number;
    running_items: number;
    queued_items: number;
    generation_id: string;
    generation_created_at: Date;
    position: number;
  }>(
    `select i.status, g.team_id, coalesce(t.max_concurrent_items, $2::int) as cap, t.running_items, t.queued_items,
            g.id as generation_id, g.created_at as generation_created_at, i.position
     from generation_items i join generations g on g.id = i.generation_id join teams t on t.id = g.team_id
     where i.id = $1::text and i.status in ('QUEUED', 'PROCESSING')
     for update of t`,
    [itemId, defaultCap],
  );
  const row = rows[0];
  if (!row) return { kind: 'finished' };
  if (row.status === 'QUEUED' && row.running_items + row.queued_items - 1 >= row.cap) {
    // Over the cap with what is queued: only the oldest queued items have room.
    const { rows: ahead } = await db.query<{ n: number }>(
      `select count(*)::int as n
       from generations g join generation_items i on i.generation_id = g.id
       where g.team_id = $1::text and g.status in ('queued', 'processing') and i.status = 'QUEUED'
         and (g.created_at, g.id, i.position) < ($2::timestamptz, $3::text, $4::int)`,
      [row.team_id, row.generation_created_at, row.generation_id, row.position],
    );
    if (row.running_items + (ahead[0]?.n ?? 0) >= row.cap) {
      await db.query(
        `insert into team_waits (item_id, team_id, generation_created_at, generation_id, position)
         values ($1::text, $2::text, $3::timestamptz, $4::text, $5::int)
         on conflict (item_id) do update set woken_at = null`,
        [itemId, row.team_id, row.generation_created_at, row.generation_id, row.position],
      );
      return { kind: 'waiting' };
    }
  }
  const item = await claimItem(db, itemId, leaseMs);
  await db.query('delete from team_waits where item_id = $1::text', [itemId]);
  return item ? { kind: 'claimed', item } : { kind: 'finished' };
}

/** Locks a team's row for the rest of the transaction (claims and finishes of its items take it first). */
export async function lockTeam(db: Queryable, teamId: string): Promise<void> {
  await db.query('select 1 from teams where id = $1::text for update', [teamId]);
}

/**
 * The waiting items of a team that now have room (the oldest, as many as its cap allows beside
 * its running items), marked woken: their jobs are to be queued. Items woken before and not yet
 * started keep their place and are not woken twice.
 */
export async function wakeWaitingItems(db: Queryable, teamId: string, defaultCap: number): Promise<string[]> {
  const { rows } = await db.query<{ item_id: string }>(
    `with room as (
       select greatest(0, coalesce(t.max_concurrent_items, $2::int) - t.running_items) as n
       from teams t where t.id = $1::text
     ), heads as (
       select w.item_id, w.woken_at from team_waits w
       where w.team_id = $1::text
       order by w.generation_created_at, w.generation_id, w.position
       limit (select n from room)
     )
     update team_waits w set woken_at = now()
     from heads where w.item_id = heads.item_id and heads.woken_at is null
     returning w.item_id`,
    [teamId, defaultCap],
  );
  return rows.map((r) => r.item_id);
}

/** How many of `itemIds` are still queued or processing. */
export async function countUnfinishedItems(db: Queryable, itemIds: string[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from generation_items
     where id = any($1::text[]) and status in ('QUEUED', 'PROCESSING')`,
    [itemIds],
  );
  return rows[0]?.n ?? 0;
}

/** The ids of a team's generation's unfinished items (none: all finished); undefined: no such generation. */
export async function selectUnfinishedItemIds(
  db: Queryable,
  generationId: string,
  teamId: string,
): Promise<string[] | undefined> {
  const { rows } = await db.query<{ ids: string[] }>(
    `select coalesce(array_agg(i.id order by i.position) filter (where i.status in ('QUEUED', 'PROCESSING')), '{}') as ids
     from generations g left join generation_items i on i.generation_id = g.id
     where g.id = $1::text and g.team_id = $2::text
     group by g.id`,
    [generationId, teamId],
  );
  return rows[0]?.ids;
}

/** An unfinished item as a claim would return it, without claiming it (to fail it from the sweep). */
export async function selectUnfinishedItem(db: Queryable, itemId: string): Promise<ClaimedItem | undefined> {
  const { rows } = await db.query<ClaimedItem>(
    `select i.id, i.generation_id, i.position, i.type, i.model, i.input, i.storage_token, i.attempts, i.failures,
            i.price, i.provider, i.vendor_endpoint, i.vendor_state, i.vendor_handle, i.vendor_accepted_at,
            i.skipped_routes, i.route_failures, i.storing_result_at, g.team_id, g.workspace_id, g.operation,
            g.input as generation_input
     from generation_items i join generations g on g.id = i.generation_id
     where i.id = $1::text and i.status in ('QUEUED', 'PROCESSING')`,
    [itemId],
  );
  return rows[0];
}

/** The vendor job an item holds, whatever its status (undefined: no job was accepted for it). */
export async function selectAcceptedVendorJob(
  db: Queryable,
  itemId: string,
): Promise<{ provider: string; vendor_handle: Record<string, unknown> } | undefined> {
  const { rows } = await db.query<{ provider: string; vendor_handle: Record<string, unknown> }>(
    `select provider, vendor_handle from generation_items
     where id = $1::text and vendor_state = 'accepted' and provider is not null and vendor_handle is not null`,
    [itemId],
  );
  return rows[0];
}

/** Extends the leases of items this process is running. */
export async function renewItemLeases(db: Queryable, itemIds: string[], leaseMs: number): Promise<void> {
  await db.query(
    `update generation_items set lease_expires_at = now() + make_interval(secs => $2::float8 / 1000)
     where id = any($1::text[]) and status = 'PROCESSING'`,
    [itemIds, leaseMs],
  );
}

/**
 * Counts a failed provider attempt of an item that will be tried again, and lets its lease go:
 * on the same route, or on the next one (`leaving`, the route it fails over from).
 */
export async function recordItemFailure(db: Queryable, itemId: string, leaving?: string): Promise<void> {
  await db.query(
    `update generation_items set failures = failures + 1,
       route_failures = case when $2::text is null then route_failures + 1 else 0 end,
       skipped_routes = case when $2::text is null then skipped_routes else array_append(skipped_routes, $2::text) end,
       lease_expires_at = null, updated_at = now()
     where id = $1::text and status = 'PROCESSING'`,
    [itemId, leaving ?? null],
  );
}

/**
 * Takes back a claim that ran nothing (every route of the item is cooling down): the claim is not
 * counted as an interrupted run, and the lease goes.
 */
export async function deferItem(db: Queryable, itemId: string): Promise<void> {
  await db.query(
    `update generation_items set attempts = greatest(attempts - 1, 0), lease_expires_at = null, updated_at = now()
     where id = $1::text and status = 'PROCESSING'`,
    [itemId],
  );
}

// The recovery sweep. A job is "runnable" when graphile-worker will still pick it up: not
// locked, attempts left. A locked job counts only through the lease of what it runs (its
// process renews that lease); a locked job behind an expired lease was lost with its process,
// or its completion was lost in an outage.

const RUNNABLE_JOB = `
  select 1 from graphile_worker._private_jobs j
  join graphile_worker._private_tasks t on t.id = j.task_id
  where t.identifier = any($1::text[]) and j.locked_at is null and j.attempts < j.max_attempts`;

/**
 * Unfinished items whose lease has run out (or that never had one) and that no runnable job
 * will pick up, oldest first.
 */
export async function selectStrandedItems(db: Queryable, tasks: string[], limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select i.id from generation_items i
     where i.status in ('QUEUED', 'PROCESSING')
       and (i.lease_expires_at is null or i.lease_expires_at < now())
       and not exists (${RUNNABLE_JOB} and j.payload->>'item_id' = i.id)
       -- Waiting for room in its team's cap: its job is queued when the room is there.
       and not exists (select 1 from team_waits w where w.item_id = i.id and w.woken_at is null)
     order by i.created_at
     limit $2::int`,
    [tasks, limit],
  );
  return rows.map((r) => r.id);
}

/**
 * Unfinished items older than the deadline of their type (`deadlines` in seconds by item type,
 * `fallbackS` for the rest), oldest first.
 */
export async function selectOverdueItems(
  db: Queryable,
  deadlines: Record<string, number>,
  fallbackS: number,
  limit: number,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select i.id from generation_items i
     where i.status in ('QUEUED', 'PROCESSING')
       and coalesce(i.started_at, i.created_at)
           < now() - make_interval(secs => coalesce(($1::jsonb ->> i.type)::float8, $2::float8))
       -- The time an item waits for room in its team's cap is not its own.
       and not exists (select 1 from team_waits w where w.item_id = i.id)
     order by i.created_at
     limit $3::int`,
    [JSON.stringify(deadlines), fallbackS, limit],
  );
  return rows.map((r) => r.id);
}

/**
 * Locks a stranded item for requeueing, checking again under the lock that it is still
 * unfinished, out of lease and without a runnable job; false when it is no longer stranded.
 */
export async function lockStrandedItem(db: Queryable, tasks: string[], itemId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `select 1 from generation_items i
     where i.id = $2::text and i.status in ('QUEUED', 'PROCESSING')
       and (i.lease_expires_at is null or i.lease_expires_at < now())
       and not exists (${RUNNABLE_JOB} and j.payload->>'item_id' = i.id)
     for update of i`,
    [tasks, itemId],
  );
  return (rowCount ?? 0) > 0;
}

/** Deletes the jobs of a task whose payload `field` is `value` (lost or spent ones, before a new one). */
export async function deleteJobsFor(db: Queryable, tasks: string[], field: string, value: string): Promise<void> {
  await db.query(
    `delete from graphile_worker._private_jobs j using graphile_worker._private_tasks t
     where t.id = j.task_id and t.identifier = any($1::text[]) and j.payload->>$2::text = $3::text`,
    [tasks, field, value],
  );
}

/** Deliveries due for longer than `graceS` with no attempt under way and no runnable job. */
export async function selectStrandedDeliveries(
  db: Queryable,
  task: string,
  graceS: number,
  limit: number,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select d.id from webhook_deliveries d
     where d.state = 'pending'
       and d.next_attempt_at < now() - make_interval(secs => $2::float8)
       and (d.lease_expires_at is null or d.lease_expires_at < now())
       and not exists (${RUNNABLE_JOB} and j.payload->>'delivery_id' = d.id)
     order by d.next_attempt_at
     limit $3::int`,
    [[task], graceS, limit],
  );
  return rows.map((r) => r.id);
}

/** Locks a stranded delivery for requeueing, checking again under the lock; false when it is not. */
export async function lockStrandedDelivery(db: Queryable, task: string, deliveryId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `select 1 from webhook_deliveries d
     where d.id = $2::text and d.state = 'pending'
       and (d.lease_expires_at is null or d.lease_expires_at < now())
       and not exists (${RUNNABLE_JOB} and j.payload->>'delivery_id' = d.id)
     for update of d`,
    [[task], deliveryId],
  );
  return (rowCount ?? 0) > 0;
}

/** Takes the sweep's lock for this session; false when another process holds it. */
export async function tryLockSweep(db: Queryable, lockId: number): Promise<boolean> {
  const { rows } = await db.query<{ locked: boolean }>('select pg_try_advisory_lock($1::bigint) as locked', [lockId]);
  return rows[0]?.locked === true;
}

export async function unlockSweep(db: Queryable, lockId: number): Promise<void> {
  await db.query('select pg_advisory_unlock($1::bigint)', [lockId]);
}

/** Finishes a PROCESSING item as COMPLETED with its URL; false when it was already finished. */
export async function completeItem(db: Queryable, itemId: string, url: string, result: unknown): Promise<boolean> {
  const { rowCount } = await db.query(
    `update generation_items set status = 'COMPLETED', url = $2::text, result = $3::jsonb, error = null,
       progress = 1, queue_position = null, updated_at = now()
     where id = $1::text and status = 'PROCESSING'`,
    [itemId, url, result === undefined ? null : JSON.stringify(result)],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Finishes an unfinished item as FAILED, once: the status guard lets only the first caller
 * through, and it gets the price to give back. `refund` false keeps the charge (a cancel of work a
 * vendor already runs); `spareStoring` leaves an item whose result is being stored to complete.
 */
export async function failItem(
  db: Queryable,
  itemId: string,
  error: string,
  errorKind: string | null,
  options: { refund: boolean; spareStoring: boolean } = { refund: true, spareStoring: false },
): Promise<{ price: number; generation_id: string } | undefined> {
  const { rows } = await db.query<{ price: number; generation_id: string }>(
    `update generation_items set status = 'FAILED', error = $2::text, error_kind = $3::text, refunded = $4::boolean,
       progress = null, queue_position = null, updated_at = now()
     where id = $1::text and status in ('QUEUED', 'PROCESSING')
       and not ($5::boolean and storing_result_at is not null)
     returning price, generation_id`,
    [itemId, error, errorKind, options.refund, options.spareStoring],
  );
  return rows[0];
}

/**
 * Records that an item's result file is about to be stored under its key, while the item is still
 * running; false when it has ended (cancelled, past its deadline): then nothing is to be stored.
 */
export async function markStoringResult(db: Queryable, itemId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `update generation_items set storing_result_at = coalesce(storing_result_at, now())
     where id = $1::text and status = 'PROCESSING'`,
    [itemId],
  );
  return (rowCount ?? 0) > 0;
}

export interface CountedGeneration {
  team_id: string;
  status: GenerationStatus;
  webhook_url: string | null;
  finished: boolean;
}

/**
 * Counts one finished item into its generation under the generation's row lock; the generation
 * becomes completed (some item completed) or failed (all failed) when its last item finishes.
 */
export async function countFinishedItem(
  db: Queryable,
  generationId: string,
  completed: boolean,
  refund: number,
): Promise<CountedGeneration> {
  const { rows } = await db.query<CountedGeneration>(
    `update generations set
       completed_items = completed_items + $2::int,
       failed_items = failed_items + $3::int,
       credits_refunded = credits_refunded + $4::bigint,
       status = case
         when completed_items + failed_items + 1 < total_items then 'processing'
         when completed_items + $2::int > 0 then 'completed'
         else 'failed' end,
       completed_at = case when completed_items + failed_items + 1 >= total_items then now() end,
       updated_at = now()
     where id = $1::text
     returning team_id, status, webhook_url, completed_at is not null as finished`,
    [generationId, completed ? 1 : 0, completed ? 0 : 1, refund],
  );
  return rows[0] as CountedGeneration;
}

// Worker liveness.

/** Records that these workers are alive now. */
export async function beat(db: Queryable, workerIds: string[]): Promise<void> {
  await db.query(
    `insert into worker_heartbeats (worker_id, heartbeat_at) select unnest($1::text[]), now()
     on conflict (worker_id) do update set heartbeat_at = now()`,
    [workerIds],
  );
}

export async function forget(db: Queryable, workerIds: string[]): Promise<void> {
  await db.query('delete from worker_heartbeats where worker_id = any($1::text[])', [workerIds]);
}

/**
 * Takes the workers whose last beat is older than `deadAfterMs` off the list and returns them:
 * exactly one live process gets each dead worker, to release its jobs.
 */
export async function claimDeadWorkers(db: Queryable, deadAfterMs: number): Promise<string[]> {
  const { rows } = await db.query<{ worker_id: string }>(
    `delete from worker_heartbeats where heartbeat_at < now() - make_interval(secs => $1::float8 / 1000)
     returning worker_id`,
    [deadAfterMs],
  );
  return rows.map((r) => r.worker_id);
}

// Vendor jobs.

/** Marks an item the simulator is about to make in place of a vendor (its status record says so). */
export async function markItemSimulated(db: Queryable, itemId: string): Promise<void> {
  await db.query('update generation_items set simulated = true where id = $1::text', [itemId]);
}

/**
 * Records, before the submit call, that the item is going to `provider` and opens its attempt
 * (whose id keys the submit): a crash after this leaves 'submitting', which says the outcome is
 * unknown. Undefined when the item is no longer PROCESSING.
 */
export async function markSubmitting(
  db: Queryable,
  itemId: string,
  provider: string,
  endpoint: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `with item as (
       update generation_items set provider = $2::text, vendor_endpoint = $3::text, vendor_state = 'submitting',
         vendor_handle = null, vendor_request_id = null, vendor_webhook_at = null, updated_at = now()
       where id = $1::text and status = 'PROCESSING'
       returning id, generation_id
     )
     insert into item_attempts (item_id, generation_id, provider, endpoint)
     select id, generation_id, $2::text, $3::text from item
     returning id::text`,
    [itemId, provider, endpoint],
  );
  return rows[0]?.id;
}

/** The attempt of an item still under way (its submit, or the vendor job it started), if any. */
export async function selectOpenAttempt(db: Queryable, itemId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `select id::text from item_attempts where item_id = $1::text and finished_at is null
     order by id desc limit 1`,
    [itemId],
  );
  return rows[0]?.id;
}

/**
 * Records the vendor's handle of an accepted job; the item is no longer held by this process (its
 * lease goes), a poll job (or the vendor's webhook) finishes it.
 */
export async function markAccepted(
  db: Queryable,
  itemId: string,
  handle: Record<string, string | number | null>,
  vendorRequestId: string,
): Promise<{ webhookArrived: boolean } | undefined> {
  const { rows } = await db.query<{ webhook_arrived: boolean }>(
    `with item as (
       update generation_items set vendor_state = 'accepted', vendor_handle = $2::jsonb, vendor_request_id = $3::text,
         vendor_accepted_at = now(), lease_expires_at = null, updated_at = now()
       where id = $1::text and status = 'PROCESSING' and vendor_state = 'submitting'
       returning id, vendor_webhook_at is not null as webhook_arrived
     ), attempt as (
       update item_attempts a set vendor_request_id = $3::text
       from item where a.item_id = item.id and a.finished_at is null
     )
     select webhook_arrived from item`,
    [itemId, JSON.stringify(handle), vendorRequestId],
  );
  return rows[0] ? { webhookArrived: rows[0].webhook_arrived } : undefined;
}

/**
 * Marks an item whose submit has not recorded the vendor's answer yet, when the vendor's webhook
 * comes first: recording the answer then polls at once. False when the item is not (or no longer)
 * waiting for that answer. Run it on its own, before looking the item up by the vendor's request
 * id: the row lock orders it with `markAccepted`, and the look-up after it sees what that wrote.
 */
export async function markEarlyWebhook(db: Queryable, itemId: string, provider: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `update generation_items set vendor_webhook_at = now()
     where id = $1::text and provider = $2::text and status = 'PROCESSING' and vendor_state = 'submitting'`,
    [itemId, provider],
  );
  return (rowCount ?? 0) > 0;
}

/** Forgets a submit that the vendor refused (nothing was accepted): the item may be submitted again. */
export async function clearVendorState(db: Queryable, itemId: string): Promise<void> {
  await db.query(
    `update generation_items set vendor_state = null, vendor_handle = null, vendor_request_id = null, updated_at = now()
     where id = $1::text and status = 'PROCESSING'`,
    [itemId],
  );
}

/** How an attempt ended. */
export interface AttemptEnd {
  outcome: 'completed' | 'failed' | 'submit_failed' | 'unknown';
  error?: string | null;
  /** The ProviderError kind of a failure. */
  errorKind?: string | null;
  /** What the vendor said the work cost, when it said. */
  cost?: number | null;
}

/** Closes the item's open attempt with its outcome. */
export async function finishAttempt(db: Queryable, itemId: string, end: AttemptEnd): Promise<void> {
  await db.query(
    `update item_attempts set finished_at = now(), outcome = $2::text, error = $3::text, error_kind = $4::text,
       cost = $5::numeric
     where item_id = $1::text and finished_at is null`,
    [itemId, end.outcome, end.error ?? null, end.errorKind ?? null, end.cost ?? null],
  );
}

/** What a vendor says of a job still running. */
export async function updateVendorProgress(
  db: Queryable,
  itemId: string,
  progress: number | null,
  queuePosition: number | null,
): Promise<void> {
  await db.query(
    `update generation_items set progress = $2::real, queue_position = $3::int
     where id = $1::text and status = 'PROCESSING'`,
    [itemId, progress, queuePosition],
  );
}

/** Records the handle a vendor job goes on under (it moved on to another task of the vendor's). */
export async function replaceVendorHandle(
  db: Queryable,
  itemId: string,
  handle: Record<string, string | number | null>,
): Promise<void> {
  await db.query(
    `update generation_items set vendor_handle = $2::jsonb, updated_at = now()
     where id = $1::text and status = 'PROCESSING' and vendor_state = 'accepted'`,
    [itemId, JSON.stringify(handle)],
  );
}

/** The item a vendor's job id belongs to. */
export async function selectItemByVendorRequest(
  db: Queryable,
  provider: string,
  vendorRequestId: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `select id from generation_items
     where provider = $1::text and vendor_request_id = $2::text and status in ('QUEUED', 'PROCESSING')`,
    [provider, vendorRequestId],
  );
  return rows[0]?.id;
}

// Route health: the circuit breaker of every (provider, endpoint), shared by the processes.

/** The routes cooling down now, as 'provider endpoint' keys with when each is usable again. */
export async function selectCoolingRoutes(db: Queryable): Promise<Map<string, Date>> {
  const { rows } = await db.query<{ provider: string; endpoint: string; cooling_until: Date }>(
    'select provider, endpoint, cooling_until from route_health where cooling_until > now()',
  );
  return new Map(rows.map((r) => [`${r.provider} ${r.endpoint}`, r.cooling_until]));
}

/**
 * Counts a failure of a route towards its breaker: after `after` failures in a row it cools for
 * `seconds` (and the count starts again). Answers whether the route is cooling now.
 */
export async function recordRouteFailure(
  db: Queryable,
  provider: string,
  endpoint: string,
  after: number,
  seconds: number,
): Promise<boolean> {
  const { rows } = await db.query<{ cooling: boolean }>(
    `insert into route_health as h (provider, endpoint, consecutive_failures, cooling_until)
     values ($1::text, $2::text,
       case when 1 >= $3::int then 0 else 1 end,
       case when 1 >= $3::int then now() + make_interval(secs => $4::float8) end)
     on conflict (provider, endpoint) do update set
       consecutive_failures = case when h.consecutive_failures + 1 >= $3::int then 0
                                   else h.consecutive_failures + 1 end,
       cooling_until = case when h.consecutive_failures + 1 >= $3::int
                            then now() + make_interval(secs => $4::float8) else h.cooling_until end,
       updated_at = now()
     returning coalesce(h.cooling_until > now(), false) as cooling`,
    [provider, endpoint, after, seconds],
  );
  return rows[0]?.cooling ?? false;
}

/** A success closes the route's count of failures in a row (written only when there was one). */
export async function recordRouteSuccess(db: Queryable, provider: string, endpoint: string): Promise<void> {
  await db.query(
    `update route_health set consecutive_failures = 0, updated_at = now()
     where provider = $1::text and endpoint = $2::text and consecutive_failures > 0`,
    [provider, endpoint],
  );
}

// ---- Retention (engine/retention.ts).

/** Generations past their expires_at whose files are still kept, oldest first, with their result URLs. */
export async function selectExpiredGenerations(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<Array<{ id: string; urls: string[]; input_keys: string[] }>> {
  const { rows } = await db.query<{ id: string; urls: string[]; input_keys: string[] }>(
    `select g.id, coalesce(array_agg(i.url) filter (where i.url is not null), '{}') as urls, g.input_keys
     from generations g left join generation_items i on i.generation_id = g.id
     where g.id in (
       select id from generations
       where expires_at is not null and purged_at is null and expires_at <= $1::timestamptz
       order by expires_at limit $2::int)
     group by g.id`,
    [now, limit],
  );
  return rows;
}

/** Marks a generation's files deleted (its URLs answer 410 from then on). */
export async function markGenerationPurged(db: Queryable, generationId: string, at: Date): Promise<void> {
  await db.query('update generations set purged_at = $2::timestamptz where id = $1::text and purged_at is null', [
    generationId,
    at,
  ]);
}

/** Whether a generation's files were deleted by retention. */
export async function isGenerationPurged(db: Queryable, generationId: string): Promise<boolean> {
  const { rowCount } = await db.query('select 1 from generations where id = $1::text and purged_at is not null', [
    generationId,
  ]);
  return (rowCount ?? 0) > 0;
}

/** Deletes webhook deliveries finished before `cutoff`, with their attempts; how many deliveries. */
export async function deleteFinishedDeliveries(db: Queryable, cutoff: Date): Promise<number> {
  const { rowCount } = await db.query(
    `with old as (
       select id from webhook_deliveries where state <> 'pending' and updated_at < $1::timestamptz
     ), attempts as (
       delete from webhook_attempts a using old where a.delivery_id = old.id
     )
     delete from webhook_deliveries d using old where d.id = old.id`,
    [cutoff],
  );
  return rowCount ?? 0;
}

/** Deletes queue jobs that ran out of attempts before `cutoff` (graphile-worker keeps them otherwise). */
export async function deleteDeadJobs(db: Queryable, cutoff: Date): Promise<number> {
  const { rowCount } = await db.query(
    `delete from graphile_worker._private_jobs
     where attempts >= max_attempts and locked_at is null and updated_at < $1::timestamptz`,
    [cutoff],
  );
  return rowCount ?? 0;
}

/** Deletes the vendor attempts that finished before `cutoff`. */
export async function deleteFinishedAttempts(db: Queryable, cutoff: Date): Promise<number> {
  const { rowCount } = await db.query(
    'delete from item_attempts where finished_at is not null and started_at < $1::timestamptz',
    [cutoff],
  );
  return rowCount ?? 0;
}

/** The size of an item's result file as stored (counted in its team's storage quota). */
export async function recordResultBytes(db: Queryable, itemId: string, bytes: number): Promise<void> {
  await db.query('update generation_items set result_bytes = $2::bigint where id = $1::text', [itemId, bytes]);
}
