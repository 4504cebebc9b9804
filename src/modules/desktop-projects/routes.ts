import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
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
import { getSnapshot, listProjects, listVersions, pushSnapshot, storeProjectMedia } from './service.ts';
import { FILE_FIELD, receiveUpload } from './upload.ts';

const tags = ['Desktop projects'];
const PROJECTS = '/api/v1/desktop-projects';
const PROJECT = `${PROJECTS}/:desktopProjectId`;
const MEDIA = `${PROJECT}/media`;

/** Fastify's own errors on these routes, worded for them; the rest go on to the app's handler. */
/** Versioned snapshots of desktop projects and the media they reference. */
export default async function desktopProjectsRoutes(app: App): Promise<void> {
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
          'An `Idempotency-Key` makes a retried push safe.',
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
          'and with the bytes. Before anything is stored the file is checked: its signature, its whole ' +
          'container structure (nothing appended after its end), no markup or archive hidden in it, a real ' +
          `decode, and the limits: ${UPLOAD_LIMITS_TEXT}. A refusal is 422 \`media_rejected\` with the reason; ` +
          'a file over its limit is 413 `payload_too_large`, answered as soon as the limit is passed. The ' +
          'project need not have been pushed yet: upload its media first, then push the snapshot that uses ' +
          'the URLs. `Idempotency-Key` is not applied here (the body is streamed): a retried upload stores ' +
          'another copy.',
        consumes: ['multipart/form-data'],
        params: ProjectParams,
        body: UploadForm,
        response: { 200: StoredMedia, ...errorResponses(400, 401, 413, 422) },
      },
    },
    async (request) =>
      storeProjectMedia(
        app.deps,
        request.principal.teamId,
        request.params.desktopProjectId,
        await receiveUpload(request),
      ),
  );
}
