import type { Queryable } from '../../db/pool.ts';

export interface ProjectRow {
  id: string;
  team_id: string;
  client_id: string;
  workspace_id: string | null;
  name: string | null;
  latest_version: number;
  created_at: Date;
  updated_at: Date;
}

export interface ProjectListRow extends ProjectRow {
  version_count: number;
}

export interface VersionRow {
  version: number;
  size_bytes: number;
  created_at: Date;
}

export interface SnapshotRow extends VersionRow {
  payload: unknown;
}

export interface PushedRow {
  id: string;
  latest_version: number;
  updated_at: Date;
}

const PROJECT_COLUMNS = 'id, team_id, client_id, workspace_id, name, latest_version, created_at, updated_at';

/**
 * Creates the project at version 1 or bumps its version, keeping the row locked until the
 * transaction ends: concurrent pushes to one project queue here and get consecutive versions.
 * `name` and `workspace_id` replace the stored ones only when given. The timestamp is read after
 * the lock is held, so later versions never carry earlier times.
 */
export async function upsertProjectForPush(
  db: Queryable,
  id: string,
  teamId: string,
  clientId: string,
  name: string | null,
  workspaceId: string | null,
): Promise<PushedRow> {
  const { rows } = await db.query<PushedRow>(
    `insert into desktop_projects (id, team_id, client_id, name, workspace_id, latest_version, updated_at)
     values ($1::text, $2::text, $3::text, $4::text, $5::text, 1, clock_timestamp())
     on conflict (team_id, client_id) do update set
       latest_version = desktop_projects.latest_version + 1,
       name = coalesce(excluded.name, desktop_projects.name),
       workspace_id = coalesce(excluded.workspace_id, desktop_projects.workspace_id),
       updated_at = clock_timestamp()
     returning id, latest_version, updated_at`,
    [id, teamId, clientId, name, workspaceId],
  );
  return rows[0] as PushedRow;
}

export async function insertVersion(
  db: Queryable,
  projectId: string,
  version: number,
  payloadJson: string,
  sizeBytes: number,
  createdAt: Date,
): Promise<VersionRow> {
  const { rows } = await db.query<VersionRow>(
    `insert into desktop_project_versions (project_id, version, payload, size_bytes, created_at)
     values ($1::text, $2::int, $3::json, $4::int, $5::timestamptz)
     returning version, size_bytes, created_at`,
    [projectId, version, payloadJson, sizeBytes, createdAt],
  );
  return rows[0] as VersionRow;
}

/**
 * The project row for media uploads, created (without versions) when the project was never
 * pushed. The no-op update makes the statement return the row in every case, also when a
 * concurrent transaction created it after this statement began.
 */
export async function ensureProject(db: Queryable, id: string, teamId: string, clientId: string): Promise<ProjectRow> {
  const { rows } = await db.query<ProjectRow>(
    `insert into desktop_projects (id, team_id, client_id) values ($1::text, $2::text, $3::text)
     on conflict (team_id, client_id) do update set client_id = excluded.client_id
     returning ${PROJECT_COLUMNS}`,
    [id, teamId, clientId],
  );
  return rows[0] as ProjectRow;
}

export async function selectProject(db: Queryable, teamId: string, clientId: string): Promise<ProjectRow | undefined> {
  const { rows } = await db.query<ProjectRow>(
    `select ${PROJECT_COLUMNS} from desktop_projects where team_id = $1::text and client_id = $2::text`,
    [teamId, clientId],
  );
  return rows[0];
}

/** Projects with at least one snapshot, most recently pushed first; optionally of one workspace. */
export async function selectProjectsOfTeam(
  db: Queryable,
  teamId: string,
  workspaceId: string | null,
): Promise<ProjectListRow[]> {
  const { rows } = await db.query<ProjectListRow>(
    `select p.id, p.team_id, p.client_id, p.workspace_id, p.name, p.latest_version, p.created_at, p.updated_at,
       (select count(*)::int from desktop_project_versions v where v.project_id = p.id) as version_count
     from desktop_projects p
     where p.team_id = $1::text and p.latest_version > 0
       and ($2::text is null or p.workspace_id = $2::text)
     order by p.updated_at desc, p.id desc`,
    [teamId, workspaceId],
  );
  return rows;
}

export async function selectSnapshot(
  db: Queryable,
  projectId: string,
  version: number,
): Promise<SnapshotRow | undefined> {
  const { rows } = await db.query<SnapshotRow>(
    `select version, payload, size_bytes, created_at from desktop_project_versions
     where project_id = $1::text and version = $2::int`,
    [projectId, version],
  );
  return rows[0];
}

/** Versions newest first, at most `limit`, only those below `before` when given. */
export async function selectVersions(
  db: Queryable,
  projectId: string,
  limit: number,
  before: number | null,
): Promise<VersionRow[]> {
  const { rows } = await db.query<VersionRow>(
    `select version, size_bytes, created_at from desktop_project_versions
     where project_id = $1::text and ($3::int is null or version < $3::int)
     order by version desc
     limit $2::int`,
    [projectId, limit, before],
  );
  return rows;
}

export interface MediaRecord {
  id: string;
  projectId: string;
  storageKey: string;
  contentType: string;
  kind: 'image' | 'video' | 'audio';
  sizeBytes: number;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
}

export async function insertMedia(db: Queryable, media: MediaRecord): Promise<void> {
  await db.query(
    `insert into desktop_project_media
       (id, project_id, storage_key, content_type, kind, size_bytes, width, height, duration_seconds)
     values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::bigint, $7::int, $8::int, $9::float8)`,
    [
      media.id,
      media.projectId,
      media.storageKey,
      media.contentType,
      media.kind,
      media.sizeBytes,
      media.width,
      media.height,
      media.durationSeconds,
    ],
  );
}

/**
 * Holds the team's storage lock until the transaction ends: two writes of one team that each fit
 * its quota alone are counted one after the other, so together they cannot pass it.
 */
export async function lockTeamStorage(db: Queryable, teamId: string): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtextextended('team-storage:' || $1::text, 0))`, [teamId]);
}

/**
 * The bytes a team holds: its desktop-project media and snapshots, and the result files of its
 * generations whose files have not been purged (sizes recorded since results had one).
 */
export async function selectTeamStorageBytes(db: Queryable, teamId: string): Promise<number> {
  const { rows } = await db.query<{ bytes: string }>(
    `select (
       coalesce((select sum(m.size_bytes) from desktop_project_media m
                 join desktop_projects p on p.id = m.project_id where p.team_id = $1::text), 0)
       + coalesce((select sum(v.size_bytes) from desktop_project_versions v
                   join desktop_projects p on p.id = v.project_id where p.team_id = $1::text), 0)
       + coalesce((select sum(i.result_bytes) from generation_items i
                   join generations g on g.id = i.generation_id
                   where g.team_id = $1::text and g.purged_at is null), 0)
     )::text as bytes`,
    [teamId],
  );
  return Number(rows[0]?.bytes ?? 0);
}
