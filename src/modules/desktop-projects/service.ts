import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Static } from 'typebox';
import type { Deps } from '../../app-types.ts';
import type { Queryable } from '../../db/pool.ts';
import { withTransaction } from '../../db/pool.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { withTempDir } from '../../lib/ffmpeg.ts';
import { newId } from '../../lib/ids.ts';
import { extensionForContentType } from '../../storage/index.ts';
import { resolveWorkspace } from '../workspaces/service.ts';
import { openFileBytes } from './file-bytes.ts';
import { decodeAudioVideo, decodeImage } from './media-decode.ts';
import { type DeclaredMedia, FORMATS } from './media-formats.ts';
import { checkEdgeScan, checkStructure } from './media-structure.ts';
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
  deps: Pick<Deps, 'pool' | 'config'>,
  teamId: string,
  input: PushInput,
): Promise<PushedSnapshot> {
  const workspaceId = await resolveWorkspace(deps.pool, teamId, input.workspace_id);
  const payloadJson = JSON.stringify(input.payload);
  const sizeBytes = Buffer.byteLength(payloadJson);
  return withTransaction(deps.pool, async (client) => {
    await checkStorageQuota(client, deps.config.teamStorageQuotaBytes, teamId, sizeBytes, { lock: true });
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
 * Where an upload's bytes went while they streamed in: its storage key, and the project they are
 * for (its id, or the id it is made with once the file is accepted when it does not exist yet).
 */
export interface StagedMedia {
  clientId: string;
  projectId: string;
  key: string;
}

function quotaExceeded(quotaBytes: number, usedBytes: number, addingBytes: number): AppError {
  const mib = (bytes: number) => `${Math.ceil((bytes / (1024 * 1024)) * 10) / 10} MiB`;
  // A check made before the size is known adds one byte: the team is at its quota already.
  const adds = addingBytes > 1 ? ` and this adds ${mib(addingBytes)}` : '';
  return new AppError(
    'payload_too_large',
    `The team's storage quota of ${mib(quotaBytes)} would be passed: it holds ${mib(usedBytes)}${adds}. ` +
      'Result files free their room as they pass retention; for more, ask the operator to raise TEAM_STORAGE_QUOTA_MB',
  );
}

/**
 * Refuses (413) a write of `addingBytes` that would take the team past its storage quota
 * (TEAM_STORAGE_QUOTA_MB; 0: none). Inside a transaction it takes the team's storage lock first,
 * so that concurrent writes are counted one after the other.
 */
export async function checkStorageQuota(
  db: Queryable,
  quotaBytes: number,
  teamId: string,
  addingBytes: number,
  options: { lock: boolean },
): Promise<void> {
  if (quotaBytes <= 0) return;
  if (options.lock) await sql.lockTeamStorage(db, teamId);
  const used = await sql.selectTeamStorageBytes(db, teamId);
  if (used + addingBytes > quotaBytes) throw quotaExceeded(quotaBytes, used, addingBytes);
}

/**
 * Streams an upload's checked bytes into storage, in the team's folder for the project. Nothing is
 * held in memory, and nothing is written to the database: a project never pushed is made only
 * once its file is accepted (storeProjectMedia).
 */
export async function stageProjectMedia(
  deps: Pick<Deps, 'pool' | 'storage'>,
  teamId: string,
  clientId: string,
  declared: DeclaredMedia,
  file: Readable,
): Promise<StagedMedia> {
  const projectId = (await sql.selectProject(deps.pool, teamId, clientId))?.id ?? newId('dp');
  const extension = extensionForContentType(declared.contentType);
  if (!extension) throw new Error(`no storage extension for ${declared.contentType}`);
  const key = `projects/${teamId}/${projectId}/${randomBytes(16).toString('base64url')}.${extension}`;
  await deps.storage.putStream(key, file, declared.contentType);
  return { clientId, projectId, key };
}

/** Removes what an upload stored before it was refused. */
export async function discardStagedMedia(deps: Pick<Deps, 'storage'>, staged: StagedMedia): Promise<void> {
  await deps.storage.delete(staged.key);
}

/**
 * Checks a stored upload all the way (structure, hidden content, a real decode, limits) from a
 * temporary copy read back from storage, never whole in memory, and records it within the team's
 * storage quota. A refused file is deleted: it leaves nothing behind.
 */
export async function storeProjectMedia(
  deps: Pick<Deps, 'pool' | 'storage' | 'config'>,
  teamId: string,
  upload: ReceivedUpload<StagedMedia>,
): Promise<StoredMedia> {
  const { declared, size, scan, stored } = upload;
  try {
    const decoded = await withTempDir(async (dir) => {
      const path = join(dir, `upload.${FORMATS[declared.format].extensions[0]}`);
      const object = await deps.storage.get(stored.key);
      if (!object) throw new Error(`the upload stored under ${stored.key} is not there`);
      await pipeline(object.body, createWriteStream(path));
      // An image is at most 20 MiB: its checks read it whole; audio and video are walked in the file.
      const file = declared.kind === 'image' ? undefined : openFileBytes(path);
      try {
        checkStructure(file?.bytes ?? (await readFile(path)), declared.format);
      } finally {
        file?.close();
      }
      checkEdgeScan(scan);
      return declared.kind === 'image' ? decodeImage(path, declared.format) : decodeAudioVideo(path, declared);
    });
    await withTransaction(deps.pool, async (client) => {
      await checkStorageQuota(client, deps.config.teamStorageQuotaBytes, teamId, size, { lock: true });
      // The project, made (without versions) when it was never pushed nor uploaded to. Uploads that
      // race to make it meet in the upsert: each records its file under the one row (a racer's
      // file keeps the folder named by the id it staged with; its row says where it is).
      const project = await sql.ensureProject(client, stored.projectId, teamId, stored.clientId);
      await sql.insertMedia(client, {
        id: newId('dpm'),
        projectId: project.id,
        storageKey: stored.key,
        contentType: declared.contentType,
        kind: declared.kind,
        sizeBytes: size,
        width: decoded.width ?? null,
        height: decoded.height ?? null,
        durationSeconds: decoded.durationSeconds ?? null,
      });
    });
    return {
      url: deps.storage.publicUrl(stored.key),
      content_type: declared.contentType,
      size_bytes: size,
      kind: declared.kind,
      ...(decoded.width !== undefined ? { width: decoded.width, height: decoded.height } : {}),
      ...(decoded.durationSeconds !== undefined ? { duration_seconds: decoded.durationSeconds } : {}),
    };
  } catch (err) {
    await discardStagedMedia(deps, stored).catch(() => undefined);
    throw err;
  }
}
