// How a provider-neutral image or video request becomes the input of a Replicate model. Each model
// publishes its own input schema (its latest version's openapi_schema, `Input`); the shapes below
// say which fields each one has, and a catalog route names its mapping after the model (`"mapping":
// "flux-dev-lora"`). Every mapping is checked against the schema its model publishes, vendored in
// test/fixtures/replicate/input-schemas.json (test/replicate-mappings.test.ts,
// test/replicate-video-mappings.test.ts).
import { nearestRatio } from '../fal/mappings/common.ts';
import { type Mapping, mappingFor } from '../mapping.ts';
import { type ImageRequest, ProviderError } from '../types.ts';

/** The model asks for `match_input_image` to keep its input image's proportions. */
const MATCH_INPUT = 'match_input_image';

/** How a model is told the picture's shape. */
type Size =
  /** `aspect_ratio` from the model's own list (the nearest); `match_input_image` for an edit with no size. */
  | { kind: 'ratio'; ratios: readonly string[]; matchInput?: boolean }
  /**
   * `width`/`height` within the model's bounds, with `custom` in `field` (the model's switch to
   * them); an edit with no size falls back to the ratio list.
   */
  | {
      kind: 'custom';
      field: 'aspect_ratio' | 'size';
      min: number;
      max: number;
      multiple: number;
      ratios: readonly string[];
      matchInput?: boolean;
    }
  /** `size` from the model's list of `WxH` presets (the nearest in ratio). */
  | { kind: 'presets'; sizes: readonly string[] }
  /** `width`/`height` as asked (the model takes any). */
  | { kind: 'pixels' };

/** The fields of one Replicate model's input. */
interface Shape {
  size: Size;
  /** `num_inference_steps`, clamped to the schema's minimum and maximum. */
  steps?: { min: number; max: number };
  /** `seed`; a number: the schema's maximum. */
  seed?: true | number;
  /** `negative_prompt`. */
  negative?: boolean;
  /** `output_format: 'png'`. */
  png?: boolean;
  /** Where the images to start from go: one URL, or a list of at most `max`. */
  image?: { field: string; list: false } | { field: string; list: true; max?: number };
  /** `lora_weights`: any .safetensors URL; `textOnly`: not together with an input image. */
  lora?: { textOnly?: boolean };
}

const refuse = (message: string): ProviderError => new ProviderError(message, false, { kind: 'invalid_input' });

/** The aspect ratio of a model's list for the request (or its input image's, for an edit with no size). */
function ratioFor(request: ImageRequest, ratios: readonly string[], matchInput: boolean | undefined): string {
  if (matchInput && request.size === null && request.references.length > 0) return MATCH_INPUT;
  return nearestRatio(request.aspectRatio, ratios);
}

// The size asked for, scaled as a whole (its ratio kept) until both sides are within the model's
// bounds, then each side snapped to the model's multiple inside them: a custom size outside them
// fails the prediction.
function fittedSize(
  size: { width: number; height: number },
  bounds: { min: number; max: number; multiple: number },
): { width: number; height: number } {
  const { min, max, multiple } = bounds;
  const grow = Math.max(1, min / size.width, min / size.height);
  const scale = grow > 1 ? grow : Math.min(1, max / size.width, max / size.height);
  const lowest = Math.ceil(min / multiple) * multiple;
  const highest = Math.floor(max / multiple) * multiple;
  const snap = (side: number) => Math.min(highest, Math.max(lowest, Math.round((side * scale) / multiple) * multiple));
  return { width: snap(size.width), height: snap(size.height) };
}

