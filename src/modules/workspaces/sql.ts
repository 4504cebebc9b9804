import type { Queryable } from '../../db/pool.ts';

export interface WorkspaceRow {
  id: string;
  team_id: string;
  name: string;
  created_at: Date;
}

export async function insertWorkspace(db: Queryable, id: string, teamId: string, name: string): Promise<WorkspaceRow> {
  const { rows } = await db.query<WorkspaceRow>(
    `insert into workspaces (id, team_id, name) values ($1::text, $2::text, $3::text)
     returning id, team_id, name, created_at`,
    [id, teamId, name],
  );
  return rows[0] as WorkspaceRow;
}

export async function selectWorkspacesOfTeam(db: Queryable, teamId: string): Promise<WorkspaceRow[]> {
  const { rows } = await db.query<WorkspaceRow>(
    'select id, team_id, name, created_at from workspaces where team_id = $1::text order by id desc',
    [teamId],
  );
  return rows;
}

export async function selectWorkspace(db: Queryable, id: string): Promise<WorkspaceRow | undefined> {
  const { rows } = await db.query<WorkspaceRow>(
    'select id, team_id, name, created_at from workspaces where id = $1::text',
    [id],
  );
  return rows[0];
}
