import type { Queryable } from '../db/pool.ts';

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