function shaped(model: string, shape: Shape): Mapping {
  return mappingFor('image', (request) => {
    // What the model cannot take is refused, not dropped: the user would get another picture.
    if (request.lora && !shape.lora) throw refuse(`${model} on Replicate takes no LoRA`);
    if (request.negativePrompt && !shape.negative) throw refuse(`${model} on Replicate takes no negative prompt`);
    const images = request.references;
    if (images.length > 0) {
      if (!shape.image) throw refuse(`${model} on Replicate takes no input images`);
      const most = shape.image.list ? (shape.image.max ?? images.length) : 1;
      if (images.length > most) throw refuse(`${model} on Replicate takes at most ${most} input image(s)`);
      if (request.lora && shape.lora?.textOnly) {
        throw refuse(`${model} on Replicate takes a LoRA only without input images`);
      }
    }
    const input: Record<string, unknown> = { prompt: request.prompt };
    const size = shape.size;
    if (size.kind === 'ratio') input.aspect_ratio = ratioFor(request, size.ratios, size.matchInput);
    if (size.kind === 'custom') {
      if (request.size) {
        input[size.field] = 'custom';
        Object.assign(input, fittedSize(request.size, size));
      } else input.aspect_ratio = ratioFor(request, size.ratios, size.matchInput);
    }
    if (size.kind === 'presets') {
      const ratios = size.sizes.map((s) => s.replace('x', ':'));
      input.size = nearestRatio(request.aspectRatio, ratios).replace(':', 'x');
    }
    if (size.kind === 'pixels' && request.size) Object.assign(input, request.size);
    // Steps beyond the schema's bounds fail the prediction: the nearest allowed count is sent.
    if (shape.steps) input.num_inference_steps = Math.min(shape.steps.max, Math.max(shape.steps.min, request.steps));
    // A seed beyond the schema's maximum is folded into its range: the same seed, the same picture.
    if (shape.seed) input.seed = shape.seed === true ? request.seed : request.seed % (shape.seed + 1);
    if (shape.negative && request.negativePrompt) input.negative_prompt = request.negativePrompt;
    if (shape.png) input.output_format = 'png';
    if (shape.image && images.length > 0) input[shape.image.field] = shape.image.list ? images : images[0];
    if (shape.lora && request.lora) input.lora_weights = request.lora.url;
    return input;
  });
}

// The aspect ratios of the FLUX.1 models cog-flux serves (its ASPECT_RATIOS).
const FLUX_RATIOS = ['1:1', '16:9', '21:9', '3:2', '2:3', '4:5', '5:4', '3:4', '4:3', '9:16', '9:21'] as const;
const KONTEXT_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '4:5', '5:4', '21:9', '9:21', '2:1', '1:2'];
const IMAGEN: Shape = { size: { kind: 'ratio', ratios: ['1:1', '9:16', '16:9', '3:4', '4:3'] }, png: true };
const KONTEXT: Shape = {
  size: { kind: 'ratio', ratios: KONTEXT_RATIOS, matchInput: true },
  seed: true,
  png: true,
  image: { field: 'input_image', list: false },
};

// ---------------------------------------------------------------------------------------------
// Video. The conventions of the fal video mappings hold: a setting the model has no field for is
// refused (invalid_input, refunded), never dropped, with these exceptions, each because the request
// always carries a value:
// - resolution: the nearest of the model's own tiers (Kling 2.1 names them by mode, Sora 2 Pro by
//   quality); a model without the field makes its one resolution, which is the catalog's;
// - seed: sent where the model takes one; elsewhere it only made a run repeatable;
// - a model whose first frame sets the shape (its schema: "ignored if an image is used") still gets
//   the ratio checked and sent: it is what the user asked for when no frame is given.
// A length the model does not make, or a ratio it does not list, is refused: the price is per
// second, and a square video asked for is not a 4:3 one.

/** The fields of one Replicate video model's input. */
interface VideoShape {
  /** The field the length goes in, in whole seconds, and the lengths the model makes. */
  length: { field: 'duration' | 'seconds'; seconds: readonly number[] };
  /** `aspect_ratio`: the value the model takes for each of our ratios it makes. */
  ratio?: Readonly<Record<string, string>>;
  /** The field choosing the resolution, and the height (in lines) each of its values makes. */
  resolution?: { field: 'resolution' | 'mode'; tiers: Readonly<Record<string, number>> };
  /** Where the first frame goes; `required`: the model makes videos from an image only. */
  firstFrame?: { field: string; required?: boolean };
  /**
   * Where the last frame goes; `afterFirst`: only together with a first frame; `only`: only with
   * this value of the resolution field.
   */
  lastFrame?: { field: string; afterFirst?: boolean; only?: string };
  /** `flag`: `generate_audio`; `always`: the model always makes a soundtrack; absent: silent. */
  audio?: 'flag' | 'always';
  /** `negative_prompt`. */
  negative?: boolean;
  /** `seed`. */
  seed?: boolean;
  /** `fps`: the frame rates the model takes. */
  fps?: readonly number[];
}

/** The value of `tiers` whose height is closest to the resolution asked for ('1080p' → 'pro'). */
function nearestTier(wanted: string, tiers: Readonly<Record<string, number>>): string {
  const height = Number.parseInt(wanted, 10);
  const [value] = Object.entries(tiers).reduce((a, b) => (Math.abs(b[1] - height) < Math.abs(a[1] - height) ? b : a));
  return value;
}

