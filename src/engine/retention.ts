// Retention: what is deleted once it is old enough, so that no table or folder grows without
// bound with work nobody will read again. A generation's result files go at its expires_at (set
// when it was accepted, from MEDIA_RETENTION_DAYS) and their URLs answer 410 from then on; the
// generation, its items and the ledger stay (they are the team's history and its money).
// Finished webhook deliveries (with their attempts) and queue jobs that ran out of attempts go
// after RECORDS_RETENTION_DAYS. Idempotency keys have their own 24 h (modules/idempotency).
import type pg from 'pg';
import type { Storage } from '../storage/types.ts';

/** Generations purged per statement batch. */
const BATCH = 200;

export interface RetentionOptions {
  /** The time to judge age by: now, or a later time (to see what a sweep will remove). */
  now: Date;
  /** Days finished webhook deliveries and dead queue jobs are kept. */
  recordsRetentionDays: number;
  /** At most this many generations' files per sweep (the next sweep goes on). */
  maxGenerations?: number;
}

export interface RetentionReport {
  generations: number;
  files: number;
  deliveries: number;
  jobs: number;
}

/**
 * One pass: the files of every generation past its expires_at (each file deleted, then the
 * generation marked purged; a failed delete leaves it for the next pass), then the old
 * operational rows. Safe beside a concurrent pass: a generation is marked once, deletes repeat
 * harmlessly.
 */
export async function sweepRetention(
  pool: pg.Pool,
  storage: Storage,
  options: RetentionOptions,
): Promise<RetentionReport> {
  const report: RetentionReport = { generations: 0, files: 0, deliveries: 0, jobs: 0 };
  const limit = options.maxGenerations ?? 10_000;
  while (report.generations < limit) {
    const { rows } = await pool.query<{ id: string; urls: string[] }>(
      `select g.id, coalesce(array_agg(i.url) filter (where i.url is not null), '{}') as urls
       from generations g left join generation_items i on i.generation_id = g.id
       where g.id in (
         select id from generations
         where expires_at is not null and purged_at is null and expires_at <= $1::timestamptz
         order by expires_at limit $2::int)
       group by g.id`,
      [options.now, Math.min(BATCH, limit - report.generations)],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      for (const url of row.urls) {
        const key = storage.keyFromUrl(url);
        if (key === undefined) continue;
        await storage.delete(key);
        report.files += 1;
      }
      await pool.query('update generations set purged_at = $2::timestamptz where id = $1::text and purged_at is null', [
        row.id,
        options.now,
      ]);
      report.generations += 1;
    }
  }
  const cutoff = new Date(options.now.getTime() - options.recordsRetentionDays * 86_400_000);
  const deliveries = await pool.query(
    `with old as (
       select id from webhook_deliveries where state <> 'pending' and updated_at < $1::timestamptz
     ), attempts as (
       delete from webhook_attempts a using old where a.delivery_id = old.id
     )
     delete from webhook_deliveries d using old where d.id = old.id`,
    [cutoff],
  );
  report.deliveries = deliveries.rowCount ?? 0;
  const jobs = await pool.query(
    `delete from graphile_worker._private_jobs
     where attempts >= max_attempts and locked_at is null and updated_at < $1::timestamptz`,
    [cutoff],
  );
  report.jobs = jobs.rowCount ?? 0;
  return report;
}

/** Whether a stored file's generation has been purged (its URL then answers 410, not 404). */
export async function isPurgedKey(pool: pg.Pool, key: string): Promise<boolean> {
  const generationId = key.split('/')[0] ?? '';
  const { rowCount } = await pool.query('select 1 from generations where id = $1::text and purged_at is not null', [
    generationId,
  ]);
  return (rowCount ?? 0) > 0;
}
