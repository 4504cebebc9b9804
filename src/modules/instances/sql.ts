import type { Queryable } from '../../db/pool.ts';

/** Records that this process is alive now (inserting it on its first beat). */
export async function beatInstance(db: Queryable, id: string, role: string): Promise<void> {
  await db.query(
    `insert into service_instances (id, role) values ($1::text, $2::text)
     on conflict (id) do update set heartbeat_at = now()`,
    [id, role],
  );
}

/** Takes a process off the list when it stops cleanly. */
export async function forgetInstance(db: Queryable, id: string): Promise<void> {
  await db.query('delete from service_instances where id = $1::text', [id]);
}

/** Drops the rows of processes silent for longer than `afterSeconds` (they are long gone). */
export async function deleteSilentInstances(db: Queryable, afterSeconds: number): Promise<number> {
  const { rowCount } = await db.query(
    'delete from service_instances where heartbeat_at < now() - make_interval(secs => $1::float8)',
    [afterSeconds],
  );
  return rowCount ?? 0;
}
