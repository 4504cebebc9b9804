import { readFileSync } from 'node:fs';
import { type Static, type TSchema, Type } from 'typebox';
import Value from 'typebox/value';
import { RoutesSchema } from './models.ts';

// The catalog of everything but images: video, lip sync, talking heads, reference-to-video,
// upscalers, 3D, text and music models, the providers of the one video family that has them, and
// the talking-head location templates. Data in ./models/*.json, validated at start.

const Id = Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z0-9._/-]*[a-zA-Z0-9]$' });
const Common = {
  id: Id,
  name: Type.String({ minLength: 1 }),
  vendor: Type.String({ minLength: 1 }),
  description: Type.String({ minLength: 1 }),
  default: Type.Optional(Type.Boolean()),
  estimated_seconds: Type.Number({ exclusiveMinimum: 0 }),
  routes: RoutesSchema,
};

export const VIDEO_ASPECT_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4'] as const;
const VideoAspect = Type.Enum([...VIDEO_ASPECT_RATIOS]);
const Resolution = Type.Enum(['480p', '580p', '720p', '1080p', '1440p', '2160p']);

const VideoModel = Type.Object({
  ...Common,
  /** Models of the family that is sold through several providers (settings.provider/quality/remove_watermark). */
  provider_family: Type.Boolean(),
  capabilities: Type.Object({
    text_to_video: Type.Boolean(),
    image_to_video: Type.Boolean(),
    native_audio: Type.Boolean(),
  }),
  settings: Type.Object({
    aspect_ratios: Type.Array(VideoAspect, { minItems: 1 }),
    /** Whole seconds accepted, within 1-15; the default 5 is accepted by most models. */
    durations: Type.Array(Type.Integer({ minimum: 1, maximum: 15 }), { minItems: 1 }),
    default_duration: Type.Integer({ minimum: 1, maximum: 15 }),
    resolution: Resolution,
    fps: Type.Integer({ minimum: 8, maximum: 60 }),
  }),
  /** Credits per second of output (the provider family is priced by quality instead). */
  price: Type.Object({ credits_per_second: Type.Number({ exclusiveMinimum: 0 }) }),
});

/** The providers of the provider family; the first is the default. */
const VideoProvider = Type.Object({
  id: Id,
  name: Type.String({ minLength: 1 }),
  description: Type.String({ minLength: 1 }),
  supports_watermark_removal: Type.Boolean(),
});

const LipsyncModel = Type.Object({
  ...Common,
  settings: Type.Object({ max_duration_seconds: Type.Integer({ minimum: 1, maximum: 600 }) }),
  price: Type.Object({ credits_per_second: Type.Number({ exclusiveMinimum: 0 }) }),
});

const TalkingHeadModel = Type.Object({
  ...Common,
  /** Sheet-based models build the character from the influencer's reference sheet. */
  sheet_based: Type.Boolean(),
  /** Whether the model animates from an audio track (a generated voice needs the influencer). */
  needs_audio: Type.Boolean(),
  settings: Type.Object({
    durations: Type.Array(Type.Integer({ minimum: 1, maximum: 30 }), { minItems: 1 }),
    default_duration: Type.Integer({ minimum: 1, maximum: 30 }),
    resolutions: Type.Array(Resolution, { minItems: 1 }),
    default_resolution: Resolution,
    aspect_ratios: Type.Array(Type.Enum(['9:16', '16:9']), { minItems: 1 }),
  }),
  price: Type.Object({ credits_per_second: Type.Number({ exclusiveMinimum: 0 }) }),
});

const ReferenceVideoModel = Type.Object({
  ...Common,
  /** Renders each multi_prompt segment as its own shot (the others concatenate segments). */
  per_segment_shots: Type.Boolean(),
  native_audio: Type.Boolean(),
  settings: Type.Object({
    min_duration: Type.Integer({ minimum: 1 }),
    max_duration: Type.Integer({ maximum: 15 }),
    aspect_ratios: Type.Array(VideoAspect, { minItems: 1 }),
    /** Empty for a model without a resolution choice; otherwise the highest last. */
    resolutions: Type.Array(Resolution),
  }),
  price: Type.Object({ credits_per_second: Type.Number({ exclusiveMinimum: 0 }) }),
});

