import type { Queryable } from '../../db/pool.ts';
import { notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { generateApiKey } from '../../lib/secrets.ts';
import { selectTeam } from '../teams/sql.ts';
import * as sql from './sql.ts';

export interface ApiKeyInfo {
  id: string;
  team_id: string;
  name: string | null;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export interface CreatedApiKey extends ApiKeyInfo {
  /** The raw key; shown only in this response. */
  key: string;
}

function toInfo(row: sql.ApiKeyRow): ApiKeyInfo {
  return {
    id: row.id,
    team_id: row.team_id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}

/** Issues a key for a team; the raw key is returned once and only its hash is kept. */
export async function createApiKey(db: Queryable, teamId: string, name: string | null): Promise<CreatedApiKey> {
  if (!(await selectTeam(db, teamId))) throw notFound('Team', teamId);
  const generated = generateApiKey();
  const row = await sql.insertApiKey(db, {
    id: newId('key'),
    teamId,
    name,
    prefix: generated.prefix,
    hash: generated.hash,
  });
  return { ...toInfo(row), key: generated.key };
}

/** The team's keys, newest first, without secrets. */
export async function listApiKeys(db: Queryable, teamId: string): Promise<ApiKeyInfo[]> {
  if (!(await selectTeam(db, teamId))) throw notFound('Team', teamId);
  return (await sql.selectApiKeysOfTeam(db, teamId)).map(toInfo);
}

/** Revokes a key (idempotent). */
export async function revokeApiKey(db: Queryable, keyId: string): Promise<ApiKeyInfo> {
  const row = await sql.revokeApiKey(db, keyId);
  if (!row) throw notFound('API key', keyId);
  return toInfo(row);
}
