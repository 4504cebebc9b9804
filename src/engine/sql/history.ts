/** What the API reads of generations: status records, the team's history, an item's stored outcome. */

import type { Queryable } from '../../db/pool.ts';

export type GenerationStatus = 'queued' | 'processing' | 'completed' | 'failed';

export type ItemStatus = 'QUEUED' | 'PROCESSING' | 'COMPLETED' | 'FAILED';

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
  /** The WorkError kind of a failure, when a provider said why. */
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
  // Sub-work (made for another item, at no price) is not the team's to list.
  const where = ['g.team_id = $1::text', 'g.parent_item_id is null'];
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
  // Named: each connection parses it once (every status poll runs it).
  const { rows } = await db.query<StatusRow>({
    name: 'select_status',
    text: `${STATUS_SELECT} where g.id = $1::text and g.team_id = $2::text and g.parent_item_id is null`,
    values: [id, teamId],
  });
  return rows[0];
}

/** The status rows of several generations at once (any team: the callers checked who may see them). */
export async function selectStatuses(db: Queryable, ids: string[]): Promise<StatusRow[]> {
  // Named: each connection parses it once (live status reads it at every change).
  const { rows } = await db.query<StatusRow>({
    name: 'select_statuses',
    text: `${STATUS_SELECT} where g.id = any($1::text[])`,
    values: [ids],
  });
  return rows;
}

/**
 * The text a completed text item keeps in its record instead of a file (`field` of its result when
 * present, else its `text`), while its generation's files have not been purged; undefined when there
 * is none: another item, another token, an item not completed, or purged.
 */
export async function selectKeptText(
  db: Queryable,
  key: { generationId: string; itemId: string; storageToken: string },
  field: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ text: string | null }>(
    `select coalesce(i.result->>$4::text, i.result->>'text') as text
       from generation_items i join generations g on g.id = i.generation_id
      where i.id = $1::text and i.generation_id = $2::text and i.storage_token = $3::text
        and i.status = 'COMPLETED' and i.type = 'text' and g.purged_at is null`,
    [key.itemId, key.generationId, key.storageToken, field],
  );
  return rows[0]?.text ?? undefined;
}
