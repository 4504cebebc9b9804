import { type Static, type TSchema, Type } from 'typebox';
import { Url } from '../../lib/fields.ts';
import { Timestamp } from '../../lib/schemas.ts';
import { WorkspaceIdField } from '../workspaces/schemas.ts';

/**
 * The largest import body (or JSON_BODY_LIMIT, if that is larger): a project near its totals
 * does not fit the general JSON limit. The totals below keep one import a bounded transaction.
 */
export const IMPORT_BODY_LIMIT = 32 * 1024 * 1024;

// Limits of one imported project.
export const LIMITS = {
  scenes: 200,
  shotsPerScene: 100,
  framesPerShot: 20,
  imageVersionsPerFrame: 20,
  videoVersionsPerShot: 20,
  assetsPerKind: 100,
  imageUrlsPerAsset: 20,
  totalShots: 5_000,
  totalFrames: 20_000,
  totalImageVersions: 50_000,
  totalVideoVersions: 20_000,
} as const;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const Name = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const LongText = (description: string) => Type.String({ maxLength: 5000, description });
const Prompt = Type.String({ maxLength: 4000, description: 'The prompt this version was generated from' });
const Seconds = (description: string) => Type.Number({ exclusiveMinimum: 0, maximum: 3600, description });
const Selected = (of: string) =>
  Type.Boolean({ default: false, description: `Marks the chosen version; at most one per ${of}` });
const strict = { additionalProperties: false };

// ---- import body -------------------------------------------------------------------------------

const ImportAsset = Type.Object(
  {
    name: Name('Unique per kind within the project'),
    description: Type.Optional(LongText('Free text')),
    image_urls: Type.Optional(
      Type.Array(Url('Reference image (http or https)'), { maxItems: LIMITS.imageUrlsPerAsset, default: [] }),
    ),
  },
  strict,
);

const ImportImageVersion = Type.Object(
  {
    url: Url('The image (http or https)'),
    prompt: Type.Optional(Prompt),
    selected: Type.Optional(Selected('frame')),
  },
  strict,
);

const ImportVideoVersion = Type.Object(
  {
    url: Url('The video (http or https)'),
    duration_seconds: Type.Optional(Seconds('Length of the video')),
    prompt: Type.Optional(Prompt),
    selected: Type.Optional(Selected('shot')),
  },
  strict,
);

const ImportFrame = Type.Object(
  {
    image_versions: Type.Optional(
      Type.Array(ImportImageVersion, {
        maxItems: LIMITS.imageVersionsPerFrame,
        default: [],
        description: 'Oldest first: the first is version 1',
      }),
    ),
  },
  strict,
);

const ImportShot = Type.Object(
  {
    description: Type.Optional(LongText('What happens in the shot')),
    duration_seconds: Type.Optional(Seconds('Planned length of the shot')),
    camera: Type.Optional(
      Type.String({ maxLength: 500, description: 'Framing and movement, e.g. "wide, slow dolly-in"' }),
    ),
    frames: Type.Optional(
      Type.Array(ImportFrame, { maxItems: LIMITS.framesPerShot, default: [], description: 'In order' }),
    ),
    video_versions: Type.Optional(
      Type.Array(ImportVideoVersion, {
        maxItems: LIMITS.videoVersionsPerShot,
        default: [],
        description: 'Oldest first: the first is version 1',
      }),
    ),
  },
  strict,
);

const ImportScene = Type.Object(
  {
    title: Name('Scene title'),
    description: Type.Optional(LongText('What happens in the scene')),
    shots: Type.Optional(
      Type.Array(ImportShot, { maxItems: LIMITS.shotsPerScene, default: [], description: 'In order' }),
    ),
  },
  strict,
);

const assetList = (what: string) =>
  Type.Optional(Type.Array(ImportAsset, { maxItems: LIMITS.assetsPerKind, default: [], description: what }));

