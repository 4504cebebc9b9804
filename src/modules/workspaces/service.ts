import type { Queryable } from '../../db/pool.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { selectTeam } from '../teams/sql.ts';
import * as sql from './sql.ts';

export interface Workspace {
  id: string;
  name: string;
  created_at: string;
}

function toWorkspace(row: sql.WorkspaceRow): Workspace {
  return { id: row.id, name: row.name, created_at: row.created_at.toISOString() };
}

export async function createWorkspace(db: Queryable, teamId: string, name: string): Promise<Workspace> {
  if (!(await selectTeam(db, teamId))) throw notFound('Team', teamId);
  return toWorkspace(await sql.insertWorkspace(db, newId('ws'), teamId, name));
}

export async function listWorkspaces(db: Queryable, teamId: string): Promise<Workspace[]> {
  return (await sql.selectWorkspacesOfTeam(db, teamId)).map(toWorkspace);
}

function assertOwned(row: sql.WorkspaceRow | undefined, teamId: string, workspaceId: string): sql.WorkspaceRow {
  if (!row) throw notFound('Workspace', workspaceId);
  if (row.team_id !== teamId) throw new AppError('forbidden', `Workspace '${workspaceId}' belongs to another team`);
  return row;
}

/** One workspace of the team (404 unknown, 403 another team's). */
export async function getWorkspace(db: Queryable, teamId: string, workspaceId: string): Promise<Workspace> {
  return toWorkspace(assertOwned(await sql.selectWorkspace(db, workspaceId), teamId, workspaceId));
}

/**
 * The one check every endpoint that takes a `workspace_id` runs: absent → null, unknown → 404,
 * another team's → 403. Returns the id to store.
 */
export async function resolveWorkspace(
  db: Queryable,
  teamId: string,
  workspaceId: string | null | undefined,
): Promise<string | null> {
  if (workspaceId === undefined || workspaceId === null) return null;
  return assertOwned(await sql.selectWorkspace(db, workspaceId), teamId, workspaceId).id;
}
