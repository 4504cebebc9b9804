/** Items at work: claims under a lease, the team's cap of running items, failures that retry. */

import type { Queryable } from '../../db/pool.ts';
import type { AcceptedRoutes } from '../types.ts';
import type { ItemStatus } from './history.ts';

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
  /** The credential its vendor job was submitted with (see migration 0030). */
  credential_id: string | null;
  /** The routes its model had when it was accepted; null: accepted before they were kept (0032). */
  accepted_routes: AcceptedRoutes | null;
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
  /** Where its generation's webhook goes (undefined: not read with the item). */
  webhook_url?: string | null;
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
                 route_failures, storing_result_at, credential_id, accepted_routes
     ), generation as (
       update generations g set status = 'processing', updated_at = now()
       from item where g.id = item.generation_id and g.status = 'queued'
       returning g.id
     )
     select item.*, g.team_id, g.workspace_id, g.operation, g.input as generation_input, g.webhook_url
     from item join generations g on g.id = item.generation_id`,
    [itemId, leaseMs],
  );
  return rows[0];
}

/**
 * The usual claim in one statement: the team's row locked (as claimItemWithinCap locks it), and the
 * item claimed when its team has room without counting anything (the item runs already, it is
 * sub-work, or the team's running and queued items fit under its cap). Undefined when that is not
 * so: claimItemWithinCap decides then, in a transaction of its own.
 */
export async function claimItemWithRoom(
  db: Queryable,
  itemId: string,
  leaseMs: number,
  defaultCap: number,
): Promise<CappedClaim | undefined> {
  const { rows } = await db.query<Partial<ClaimedItem> & { has_room: boolean | null }>(
    `with room as (
       select i.status = 'PROCESSING' or g.parent_item_id is not null
                or t.running_items + t.queued_items - 1 < coalesce(t.max_concurrent_items, $3::int) as has_room
       from generation_items i join generations g on g.id = i.generation_id join teams t on t.id = g.team_id
       where i.id = $1::text and i.status in ('QUEUED', 'PROCESSING')
       for update of t
     ), item as (
       update generation_items set status = 'PROCESSING', attempts = attempts + 1, updated_at = now(),
         started_at = coalesce(started_at, now()),
         lease_expires_at = now() + make_interval(secs => $2::float8 / 1000)
       where id = $1::text and status in ('QUEUED', 'PROCESSING') and (select has_room from room)
       returning id, generation_id, position, type, model, input, storage_token, attempts, failures, price,
                 provider, vendor_endpoint, vendor_state, vendor_handle, vendor_accepted_at, skipped_routes,
                 route_failures, storing_result_at, credential_id, accepted_routes
     ), generation as (
       update generations g set status = 'processing', updated_at = now()
       from item where g.id = item.generation_id and g.status = 'queued'
     ), waits as (
       delete from team_waits w using item where w.item_id = item.id
     )
     select (select has_room from room) as has_room, item.*,
            g.team_id, g.workspace_id, g.operation, g.input as generation_input, g.webhook_url
     from (select 1) as one left join item on true left join generations g on g.id = item.generation_id`,
    [itemId, leaseMs, defaultCap],
  );
  const { has_room: hasRoom, ...item } = rows[0] ?? { has_room: null };
  if (hasRoom === false) return undefined;
  return item.id === undefined || item.id === null
    ? { kind: 'finished' }
    : { kind: 'claimed', item: item as ClaimedItem };
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
    sub_work: boolean;
  }>(
    `select i.status, g.team_id, coalesce(t.max_concurrent_items, $2::int) as cap, t.running_items, t.queued_items,
            g.id as generation_id, g.created_at as generation_created_at, i.position,
            g.parent_item_id is not null as sub_work
     from generation_items i join generations g on g.id = i.generation_id join teams t on t.id = g.team_id
     where i.id = $1::text and i.status in ('QUEUED', 'PROCESSING')
     for update of t`,
    [itemId, defaultCap],
  );
  const row = rows[0];
  if (!row) return { kind: 'finished' };
  // Sub-work runs in the room of the item that waits for it (which holds its place meanwhile):
  // waiting for room of its own could wait for ever.
  if (row.status === 'QUEUED' && !row.sub_work && row.running_items + row.queued_items - 1 >= row.cap) {
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

/**
/**
 * How a woken waiting item is started (start_waiting_items and finish_item take it): a job of
 * `task` with `max_attempts`, or, for an item a synchronous request runs itself, a NOTIFY on
 * `channel`; `default_cap` is the cap of a team without one.
 */
export interface WakeTarget {
  default_cap: number;
  task: string;
  max_attempts: number;
  channel: string;
}

/**
 * Starts the waiting items of a team that now have room (start_waiting_items, migration 0036: the
 * oldest, as many as its cap allows beside its running items, each started once): a job queued for
 * each, or the synchronous request running it told (NOTIFY on `wake.channel`).
 */
export async function startWaitingItems(db: Queryable, teamId: string, wake: WakeTarget): Promise<void> {
  await db.query('select start_waiting_items($1::text, $2::int, $3::text, $4::int, $5::text)', [
    teamId,
    wake.default_cap,
    wake.task,
    wake.max_attempts,
    wake.channel,
  ]);
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
            i.skipped_routes, i.route_failures, i.storing_result_at, i.credential_id, i.accepted_routes, g.team_id,
            g.workspace_id, g.operation, g.input as generation_input, g.webhook_url
     from generation_items i join generations g on g.id = i.generation_id
     where i.id = $1::text and i.status in ('QUEUED', 'PROCESSING')`,
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

/** The unfinished items of the sub-work made for the items of generation `generationId`. */
export async function selectUnfinishedSubWorkItemIds(db: Queryable, generationId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select si.id from generation_items pi
       join generations s on s.parent_item_id = pi.id
       join generation_items si on si.generation_id = s.id
     where pi.generation_id = $1::text and si.status in ('QUEUED', 'PROCESSING')`,
    [generationId],
  );
  return rows.map((r) => r.id);
}