export const StoryboardImportBody = Type.Object(
  {
    name: Name('Project name'),
    description: Type.Optional(LongText('Project description')),
    workspace_id: Type.Optional(WorkspaceIdField),
    aspect_ratio: Type.Optional(
      Type.String({ pattern: '^[1-9][0-9]{0,2}:[1-9][0-9]{0,2}$', description: 'Frame shape, e.g. "16:9"' }),
    ),
    outfits: assetList('Costumes worn in the project'),
    locations: assetList('Places where scenes are set'),
    elements: assetList('Custom elements: props, creatures, logos...'),
    scenes: Type.Optional(
      Type.Array(ImportScene, {
        maxItems: LIMITS.scenes,
        default: [],
        description: 'In order: the first is position 1',
      }),
    ),
  },
  strict,
);
export type StoryboardImport = Static<typeof StoryboardImportBody>;

// ---- responses -----------------------------------------------------------------------------------

const current = (what: string) =>
  Nullable(Type.String({ format: 'uri', description: `URL of the selected ${what}, else the latest; null if none` }));

const Asset = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  image_urls: Type.Array(Type.String({ format: 'uri' })),
});

const ImageVersion = Type.Object({
  version: Type.Integer({ minimum: 1, description: '1 is the oldest' }),
  url: Type.String({ format: 'uri' }),
  prompt: Nullable(Type.String()),
  selected: Type.Boolean(),
  created_at: Timestamp,
});

const VideoVersion = Type.Object({
  version: Type.Integer({ minimum: 1, description: '1 is the oldest' }),
  url: Type.String({ format: 'uri' }),
  duration_seconds: Nullable(Type.Number()),
  prompt: Nullable(Type.String()),
  selected: Type.Boolean(),
  created_at: Timestamp,
});

const Frame = Type.Object({
  id: Type.String(),
  position: Type.Integer({ minimum: 1 }),
  image_url: current('image version'),
  image_versions: Type.Array(ImageVersion, { description: 'Oldest first' }),
});

const Shot = Type.Object({
  id: Type.String(),
  position: Type.Integer({ minimum: 1 }),
  description: Nullable(Type.String()),
  duration_seconds: Nullable(Type.Number()),
  camera: Nullable(Type.String()),
  frames: Type.Array(Frame),
  video_url: current('video version'),
  video_versions: Type.Array(VideoVersion, { description: 'Oldest first' }),
});

const Scene = Type.Object({
  id: Type.String(),
  position: Type.Integer({ minimum: 1 }),
  title: Type.String(),
  description: Nullable(Type.String()),
  shots: Type.Array(Shot),
});

const projectFields = {
  id: Type.String({ examples: ['sb_01jb7m2x4k9q3r5t6v7w8y9z0a'] }),
  name: Type.String(),
  description: Nullable(Type.String()),
  workspace_id: Nullable(Type.String()),
  aspect_ratio: Nullable(Type.String({ examples: ['16:9'] })),
  scene_count: Type.Integer({ minimum: 0 }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const StoryboardProject = Type.Object(
  {
    ...projectFields,
    outfits: Type.Array(Asset),
    locations: Type.Array(Asset),
    elements: Type.Array(Asset),
    scenes: Type.Array(Scene, { description: 'By position' }),
  },
  { $id: 'StoryboardProject', title: 'StoryboardProject' },
);
export type StoryboardProject = Static<typeof StoryboardProject>;

const SceneSummary = Type.Object({
  id: Type.String(),
  position: Type.Integer({ minimum: 1 }),
  title: Type.String(),
  first_frame_url: Nullable(
    Type.String({
      format: 'uri',
      description:
        'Current image (selected version, else latest) of the first frame of the scene that has one, ' +
        'in shot then frame order; null if none',
    }),
  ),
  video_url: Nullable(
    Type.String({
      format: 'uri',
      description: 'Current video (selected version, else latest) of the first shot that has one; null if none',
    }),
  ),
});

export const StoryboardSummary = Type.Object(
  { ...projectFields, scenes: Type.Array(SceneSummary, { description: 'By position' }) },
  { $id: 'StoryboardSummary', title: 'StoryboardSummary' },
);
export type StoryboardSummary = Static<typeof StoryboardSummary>;

export const StoryboardListQuery = Type.Object({
  workspace_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Only the projects of this workspace of your team (404 unknown, 403 another team)',
    }),
  ),
});

export const StoryboardParams = Type.Object({
  projectId: Type.String({ minLength: 1, maxLength: 64, description: 'A storyboard project id (`sb_...`)' }),
});
