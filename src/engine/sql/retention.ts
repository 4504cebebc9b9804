/** Retention (engine/retention.ts): expired generations' files, old deliveries, dead jobs, old attempts. */

import type { Queryable } from '../../db/pool.ts';

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
