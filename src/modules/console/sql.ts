// The console's queries: its sign-in sessions.
import type { Queryable } from '../../db/pool.ts';

export interface SessionRow {
  kind: 'team' | 'operator';
  team_id: string | null;
  key_id: string | null;
  sealed_key: string | null;
  csrf_token: string;
  expires_at: Date;
}

export async function insertSession(
  db: Queryable,
  session: Omit<SessionRow, 'expires_at'> & { tokenHash: string; ttlMs: number },
): Promise<void> {
  await db.query(
    `insert into console_sessions (token_hash, kind, team_id, key_id, sealed_key, csrf_token, expires_at)
     values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, now() + make_interval(secs => $7::float8 / 1000))`,
    [
      session.tokenHash,
      session.kind,
      session.team_id,
      session.key_id,
      session.sealed_key,
      session.csrf_token,
      session.ttlMs,
    ],
  );
}

/**
 * A live session by its token's hash (a team's only while its key is not revoked); its expiry
 * slides to `idleMs` from now, never past `maxMs` from its start.
 */
export async function touchSession(
  db: Queryable,
  tokenHash: string,
  idleMs: number,
  maxMs: number,
): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `update console_sessions s
     set last_seen_at = now(),
         expires_at = least(s.created_at + make_interval(secs => $3::float8 / 1000),
                            now() + make_interval(secs => $2::float8 / 1000))
     where s.token_hash = $1::text and s.expires_at > now()
       and (s.kind = 'operator'
            or exists (select 1 from api_keys k where k.id = s.key_id and k.revoked_at is null))
     returning s.kind, s.team_id, s.key_id, s.sealed_key, s.csrf_token, s.expires_at`,
    [tokenHash, idleMs, maxMs],
  );
  return rows[0];
}

export async function deleteSession(db: Queryable, tokenHash: string): Promise<void> {
  await db.query('delete from console_sessions where token_hash = $1::text', [tokenHash]);
}

/** Deletes sessions that expired; how many. */
export async function deleteExpiredSessions(db: Queryable): Promise<number> {
  const { rowCount } = await db.query('delete from console_sessions where expires_at < now()');
  return rowCount ?? 0;
}