function shapedVideo(model: string, shape: VideoShape): Mapping {
  return mappingFor('video', (request) => {
    // What the model cannot take is refused, not dropped: the user would pay for another video.
    const on = `${model} on Replicate`;
    const { length } = shape;
    if (request.frames !== undefined) throw refuse(`${on} takes a length in seconds, not a frame count`);
    if (!length.seconds.includes(request.durationSeconds)) {
      throw refuse(`${on} makes videos of ${length.seconds.join(', ')} s`);
    }
    const input: Record<string, unknown> = { prompt: request.prompt, [length.field]: request.durationSeconds };
    if (request.firstFrame) {
      if (!shape.firstFrame) throw refuse(`${on} makes videos from text only`);
      input[shape.firstFrame.field] = request.firstFrame;
    } else if (shape.firstFrame?.required) {
      throw refuse(`${on} needs a first frame`);
    }
    if (shape.ratio) {
      const ratio = shape.ratio[request.aspectRatio];
      if (ratio === undefined) throw refuse(`${on} makes videos of ${Object.keys(shape.ratio).join(', ')}`);
      input.aspect_ratio = ratio;
    }
    if (shape.resolution) input[shape.resolution.field] = nearestTier(request.resolution, shape.resolution.tiers);
    if (request.lastFrame) {
      const last = shape.lastFrame;
      if (!last) throw refuse(`${on} takes no last frame`);
      if (last.afterFirst && !request.firstFrame) throw refuse(`${on} takes a last frame only after a first frame`);
      if (last.only !== undefined && shape.resolution && input[shape.resolution.field] !== last.only) {
        throw refuse(`${on} takes a last frame only with ${shape.resolution.field} ${last.only}`);
      }
      input[last.field] = request.lastFrame;
    }
    if (shape.audio === 'flag') input.generate_audio = request.audio;
    else if (shape.audio === 'always' && !request.audio) throw refuse(`${on} always makes a soundtrack`);
    else if (!shape.audio && request.audio) throw refuse(`${on} makes silent videos`);
    if (request.negativePrompt) {
      if (!shape.negative) throw refuse(`${on} takes no negative prompt`);
      input.negative_prompt = request.negativePrompt;
    }
    if (shape.seed && request.seed !== null) input.seed = request.seed;
    if (shape.fps) {
      if (!shape.fps.includes(request.fps)) throw refuse(`${on} makes ${shape.fps.join(', ')} frames per second`);
      input.fps = request.fps;
    }
    if (request.loras.length > 0) throw refuse(`${on} takes no LoRA`);
    if (request.steps !== undefined) throw refuse(`${on} takes no step count`);
    // Kling 1.6's cfg_scale (0-1) is not the guidance scale the LoRA endpoint passes on.
    if (request.guidanceScale !== undefined) throw refuse(`${on} takes no guidance scale`);
    // No model here expands prompts: asking it not to is already met.
    if (request.promptExpansion) throw refuse(`${on} does not expand prompts`);
    return input;
  });
}

/** `aspect_ratio` taking our ratios as they are spelled. */
const ratios = (...values: string[]): Readonly<Record<string, string>> => Object.fromEntries(values.map((r) => [r, r]));

const KLING_RATIOS = ratios('16:9', '9:16', '1:1');
const KLING_LENGTH = { field: 'duration', seconds: [5, 10] } as const;
/** Kling 2.1 Master and 2.5 Turbo Pro: text, or a start image; no end image at the vendored version. */
const KLING: VideoShape = {
  length: KLING_LENGTH,
  ratio: KLING_RATIOS,
  firstFrame: { field: 'start_image' },
  negative: true,
};
const VEO_3: VideoShape = {
  length: { field: 'duration', seconds: [4, 6, 8] },
  ratio: ratios('16:9', '9:16'),
  resolution: { field: 'resolution', tiers: { '720p': 720, '1080p': 1080 } },
  firstFrame: { field: 'image' },
  audio: 'flag',
  negative: true,
  seed: true,
};
// Sora names its two shapes; 16:9 and 9:16 are its 1280x720 and 720x1280 (1792x1024 and 1024x1792
// at Pro's high resolution). It always voices its videos and takes no seed.
const SORA: VideoShape = {
  length: { field: 'seconds', seconds: [4, 8, 12] },
  ratio: { '16:9': 'landscape', '9:16': 'portrait' },
  firstFrame: { field: 'input_reference' },
  audio: 'always',
};

