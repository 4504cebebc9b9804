import type { Queryable } from '../../db/pool.ts';

export interface ApiKeyRow {
  id: string;
  team_id: string;
  name: string | null;
  prefix: string;
  created_at: Date;
  revoked_at: Date | null;
}

const COLUMNS = 'id, team_id, name, prefix, created_at, revoked_at';

export async function insertApiKey(
  db: Queryable,
  key: { id: string; teamId: string; name: string | null; prefix: string; hash: Buffer },
): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `insert into api_keys (id, team_id, name, prefix, key_hash)
     values ($1::text, $2::text, $3::text, $4::text, $5::bytea)
     returning ${COLUMNS}`,
    [key.id, key.teamId, key.name, key.prefix, key.hash],
  );
  return rows[0] as ApiKeyRow;
}

export async function selectApiKeysOfTeam(db: Queryable, teamId: string): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>(
    `select ${COLUMNS} from api_keys where team_id = $1::text order by id desc`,
    [teamId],
  );
  return rows;
}

/** Marks a key revoked (idempotent); undefined when no such key exists. */
export async function revokeApiKey(db: Queryable, id: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>(
    `update api_keys set revoked_at = coalesce(revoked_at, now())
     where id = $1::text
     returning ${COLUMNS}`,
    [id],
  );
  return rows[0];
}

/** The hot-path lookup behind authentication: one unique-index probe. */
export async function selectActiveKeyByHash(
  db: Queryable,
  hash: Buffer,
): Promise<{ id: string; team_id: string } | undefined> {
  const { rows } = await db.query<{ id: string; team_id: string }>(
    'select id, team_id from api_keys where key_hash = $1::bytea and revoked_at is null',
    [hash],
  );
  return rows[0];
}
