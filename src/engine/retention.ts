// Retention: what is deleted once it is old enough, so that no table or folder grows without
// bound with work nobody will read again. A generation's result files go at its expires_at (set
// when it was accepted, from MEDIA_RETENTION_DAYS), with the copies of its input media, and their
// URLs answer 410 from then on; the generation, its items and the ledger stay (they are the team's
// history and its money).
// Finished webhook deliveries (with their attempts), queue jobs that ran out of attempts and the
// vendor attempts of finished items go after RECORDS_RETENTION_DAYS. Idempotency keys have their own 24 h (modules/idempotency).
import type pg from 'pg';
import { isValidStorageKey } from '../storage/keys.ts';
import type { Storage } from '../storage/types.ts';
import * as sql from './sql/retention.ts';

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
  /** Vendor attempts (item_attempts) of long-finished work. */
  attempts: number;
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
  const report: RetentionReport = { generations: 0, files: 0, deliveries: 0, jobs: 0, attempts: 0 };
  const limit = options.maxGenerations ?? 10_000;
  while (report.generations < limit) {
    const rows = await sql.selectExpiredGenerations(pool, options.now, Math.min(BATCH, limit - report.generations));
    if (rows.length === 0) break;
    for (const row of rows) {
      for (const url of row.urls) {
        const key = storage.keyFromUrl(url);
        if (key === undefined) continue;
        await storage.delete(key);
        report.files += 1;
      }
      // The copies of its input media (what its vendors were given) go with its results.
      for (const key of row.input_keys) {
        if (!isValidStorageKey(key)) continue;
        await storage.delete(key);
        report.files += 1;
      }
      await sql.markGenerationPurged(pool, row.id, options.now);
      report.generations += 1;
    }
  }
  const cutoff = new Date(options.now.getTime() - options.recordsRetentionDays * 86_400_000);
  report.deliveries = await sql.deleteFinishedDeliveries(pool, cutoff);
  report.jobs = await sql.deleteDeadJobs(pool, cutoff);
  report.attempts = await sql.deleteFinishedAttempts(pool, cutoff);
  return report;
}

/** Whether a stored file's generation has been purged (its URL then answers 410, not 404). */
export async function isPurgedKey(pool: pg.Pool, key: string): Promise<boolean> {
  return sql.isGenerationPurged(pool, key.split('/')[0] ?? '');
}