/** Input mappings of Replicate video models, by the name a catalog route gives (the model's name). */
const VIDEO_MAPPINGS = {
  /**
   * kwaivgi/kling-v1.6-pro: text or a start image, and an end image; 1080p. ⚠ Its schema says of
   * both images "a start or end image is required" yet requires neither and takes a ratio "ignored
   * if start_image is provided": text-to-video is sent, as fal's Kling 1.6 Pro takes it.
   */
  'kling-v1.6-pro': shapedVideo('kling-v1.6-pro', { ...KLING, lastFrame: { field: 'end_image' } }),
  /**
   * kwaivgi/kling-v2.1: image-to-video only (its start image sets the shape: no ratio field); mode
   * standard is 720p, pro 1080p, and only pro takes an end image.
   */
  'kling-v2.1': shapedVideo('kling-v2.1', {
    length: KLING_LENGTH,
    resolution: { field: 'mode', tiers: { standard: 720, pro: 1080 } },
    firstFrame: { field: 'start_image', required: true },
    lastFrame: { field: 'end_image', only: 'pro' },
    negative: true,
  }),
  /** kwaivgi/kling-v2.1-master: 1080p. */
  'kling-v2.1-master': shapedVideo('kling-v2.1-master', KLING),
  /** kwaivgi/kling-v2.5-turbo-pro: 1080p (`image` is its deprecated name for start_image). */
  'kling-v2.5-turbo-pro': shapedVideo('kling-v2.5-turbo-pro', KLING),
  /** google/veo-2: 5-8 s at 720p, silent; no negative prompt. */
  'veo-2': shapedVideo('veo-2', {
    length: { field: 'duration', seconds: [5, 6, 7, 8] },
    ratio: ratios('16:9', '9:16'),
    firstFrame: { field: 'image' },
    seed: true,
  }),
  /** google/veo-3: 720p or 1080p, native audio. */
  'veo-3': shapedVideo('veo-3', VEO_3),
  /** google/veo-3-fast: as veo-3. */
  'veo-3-fast': shapedVideo('veo-3-fast', VEO_3),
  /** google/veo-3.1: and a last frame to interpolate to from the first. */
  'veo-3.1': shapedVideo('veo-3.1', { ...VEO_3, lastFrame: { field: 'last_frame', afterFirst: true } }),
  /** openai/sora-2: 720p only. */
  'sora-2': shapedVideo('sora-2', SORA),
  /** openai/sora-2-pro: `standard` is 720p, `high` 1024p (its schema's description). */
  'sora-2-pro': shapedVideo('sora-2-pro', {
    ...SORA,
    resolution: { field: 'resolution', tiers: { standard: 720, high: 1024 } },
  }),
  /** bytedance/seedance-1-lite: 2-12 s at 480p-1080p and 24 fps; a last frame after the first. */
  'seedance-1-lite': shapedVideo('seedance-1-lite', {
    length: { field: 'duration', seconds: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] },
    ratio: ratios('16:9', '9:16', '1:1', '4:3', '3:4'),
    resolution: { field: 'resolution', tiers: { '480p': 480, '720p': 720, '1080p': 1080 } },
    firstFrame: { field: 'image' },
    lastFrame: { field: 'last_frame_image', afterFirst: true },
    seed: true,
    fps: [24],
  }),
} satisfies Record<string, Mapping>;

