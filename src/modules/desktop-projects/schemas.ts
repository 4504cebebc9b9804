import { Type } from 'typebox';
import { Timestamp } from '../../lib/schemas.ts';
import { WorkspaceIdField } from '../workspaces/schemas.ts';
import { ACCEPTED_TYPES, MEDIA_LIMITS } from './media-formats.ts';

const MiB = 1024 * 1024;

/** Largest push request body (the whole JSON, payload included). */
export const SNAPSHOT_BODY_LIMIT = 5 * MiB;

export const DesktopProjectId = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9_.:-]{1,128}$',
  description:
    'Stable id the desktop app chose for the project: 1-128 characters of letters, digits, `_ . : -`. ' +
    'Scoped to your team: another team may use the same id for its own project.',
  examples: ['7f9c2b4e-2c1d-4f7e-9a51-0c6f3e2d8a11'],
});

export const ProjectParams = Type.Object({ desktopProjectId: DesktopProjectId });

export const SnapshotPayload = Type.Object(
  {
    storyboards: Type.Array(Type.Unknown(), { description: 'Storyboards of the project; any JSON values' }),
    timelines: Type.Array(Type.Unknown(), { description: 'Studio timelines of the project; any JSON values' }),
    metadata: Type.Object({}, { additionalProperties: true, description: 'Any JSON object' }),
  },
  {
    additionalProperties: true,
    description:
      'The snapshot as the desktop app saves it. The three keys are required with these JSON types; their ' +
      'contents, and any further top-level keys, are stored and returned as sent. Media inside is referenced ' +
      'by URL (upload it with POST /api/v1/desktop-projects/{desktopProjectId}/media).',
  },
);

export const PushBody = Type.Object(
  {
    desktop_project_id: DesktopProjectId,
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Display name; when omitted the stored one stays' }),
    ),
    workspace_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'Puts the project in a workspace of your team (404 unknown, 403 another team); when omitted the ' +
          'project stays where it is',
      }),
    ),
    payload: SnapshotPayload,
  },
  {
    additionalProperties: false,
    examples: [
      {
        desktop_project_id: '7f9c2b4e-2c1d-4f7e-9a51-0c6f3e2d8a11',
        name: 'Launch teaser',
        payload: { storyboards: [], timelines: [], metadata: { app_version: '2.4.0' } },
      },
    ],
  },
);

export const PushedSnapshot = Type.Object(
  {
    desktop_project_id: Type.String(),
    version: Type.Integer({ minimum: 1, description: 'This snapshot’s number: 1, 2, 3, … per project' }),
    created_at: Timestamp,
    size_bytes: Type.Integer({ description: 'Size of the stored payload JSON in bytes' }),
  },
  { $id: 'DesktopProjectPushed', title: 'DesktopProjectPushed' },
);

export const ProjectSummary = Type.Object(
  {
    desktop_project_id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    workspace_id: Type.Union([Type.String(), Type.Null()]),
    latest_version: Type.Integer(),
    version_count: Type.Integer(),
    created_at: Timestamp,
    updated_at: Type.String({ format: 'date-time', description: 'Time of the latest push' }),
  },
  { $id: 'DesktopProject', title: 'DesktopProject' },
);

export const ListQuery = Type.Object({
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const SnapshotQuery = Type.Object({
  version: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Version to read; the latest when omitted' }),
  ),
});

export const Snapshot = Type.Object(
  {
    desktop_project_id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()], { description: 'The project’s current name' }),
    workspace_id: Type.Union([Type.String(), Type.Null()], { description: 'The project’s current workspace' }),
    version: Type.Integer(),
    latest_version: Type.Integer(),
    created_at: Timestamp,
    size_bytes: Type.Integer(),
    payload: SnapshotPayload,
  },
  { $id: 'DesktopProjectSnapshot', title: 'DesktopProjectSnapshot' },
);

export const VersionsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'Page size; default 100' })),
  before: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      description: 'Only versions below this one: pass the last version of the previous page',
    }),
  ),
});

export const VersionSummary = Type.Object(
  {
    version: Type.Integer(),
    created_at: Timestamp,
    size_bytes: Type.Integer(),
  },
  { $id: 'DesktopProjectVersion', title: 'DesktopProjectVersion' },
);

/** For the docs only: the multipart form (the body is streamed, never validated as a whole). */
export const UploadForm = Type.Unsafe<unknown>({
  properties: {
    file: {
      type: 'string',
      format: 'binary',
      description: `The file, with its Content-Type (${ACCEPTED_TYPES}) and a filename with a matching extension`,
    },
  },
  required: ['file'],
});

export const StoredMedia = Type.Object(
  {
    url: Type.String({ format: 'uri', description: 'Public URL of the stored file, to embed in a snapshot' }),
    content_type: Type.String({ examples: ['image/png'] }),
    size_bytes: Type.Integer(),
    kind: Type.Enum(['image', 'video', 'audio']),
    width: Type.Optional(Type.Integer({ description: 'Images and videos, as displayed' })),
    height: Type.Optional(Type.Integer({ description: 'Images and videos, as displayed' })),
    duration_seconds: Type.Optional(Type.Number({ description: 'Videos and audio' })),
  },
  { $id: 'DesktopProjectMedia', title: 'DesktopProjectMedia' },
);

export const UPLOAD_LIMITS_TEXT =
  `images ≤ ${MEDIA_LIMITS.image.maxBytes / MiB} MiB and ≤ ${MEDIA_LIMITS.image.maxSide}x${MEDIA_LIMITS.image.maxSide} ` +
  `(animations: width × height × frames ≤ ${MEDIA_LIMITS.image.maxPixels} pixels); ` +
  `videos ≤ ${MEDIA_LIMITS.video.maxBytes / MiB} MiB, ≤ ${MEDIA_LIMITS.video.maxSeconds / 60} min and ≤ ` +
  `${MEDIA_LIMITS.video.maxSide}x${MEDIA_LIMITS.video.maxSide}; audio ≤ ${MEDIA_LIMITS.audio.maxBytes / MiB} MiB and ` +
  `≤ ${MEDIA_LIMITS.audio.maxSeconds / 60} min`;
