import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { AppError } from '../../lib/errors.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { ACCEPTED_TYPES, MAX_UPLOAD_BYTES } from './media-formats.ts';
import {
  ListQuery,
  ProjectParams,
  ProjectSummary,
  PushBody,
  PushedSnapshot,
  SNAPSHOT_BODY_LIMIT,
  Snapshot,
  SnapshotQuery,
  StoredMedia,
  UPLOAD_LIMITS_TEXT,
  UploadForm,
  VersionSummary,
  VersionsQuery,
} from './schemas.ts';
import {
  checkStorageQuota,
  discardStagedMedia,
  getSnapshot,
  listProjects,
  listVersions,
  pushSnapshot,
  stageProjectMedia,
  storeProjectMedia,
} from './service.ts';
import { FILE_FIELD, receiveUpload } from './upload.ts';

const tags = ['Desktop projects'];
const PROJECTS = '/api/v1/desktop-projects';
const PROJECT = `${PROJECTS}/:desktopProjectId`;
const MEDIA = `${PROJECT}/media`;

/** When a client refused an upload should try again. */
const UPLOAD_RETRY_AFTER_S = 5;

/** The uploads each team sends at once to this process, within UPLOADS_MAX_CONCURRENT_PER_TEAM. */
function uploadSlots(max: number) {
  const running = new Map<string, number>();
  return {
    /** Takes a place for one of the team's uploads, or refuses (429 `rate_limited` with Retry-After). */
    admit(teamId: string): { release(): void } {
      const held = running.get(teamId) ?? 0;
      if (held >= max) {
        throw new AppError(
          'rate_limited',
          `The team already sends ${max} uploads at once, its most: wait for one to finish and try again`,
          undefined,
          { 'retry-after': String(UPLOAD_RETRY_AFTER_S) },
        );
      }
      running.set(teamId, held + 1);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          const left = (running.get(teamId) ?? 1) - 1;
          if (left > 0) running.set(teamId, left);
          else running.delete(teamId);
        },
      };
    },
  };
}

/** Versioned snapshots of desktop projects and the media they reference. */
export default async function desktopProjectsRoutes(app: App): Promise<void> {
  const uploads = uploadSlots(app.deps.config.uploadsMaxConcurrentPerTeam);
  // Only this plugin's routes read multipart bodies, and only as a stream (see upload.ts).
  await app.register(multipart, {
    limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 0, parts: 1, headerPairs: 20, fieldNameSize: 100 },
  });

  app.post(
    PROJECTS,
    {
      bodyLimit: SNAPSHOT_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Push a snapshot',
        description:
          'Stores the payload as the next version of the project (1 for a new project). Concurrent pushes to ' +
          'one project get distinct, consecutive versions. The request body may be at most 5 MiB (413 ' +
          '`payload_too_large` beyond). `name` and `workspace_id`, when given, update the project. ' +
          'An `Idempotency-Key` makes a retried push safe. A push that would take the team past its storage ' +
          'quota (TEAM_STORAGE_QUOTA_MB) is 413 `payload_too_large`.',
        body: PushBody,
        response: { 200: PushedSnapshot, ...errorResponses(400, 401, 403, 404, 413) },
      },
    },
    (request) => pushSnapshot(app.deps, request.principal.teamId, request.body),
  );

  app.get(
    PROJECTS,
    {
      schema: {
        tags,
        summary: "List the team's desktop projects",
        description:
          'Projects with at least one snapshot, most recently pushed first, each with its latest version and ' +
          'version count. `workspace_id` narrows the list to one workspace of the team.',
        querystring: ListQuery,
        response: { 200: Type.Array(ProjectSummary), ...errorResponses(400, 401, 403, 404) },
      },
    },
    (request) => listProjects(app.deps, request.principal.teamId, request.query.workspace_id),
  );

  app.get(
    PROJECT,
    {
      schema: {
        tags,
        summary: 'Read a snapshot',
        description:
          'The full snapshot with its payload: the given `version`, else the latest. 404 for an unknown project ' +
          '(another team’s included), a project never pushed, or a version it does not have.',
        params: ProjectParams,
        querystring: SnapshotQuery,
        response: { 200: Snapshot, ...errorResponses(400, 401, 404) },
      },
    },
    (request) =>
      getSnapshot(app.deps, request.principal.teamId, request.params.desktopProjectId, request.query.version),
  );

  app.get(
    `${PROJECT}/versions`,
    {
      schema: {
        tags,
        summary: "List a project's versions",
        description:
          'Newest first, `limit` per page (default 100, at most 500); the next page starts `before` the last ' +
          'version of this one. 404 for an unknown project.',
        params: ProjectParams,
        querystring: VersionsQuery,
        response: { 200: Type.Array(VersionSummary), ...errorResponses(400, 401, 404) },
      },
    },
    (request) =>
      listVersions(app.deps, request.principal.teamId, request.params.desktopProjectId, {
        limit: request.query.limit ?? 100,
        before: request.query.before,
      }),
  );

  app.post(
    MEDIA,
    {
      schema: {
        tags,
        summary: 'Upload a media file for a project',
        description:
          `multipart/form-data with one part, the file, in the field \`${FILE_FIELD}\`. Accepted types: ` +
          `${ACCEPTED_TYPES}; the part's Content-Type and the filename's extension must agree with each other ` +
          'and with the bytes. Before the file is kept it is checked (a refused file is deleted): its signature, its whole ' +
          'container structure (nothing appended after its end), no markup or archive hidden in it, a real ' +
          `decode, and the limits: ${UPLOAD_LIMITS_TEXT}. A refusal is 422 \`media_rejected\` with the reason; ` +
          'a file over its limit is 413 `payload_too_large`, answered as soon as the limit is passed. The ' +
          'project need not have been pushed yet: upload its media first, then push the snapshot that uses ' +
          'the URLs. `Idempotency-Key` is not applied here (the body is streamed): a retried upload stores ' +
          'another copy. The file streams into storage as it arrives (never held in memory). A team sends at ' +
          'most UPLOADS_MAX_CONCURRENT_PER_TEAM uploads at once to a server (429 `rate_limited` with ' +
          'Retry-After past it), and an upload that would take the team past its storage quota ' +
          '(TEAM_STORAGE_QUOTA_MB) is 413 `payload_too_large`.',
        consumes: ['multipart/form-data'],
        params: ProjectParams,
        body: UploadForm,
        response: { 200: StoredMedia, ...errorResponses(400, 401, 413, 422, 429) },
      },
    },
    async (request) => {
      const teamId = request.principal.teamId;
      const slot = uploads.admit(teamId);
      try {
        // A team already at its quota is told before any byte is read; the exact count is made
        // when the file is recorded.
        await checkStorageQuota(app.deps.pool, app.deps.config.teamStorageQuotaBytes, teamId, 1, { lock: false });
        const received = await receiveUpload(
          request,
          (declared, file) => stageProjectMedia(app.deps, teamId, request.params.desktopProjectId, declared, file),
          (staged) => discardStagedMedia(app.deps, staged),
        );
        return await storeProjectMedia(app.deps, teamId, received);
      } finally {
        slot.release();
      }
    },
  );
}
