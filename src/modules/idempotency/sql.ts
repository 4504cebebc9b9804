import type { Queryable } from '../../db/pool.ts';

export interface IdempotencyRow {
  request_hash: string;
  state: 'in_flight' | 'done';
  response_status: number | null;
  response_body: string | null;
}

/**
 * Claims a key for a request. A key older than the retention, or one left in flight by a request
 * that died, with the same body, can be claimed again. True when this request now owns the key.
 */
export async function claimKey(
  db: Queryable,
  teamId: string,
  key: string,
  hash: string,
  ttlHours: number,
  abandonedAfterSeconds: number,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `insert into idempotency_keys (team_id, key, request_hash, state) values ($1::text, $2::text, $3::text, 'in_flight')
     on conflict (team_id, key) do update
       set request_hash = excluded.request_hash, state = 'in_flight', response_status = null,
           response_body = null, created_at = now()
       where idempotency_keys.created_at < now() - make_interval(hours => $4::int)
          or (idempotency_keys.state = 'in_flight'
              and idempotency_keys.request_hash = excluded.request_hash
              and idempotency_keys.created_at < now() - make_interval(secs => $5::int))`,
    [teamId, key, hash, ttlHours, abandonedAfterSeconds],
  );
  return (rowCount ?? 0) > 0;
}

export async function selectKey(db: Queryable, teamId: string, key: string): Promise<IdempotencyRow | undefined> {
  const { rows } = await db.query<IdempotencyRow>(
    `select request_hash, state, response_status, response_body from idempotency_keys
     where team_id = $1::text and key = $2::text`,
    [teamId, key],
  );
  return rows[0];
}

/** Stores the response to replay; runs in the transaction that did the work when there is one. */
export async function completeKey(
  db: Queryable,
  teamId: string,
  key: string,
  status: number,
  body: string,
): Promise<void> {
  await db.query(
    `update idempotency_keys set state = 'done', response_status = $3::int, response_body = $4::text
     where team_id = $1::text and key = $2::text`,
    [teamId, key, status, body],
  );
}

/** Forgets a claim whose request was refused, so the client may fix it and retry with the key. */
export async function releaseKey(db: Queryable, teamId: string, key: string): Promise<void> {
  await db.query(`delete from idempotency_keys where team_id = $1::text and key = $2::text and state = 'in_flight'`, [
    teamId,
    key,
  ]);
}

export async function deleteExpiredKeys(db: Queryable, ttlHours: number): Promise<number> {
  const { rowCount } = await db.query(
    'delete from idempotency_keys where created_at < now() - make_interval(hours => $1::int)',
    [ttlHours],
  );
  return rowCount ?? 0;
}
