import { randomBytes } from 'node:crypto';
import type { Static } from 'typebox';
import type { Deps } from '../../app-types.ts';
import type { Queryable } from '../../db/pool.ts';
import { withTransaction } from '../../db/pool.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { extensionForContentType } from '../../storage/index.ts';
import { resolveWorkspace } from '../workspaces/service.ts';
import { decodeAudioVideo, decodeImage } from './media-decode.ts';
import { checkEmbedded, checkStructure } from './media-structure.ts';
import type * as schemas from './schemas.ts';
import * as sql from './sql.ts';
import type { ReceivedUpload } from './upload.ts';

export type PushInput = Static<typeof schemas.PushBody>;
export type PushedSnapshot = Static<typeof schemas.PushedSnapshot>;
export type ProjectSummary = Static<typeof schemas.ProjectSummary>;
export type Snapshot = Static<typeof schemas.Snapshot>;
export type VersionSummary = Static<typeof schemas.VersionSummary>;
export type StoredMedia = Static<typeof schemas.StoredMedia>;

/**
 * Stores a new snapshot as the project's next version (creating the project at version 1).
 * The version number and the snapshot are written in one transaction under the project's row lock.
 */
export async function pushSnapshot(
  deps: Pick<Deps, 'pool'>,
  teamId: string,
  input: PushInput,
): Promise<PushedSnapshot> {
  const workspaceId = await resolveWorkspace(deps.pool, teamId, input.workspace_id);
  const payloadJson = JSON.stringify(input.payload);
  const sizeBytes = Buffer.byteLength(payloadJson);
  return withTransaction(deps.pool, async (client) => {
    const project = await sql.upsertProjectForPush(
      client,
      newId('dp'),
      teamId,
      input.desktop_project_id,
      input.name ?? null,
      workspaceId,
    );
    const row = await sql.insertVersion(
      client,
      project.id,
      project.latest_version,
      payloadJson,
      sizeBytes,
      project.updated_at,
    );
    return {
      desktop_project_id: input.desktop_project_id,
      version: row.version,
      created_at: row.created_at.toISOString(),
      size_bytes: row.size_bytes,
    };
  });
}

/** The team's projects that have at least one snapshot, most recently pushed first. */
export async function listProjects(
  deps: Pick<Deps, 'pool'>,
  teamId: string,
  workspaceId: string | undefined,
): Promise<ProjectSummary[]> {
  const workspace = await resolveWorkspace(deps.pool, teamId, workspaceId);
  const rows = await sql.selectProjectsOfTeam(deps.pool, teamId, workspace);
  return rows.map((row) => ({
    desktop_project_id: row.client_id,
    name: row.name,
    workspace_id: row.workspace_id,
    latest_version: row.latest_version,
    version_count: row.version_count,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }));
}

/** The project if the team has pushed at least one snapshot of it; 404 otherwise (also for other teams' ids). */
async function pushedProject(db: Queryable, teamId: string, clientId: string): Promise<sql.ProjectRow> {
  const project = await sql.selectProject(db, teamId, clientId);
  if (!project || project.latest_version === 0) throw notFound('Desktop project', clientId);
  return project;
}

/** One snapshot with its payload: the given version, else the latest. */
export async function getSnapshot(
  deps: Pick<Deps, 'pool'>,
  teamId: string,
  clientId: string,
  version: number | undefined,
): Promise<Snapshot> {
  const project = await pushedProject(deps.pool, teamId, clientId);
  const wanted = version ?? project.latest_version;
  const row = await sql.selectSnapshot(deps.pool, project.id, wanted);
  if (!row) {
    throw new AppError(
      'not_found',
      `Version ${wanted} of desktop project '${clientId}' not found (versions run 1-${project.latest_version})`,
    );
  }
  return {
    desktop_project_id: project.client_id,
    name: project.name,
    workspace_id: project.workspace_id,
    version: row.version,
    latest_version: project.latest_version,
    created_at: row.created_at.toISOString(),
    size_bytes: row.size_bytes,
    payload: row.payload as Snapshot['payload'],
  };
}

/** The project's versions, newest first, paged with `limit` and `before` (a version number). */
export async function listVersions(
  deps: Pick<Deps, 'pool'>,
  teamId: string,
  clientId: string,
  page: { limit: number; before?: number | undefined },
): Promise<VersionSummary[]> {
  const project = await pushedProject(deps.pool, teamId, clientId);
  const rows = await sql.selectVersions(deps.pool, project.id, page.limit, page.before ?? null);
  return rows.map((row) => ({
    version: row.version,
    created_at: row.created_at.toISOString(),
    size_bytes: row.size_bytes,
  }));
}

/**
 * Checks an upload all the way (structure, hidden content, a real decode, limits) and stores it
 * in the team's folder for the project, creating the project (without versions) when it was
 * never pushed. A refused file leaves nothing behind.
 */
export async function storeProjectMedia(
  deps: Pick<Deps, 'pool' | 'storage'>,
  teamId: string,
  clientId: string,
  upload: ReceivedUpload,
): Promise<StoredMedia> {
  const { declared, bytes } = upload;
  checkStructure(bytes, declared.format);
  checkEmbedded(bytes);
  const decoded =
    declared.kind === 'image' ? await decodeImage(bytes, declared.format) : await decodeAudioVideo(bytes, declared);

  const project = await sql.ensureProject(deps.pool, newId('dp'), teamId, clientId);
  const extension = extensionForContentType(declared.contentType);
  if (!extension) throw new Error(`no storage extension for ${declared.contentType}`);
  const key = `projects/${teamId}/${project.id}/${randomBytes(16).toString('base64url')}.${extension}`;
  await deps.storage.put(key, bytes, declared.contentType);
  await sql.insertMedia(deps.pool, {
    id: newId('dpm'),
    projectId: project.id,
    storageKey: key,
    contentType: declared.contentType,
    kind: declared.kind,
    sizeBytes: bytes.length,
    width: decoded.width ?? null,
    height: decoded.height ?? null,
    durationSeconds: decoded.durationSeconds ?? null,
  });
  return {
    url: deps.storage.publicUrl(key),
    content_type: declared.contentType,
    size_bytes: bytes.length,
    kind: declared.kind,
    ...(decoded.width !== undefined ? { width: decoded.width, height: decoded.height } : {}),
    ...(decoded.durationSeconds !== undefined ? { duration_seconds: decoded.durationSeconds } : {}),
  };
}