const Upscaler = Type.Object({
  ...Common,
  /** The enhancement models of upscaler_a (its first entry is the default); empty for others. */
  video_models: Type.Array(Type.Object({ id: Type.String({ minLength: 1 }), description: Type.String() })),
  default_video_model: Type.Optional(Type.String()),
  /** Per second of output by output resolution tier (deprecated upscaler_a endpoint and /videos/upscale). */
  credits_per_second_by_tier: Type.Record(Type.String(), Type.Number({ exclusiveMinimum: 0 })),
  /** Per output megapixel per second (deprecated upscaler_b endpoint). */
  credits_per_output_megapixel: Type.Number({ exclusiveMinimum: 0 }),
});

const Model3d = Type.Object({
  ...Common,
  capabilities: Type.Object({ text_to_3d: Type.Boolean(), image_to_3d: Type.Boolean(), pbr: Type.Boolean() }),
  price: Type.Object({ preview: Type.Integer({ minimum: 1 }), full: Type.Integer({ minimum: 1 }) }),
});

const TextModel = Type.Object({
  ...Common,
  context_window: Type.Integer({ minimum: 1024 }),
  max_output_tokens: Type.Integer({ minimum: 256 }),
  /** Credits per 1,000 tokens (a request costs at least one credit). */
  price: Type.Object({ input_per_1k: Type.Number({ minimum: 0 }), output_per_1k: Type.Number({ minimum: 0 }) }),
});

const MusicModel = Type.Object({
  ...Common,
  max_duration_seconds: Type.Integer({ minimum: 30 }),
  max_lyrics_chars: Type.Integer({ minimum: 100 }),
  price: Type.Object({ credits_per_track: Type.Integer({ minimum: 1 }) }),
});

const TalkingHeadTemplate = Type.Object({
  id: Id,
  name: Type.String({ minLength: 1 }),
  description: Type.String({ minLength: 1 }),
  angles: Type.Array(Type.Object({ id: Id, name: Type.String({ minLength: 1 }), description: Type.String() }), {
    minItems: 1,
  }),
});

export type VideoModel = Static<typeof VideoModel>;
export type VideoProvider = Static<typeof VideoProvider>;
export type LipsyncModel = Static<typeof LipsyncModel>;
export type TalkingHeadModel = Static<typeof TalkingHeadModel>;
export type ReferenceVideoModel = Static<typeof ReferenceVideoModel>;
export type Upscaler = Static<typeof Upscaler>;
export type Model3d = Static<typeof Model3d>;
export type TextModel = Static<typeof TextModel>;
export type MusicModel = Static<typeof MusicModel>;
export type TalkingHeadTemplate = Static<typeof TalkingHeadTemplate>;

/** The price object of each media kind that has one (what a live price override is checked against). */
export const MEDIA_PRICE_SCHEMAS = {
  video: VideoModel.properties.price,
  lipsync: LipsyncModel.properties.price,
  talking_head: TalkingHeadModel.properties.price,
  reference_video: ReferenceVideoModel.properties.price,
  music: MusicModel.properties.price,
  model_3d: Model3d.properties.price,
  text: TextModel.properties.price,
} as const;

/** An upscaler's price fields (its entry's own: it has no `price` object), which an override replaces. */
export const UPSCALER_PRICE_SCHEMA = Type.Object({
  credits_per_second_by_tier: Upscaler.properties.credits_per_second_by_tier,
  credits_per_output_megapixel: Upscaler.properties.credits_per_output_megapixel,
});

/** An upscaler's price fields, as an override of them is given. */
export const upscalerPrice = (m: Upscaler) => ({
  credits_per_second_by_tier: m.credits_per_second_by_tier,
  credits_per_output_megapixel: m.credits_per_output_megapixel,
});

