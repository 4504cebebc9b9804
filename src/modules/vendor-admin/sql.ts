import type { Queryable } from '../../db/pool.ts';

/** Completed and finished attempts per provider since `since`. */
export async function selectAttemptCounts(
  db: Queryable,
  since: Date,
): Promise<Map<string, { completed: number; finished: number }>> {
  const { rows } = await db.query<{ provider: string; completed: number; finished: number }>(
    `select provider, count(*) filter (where outcome = 'completed')::int as completed,
            count(*) filter (where finished_at is not null)::int as finished
     from item_attempts where started_at >= $1::timestamptz
     group by provider`,
    [since],
  );
  return new Map(rows.map((r) => [r.provider, { completed: r.completed, finished: r.finished }]));
}

export interface AttemptRow {
  item_id: string;
  provider: string;
  endpoint: string;
  vendor_request_id: string | null;
  started_at: Date;
  finished_at: Date | null;
  answered_at: Date | null;
  outcome: 'completed' | 'failed' | 'submit_failed' | 'unknown' | null;
  error: string | null;
  error_kind: string | null;
  cost: number | null;
}

/** Every attempt of a generation's items, oldest first; undefined when there is no such generation. */
export async function selectAttempts(db: Queryable, generationId: string): Promise<AttemptRow[] | undefined> {
  const { rows } = await db.query<AttemptRow & { found: boolean }>(
    `select true as found, a.item_id, a.provider, a.endpoint, a.vendor_request_id, a.started_at, a.finished_at,
            a.answered_at, a.outcome, a.error, a.error_kind, a.cost::float8 as cost
     from generations g left join item_attempts a on a.generation_id = g.id
     where g.id = $1::text
     order by a.started_at, a.id`,
    [generationId],
  );
  if (rows.length === 0) return undefined;
  return rows.filter((r) => r.item_id !== null).map(({ found: _found, ...row }) => row);
}
