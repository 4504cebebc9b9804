import type { Queryable } from '../../db/pool.ts';

export interface IdempotencyRow {
  request_hash: string;
  state: 'in_flight' | 'done';
  response_status: number | null;
  response_body: string | null;
}

/**
 * Claims a key for a request, for the process `owner`. A key older than the retention can be
 * claimed again; so can one left in flight, with the same body, by a process that is gone (it
 * stopped beating for `ownerDeadAfterMs`), or, for claims from before owners were recorded, one
 * in flight for `abandonedAfterSeconds`. True when this request now owns the key.
 */
export async function claimKey(
  db: Queryable,
  claim: { teamId: string; key: string; hash: string; owner: string },
  ttlHours: number,
  ownerDeadAfterMs: number,
  abandonedAfterSeconds: number,
): Promise<{ generationId: string | null } | undefined> {
  const { rows } = await db.query<{ generation_id: string | null }>(
    `insert into idempotency_keys (team_id, key, request_hash, state, owner)
     values ($1::text, $2::text, $3::text, 'in_flight', $4::text)
     on conflict (team_id, key) do update
       set request_hash = excluded.request_hash, state = 'in_flight', response_status = null,
           response_body = null, created_at = now(), owner = excluded.owner,
           generation_id = case when idempotency_keys.created_at < now() - make_interval(hours => $5::int)
                             then null else idempotency_keys.generation_id end
       where idempotency_keys.created_at < now() - make_interval(hours => $5::int)
          or (idempotency_keys.state = 'in_flight'
              and idempotency_keys.request_hash = excluded.request_hash
              and case when idempotency_keys.owner is null
                    then idempotency_keys.created_at < now() - make_interval(secs => $7::int)
                    else not exists (
                      select 1 from service_instances s
                      where s.id = idempotency_keys.owner
                        and s.heartbeat_at > now() - make_interval(secs => $6::float8 / 1000))
                  end)
     returning generation_id`,
    [claim.teamId, claim.key, claim.hash, claim.owner, ttlHours, ownerDeadAfterMs, abandonedAfterSeconds],
  );
  const row = rows[0];
  return row && { generationId: row.generation_id };
}

/**
 * Records the generation a claimed request created, in the transaction that created it; false
 * when the claim is no longer this owner's.
 */
export async function setKeyGeneration(
  db: Queryable,
  claim: { teamId: string; key: string; owner: string },
  generationId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update idempotency_keys set generation_id = $4::text
     where team_id = $1::text and key = $2::text and owner = $3::text and state = 'in_flight'`,
    [claim.teamId, claim.key, claim.owner, generationId],
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

/**
 * Stores the response to replay; runs in the transaction that did the work when there is one.
 * False when the claim is no longer this owner's (it was taken over after this process was
 * thought gone): the caller must then not commit the work.
 */
export async function completeKey(
  db: Queryable,
  claim: { teamId: string; key: string; owner: string },
  status: number,
  body: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update idempotency_keys set state = 'done', response_status = $4::int, response_body = $5::text
     where team_id = $1::text and key = $2::text and owner = $3::text and state = 'in_flight'`,
    [claim.teamId, claim.key, claim.owner, status, body],
  );
  return (rowCount ?? 0) > 0;
}

/** Forgets a claim whose request was refused, so the client may fix it and retry with the key. */
export async function releaseKey(db: Queryable, claim: { teamId: string; key: string; owner: string }): Promise<void> {
  await db.query(
    `delete from idempotency_keys
     where team_id = $1::text and key = $2::text and owner = $3::text and state = 'in_flight'`,
    [claim.teamId, claim.key, claim.owner],
  );
}

export async function deleteExpiredKeys(db: Queryable, ttlHours: number): Promise<number> {
  const { rowCount } = await db.query(
    'delete from idempotency_keys where created_at < now() - make_interval(hours => $1::int)',
    [ttlHours],
  );
  return rowCount ?? 0;
}

/**
 * Deletes this owner's in-flight claims older than `graceSeconds` that none of its requests
 * holds: claims a statement wrote after its request had given up on it (the database was hung
 * and ran the statement once it resumed), which no request will ever finish or release.
 */
export async function deleteGhostClaims(
  db: Queryable,
  owner: string,
  held: Array<{ teamId: string; key: string }>,
  graceSeconds: number,
): Promise<number> {
  const { rowCount } = await db.query(
    `delete from idempotency_keys k
     where k.owner = $1::text and k.state = 'in_flight'
       and k.created_at < now() - make_interval(secs => $4::float8)
       and not exists (select 1 from unnest($2::text[], $3::text[]) as h(team_id, key)
                       where h.team_id = k.team_id and h.key = k.key)`,
    [owner, held.map((h) => h.teamId), held.map((h) => h.key), graceSeconds],
  );
  return rowCount ?? 0;
}