/** File, schema and the count the spec gives for each list. */
const FILES = {
  video: { file: 'video-models.json', schema: VideoModel, count: 29 },
  video_providers: { file: 'video-providers.json', schema: VideoProvider, count: 5 },
  lipsync: { file: 'lipsync-models.json', schema: LipsyncModel, count: 5 },
  talking_head: { file: 'talking-head-models.json', schema: TalkingHeadModel, count: 12 },
  reference_video: { file: 'reference-video-models.json', schema: ReferenceVideoModel, count: 3 },
  upscalers: { file: 'upscalers.json', schema: Upscaler, count: 2 },
  model_3d: { file: '3d-models.json', schema: Model3d, count: 7 },
  text: { file: 'text-models.json', schema: TextModel, count: 27 },
  music: { file: 'music-models.json', schema: MusicModel, count: 5 },
  talking_head_templates: { file: 'talking-head-templates.json', schema: TalkingHeadTemplate, count: undefined },
} as const;

export interface MediaCatalog {
  video: VideoModel[];
  video_providers: VideoProvider[];
  lipsync: LipsyncModel[];
  talking_head: TalkingHeadModel[];
  reference_video: ReferenceVideoModel[];
  upscalers: Upscaler[];
  model_3d: Model3d[];
  text: TextModel[];
  music: MusicModel[];
  talking_head_templates: TalkingHeadTemplate[];
}

function load<S extends TSchema>(dir: URL, file: string, schema: S, count: number | undefined): Static<S>[] {
  const data: unknown = JSON.parse(readFileSync(new URL(file, dir), 'utf8'));
  const list = Type.Array(schema, { minItems: 1 });
  if (!Value.Check(list, data)) {
    const first = [...Value.Errors(list, data)][0];
    throw new Error(`Model catalog ${file}: invalid at ${first?.instancePath}: ${first?.message}`);
  }
  const items = data as Static<S>[];
  if (count !== undefined && items.length !== count) {
    throw new Error(`Model catalog ${file}: has ${items.length} entries, expected ${count}`);
  }
  const ids = new Set<string>();
  for (const item of items as Array<{ id: string }>) {
    if (ids.has(item.id)) throw new Error(`Model catalog ${file}: id ${item.id} is used twice`);
    ids.add(item.id);
  }
  return items;
}

/** The default entry of a list (the one marked default, else the first). */
export function defaultOf<T extends { default?: boolean }>(list: T[]): T {
  return list.find((m) => m.default) ?? (list[0] as T);
}

/** Loads and validates the media catalog; a bad file stops the start with the reason. */
export function loadMediaCatalog(dir: URL = new URL('./models/', import.meta.url)): MediaCatalog {
  const out = {} as Record<keyof MediaCatalog, unknown[]>;
  for (const [key, spec] of Object.entries(FILES)) {
    out[key as keyof MediaCatalog] = load(dir, spec.file, spec.schema, spec.count);
  }
  const catalog = out as unknown as MediaCatalog;
  for (const [key, list] of Object.entries(catalog)) {
    const defaults = (list as Array<{ default?: boolean }>).filter((m) => m.default).length;
    if (defaults > 1) throw new Error(`Model catalog ${key}: more than one default`);
  }
  const check = (ok: boolean, message: string) => {
    if (!ok) throw new Error(`Model catalog: ${message}`);
  };
  for (const m of catalog.video) {
    check(m.settings.durations.includes(m.settings.default_duration), `${m.id}: default_duration not in durations`);
  }
  check(
    catalog.video.some((m) => m.provider_family),
    'no video model of the provider family',
  );
  for (const m of catalog.talking_head) {
    check(m.settings.durations.includes(m.settings.default_duration), `${m.id}: default_duration not in durations`);
    check(m.settings.resolutions.includes(m.settings.default_resolution), `${m.id}: default_resolution not listed`);
  }
  check(
    catalog.talking_head.filter((m) => m.sheet_based).length === 4,
    'exactly four talking-head models are sheet-based',
  );
  check(
    catalog.talking_head.filter((m) => Math.max(...m.settings.durations) === 30).length === 2,
    'exactly two talking-head models allow 30 s',
  );
  const [upscalerA] = catalog.upscalers;
  check(upscalerA?.video_models.length === 19, 'the first upscaler has 19 video models');
  check(
    upscalerA?.video_models.some((v) => v.id === upscalerA.default_video_model) === true,
    'the first upscaler names its default video model',
  );
  check(defaultOf(catalog.music).id === 'V4_5PLUS', 'the default music model is V4_5PLUS');
  return catalog;
}