/** Input mappings of Replicate models, by the name a catalog route gives (the model's name). */
export const REPLICATE_MAPPINGS = {
  /** black-forest-labs/flux-dev-lora: FLUX.1 [dev] with an optional LoRA and image-to-image; 1-50 steps. */
  'flux-dev-lora': shaped('flux-dev-lora', {
    size: { kind: 'ratio', ratios: FLUX_RATIOS },
    steps: { min: 1, max: 50 },
    seed: true,
    png: true,
    image: { field: 'image', list: false },
    lora: {},
  }),
  /** black-forest-labs/flux-schnell: 1-4 steps (the catalog offers up to 12: more are sent as 4). */
  'flux-schnell': shaped('flux-schnell', {
    size: { kind: 'ratio', ratios: FLUX_RATIOS },
    steps: { min: 1, max: 4 },
    seed: true,
    png: true,
  }),
  /** black-forest-labs/flux-krea-dev: no LoRA; 1-50 steps. */
  'flux-krea-dev': shaped('flux-krea-dev', {
    size: { kind: 'ratio', ratios: FLUX_RATIOS },
    steps: { min: 1, max: 50 },
    seed: true,
    png: true,
    image: { field: 'image', list: false },
  }),
  /** black-forest-labs/flux-1.1-pro: `custom` width/height of 256-1440 (multiples of 32); an image prompt. */
  'flux-1.1-pro': shaped('flux-1.1-pro', {
    size: {
      kind: 'custom',
      field: 'aspect_ratio',
      min: 256,
      max: 1440,
      multiple: 32,
      ratios: ['1:1', '16:9', '3:2', '2:3', '4:5', '5:4', '9:16', '3:4', '4:3'],
    },
    seed: true,
    png: true,
    image: { field: 'image_prompt', list: false },
  }),
  /** black-forest-labs/flux-1.1-pro-ultra: an aspect ratio, and an optional image prompt (`raw` is a route param). */
  'flux-1.1-pro-ultra': shaped('flux-1.1-pro-ultra', {
    size: { kind: 'ratio', ratios: ['21:9', '16:9', '3:2', '4:3', '5:4', '1:1', '4:5', '3:4', '2:3', '9:16', '9:21'] },
    seed: true,
    png: true,
    image: { field: 'image_prompt', list: false },
  }),
  /** black-forest-labs/flux-kontext-pro: the image to edit (optional: text-to-image without it). */
  'flux-kontext-pro': shaped('flux-kontext-pro', KONTEXT),
  /** black-forest-labs/flux-kontext-max: as flux-kontext-pro. */
  'flux-kontext-max': shaped('flux-kontext-max', KONTEXT),
  /** black-forest-labs/flux-kontext-dev: the image to edit (required), 4-50 steps. */
  'flux-kontext-dev': shaped('flux-kontext-dev', {
    size: { kind: 'ratio', ratios: FLUX_RATIOS, matchInput: true },
    steps: { min: 4, max: 50 },
    seed: true,
    png: true,
    image: { field: 'input_image', list: false },
  }),
  /** google/nano-banana: the images to edit or compose; no seed. */
  'nano-banana': shaped('nano-banana', {
    size: {
      kind: 'ratio',
      ratios: ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'],
      matchInput: true,
    },
    png: true,
    image: { field: 'image_input', list: true },
  }),
  /** google/imagen-4: an aspect ratio; no seed. */
  'imagen-4': shaped('imagen-4', IMAGEN),
  /** google/imagen-4-ultra: as imagen-4. */
  'imagen-4-ultra': shaped('imagen-4-ultra', IMAGEN),
  /** google/imagen-4-fast: as imagen-4. */
  'imagen-4-fast': shaped('imagen-4-fast', IMAGEN),
  /**
   * ideogram-ai/ideogram-v3-balanced: style reference images; no negative prompt, no output format;
   * seeds up to 2^31-1.
   */
  'ideogram-v3-balanced': shaped('ideogram-v3-balanced', {
    size: {
      kind: 'ratio',
      ratios: [
        '1:3',
        '3:1',
        '1:2',
        '2:1',
        '9:16',
        '16:9',
        '10:16',
        '16:10',
        '2:3',
        '3:2',
        '3:4',
        '4:3',
        '4:5',
        '5:4',
        '1:1',
      ],
    },
    seed: 2_147_483_647,
    image: { field: 'style_reference_images', list: true },
  }),
  /** recraft-ai/recraft-v3: a `WxH` size preset; nothing else. */
  'recraft-v3': shaped('recraft-v3', {
    size: {
      kind: 'presets',
      sizes: [
        '1024x1024',
        '1365x1024',
        '1024x1365',
        '1536x1024',
        '1024x1536',
        '1820x1024',
        '1024x1820',
        '1024x2048',
        '2048x1024',
        '1434x1024',
        '1024x1434',
        '1024x1280',
        '1280x1024',
        '1024x1707',
        '1707x1024',
      ],
    },
  }),
  /**
   * stability-ai/sdxl: width/height, 1-500 steps, a negative prompt, image-to-image. Its
   * `replicate_weights` loads weights trained on Replicate, not a LoRA file: LoRAs are refused.
   */
  sdxl: shaped('sdxl', {
    size: { kind: 'pixels' },
    steps: { min: 1, max: 500 },
    seed: true,
    negative: true,
    image: { field: 'image', list: false },
  }),
  /** bytedance/seedream-4: `custom` width/height of 1024-4096; the images to edit; no seed. */
  'seedream-4': shaped('seedream-4', {
    size: {
      kind: 'custom',
      field: 'size',
      min: 1024,
      max: 4096,
      multiple: 16,
      ratios: ['1:1', '4:3', '3:4', '16:9', '9:16', '3:2', '2:3', '21:9'],
      matchInput: true,
    },
    image: { field: 'image_input', list: true, max: 10 },
  }),
  /** qwen/qwen-image: 1-50 steps, a negative prompt, a LoRA (text-to-image only), image-to-image. */
  'qwen-image': shaped('qwen-image', {
    size: { kind: 'ratio', ratios: ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3'] },
    steps: { min: 1, max: 50 },
    seed: true,
    negative: true,
    png: true,
    image: { field: 'image', list: false },
    lora: { textOnly: true },
  }),
  ...VIDEO_MAPPINGS,
} satisfies Record<string, Mapping>;
