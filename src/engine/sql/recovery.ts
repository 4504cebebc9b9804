/** The recovery sweep (stranded and overdue items, stranded deliveries) and worker liveness. */

import type { Queryable } from '../../db/pool.ts';

// A job is "runnable" when graphile-worker will still pick it up: not locked, attempts left.
// A locked job counts only through the lease of what it runs (its process renews that lease);
// a locked job behind an expired lease was lost with its process, or its completion was lost in
// an outage.

const RUNNABLE_JOB = `
  select 1 from graphile_worker._private_jobs j
  join graphile_worker._private_tasks t on t.id = j.task_id
  where t.identifier = any($1::text[]) and j.locked_at is null and j.attempts < j.max_attempts`;

/**
 * Unfinished items whose lease has run out (or that never had one) and that no runnable job
 * will pick up, oldest first; `in_request`: a synchronous request ran it in a process now gone
 * (or was woken for room `wokenGraceMs` ago and has not claimed it).
 */
export async function selectStrandedItems(
  db: Queryable,
  tasks: string[],
  wokenGraceMs: number,
  limit: number,
): Promise<Array<{ id: string; in_request: boolean }>> {
  const { rows } = await db.query<{ id: string; in_request: boolean }>(
    `select i.id, i.in_request from generation_items i
     where i.status in ('QUEUED', 'PROCESSING')
       and (i.lease_expires_at is null or i.lease_expires_at < now())
       and not exists (${RUNNABLE_JOB} and j.payload->>'item_id' = i.id)
       -- Waiting for room in its team's cap: its job is queued when the room is there (a
       -- synchronous request woken for it gets a lease's time to claim it).
       and not exists (
         select 1 from team_waits w where w.item_id = i.id
           and (w.woken_at is null
                or (i.in_request and w.woken_at > now() - make_interval(secs => $3::float8 / 1000))))
     order by i.created_at
     limit $2::int`,
    [tasks, limit, wokenGraceMs],
  );
  return rows;
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
