// The one query /metrics makes: the queue as it stands when Prometheus scrapes.
import type { Queryable } from '../db/pool.ts';

export interface QueueStatRow {
  type: string;
  status: 'QUEUED' | 'PROCESSING';
  items: number;
  /** Seconds since the oldest of them was accepted. */
  oldest_age_s: number;
}

/**
 * Unfinished items by type and status, with the age of the oldest of each: one aggregate that
 * reads only unfinished items (the partial index generation_items_unfinished_idx covers them).
 */
export async function selectQueueStats(db: Queryable): Promise<QueueStatRow[]> {
  const { rows } = await db.query<QueueStatRow>(
    `select type, status, count(*)::int as items,
            extract(epoch from now() - min(created_at))::float8 as oldest_age_s
     from generation_items
     where status in ('QUEUED', 'PROCESSING')
     group by type, status`,
  );
  return rows;
}
