// How a provider-neutral request becomes the input of a fal endpoint. fal's endpoints of one family
// share field conventions; each mapping below says which its endpoint follows, and a catalog route
// names its mapping (`"mapping": "flux"`). The image shapes come first, then video, lip sync,
// motion control, upscaling, 3D, talking heads, reference-to-video and speech; FAL_MAPPINGS, last,
// names the image mappings and takes in the others. Every mapping is checked against the input schema fal publishes for each endpoint that
// uses it (test/fal-mappings.test.ts, test/fal-media-mappings.test.ts).
import { TTS_PCM_SAMPLE_RATE, type TtsEmotion, type TtsFormat, ttsEmotion } from '../../catalog/voices.ts';
import { type Mapping, mappingFor, seedOf } from '../mapping.ts';
import { ProviderError, type VendorRequest } from '../types.ts';

/** The field conventions of one family of fal endpoints. */
interface Shape {
  /** The field the prompt goes in. */
  prompt?: 'prompt' | 'instruction';
  /**
   * How the picture's shape is given: `image_size` as `{width, height}`; `aspect_ratio` from the
   * endpoint's own list (the nearest one); or not at all (the endpoint decides, e.g. from the image).
   */
  size: 'image_size' | 'aspect_ratio' | 'none';
  /** The aspect ratios the endpoint accepts, for `size: 'aspect_ratio'`. */
  ratios?: readonly string[];
  /** `num_inference_steps`: any number, or only these (sent as strings). */
  steps?: true | readonly number[];
  /** The field for steps when it is not `num_inference_steps`. */
  stepsField?: string;
  seed?: boolean;
  negative?: boolean;
  numImages?: boolean;
  /** `enable_safety_checker: true`. */
  safety?: boolean;
  /** The field that asks for PNG output. */
  format?: 'output_format' | 'format';
  /** `loras: [{path, scale}]`. */
  loras?: boolean;
  /** Where the images to start from go (image-to-image, edits, references). */
  image?: 'image_url' | 'image_urls' | 'input_image_urls';
}

const ratioOf = (value: string): number => {
  const [w, h] = value.split(':').map(Number);
  return (w ?? 1) / (h ?? 1);
};

/** The ratio of `ratios` closest to `wanted` (by the log of their quotient). */
export function nearestRatio(wanted: string, ratios: readonly string[]): string {
  const target = Math.log(ratioOf(wanted));
  let best = ratios[0] ?? wanted;
  for (const ratio of ratios) {
    if (Math.abs(Math.log(ratioOf(ratio)) - target) < Math.abs(Math.log(ratioOf(best)) - target)) best = ratio;
  }
  return best;
}

const nearest = (value: number, options: readonly number[]): number =>
  options.reduce((a, b) => (Math.abs(b - value) < Math.abs(a - value) ? b : a));

function shaped(shape: Shape): Mapping {
  return mappingFor('image', (request) => {
    // What the endpoint cannot take is refused, not dropped: the user would get another picture.
    if (request.lora && !shape.loras) {
      throw new ProviderError('The fal.ai endpoint serving this model takes no LoRA', false, { kind: 'invalid_input' });
    }
    if (request.references.length > 0 && !shape.image) {
      throw new ProviderError('The fal.ai endpoint serving this model takes no input images', false, {
        kind: 'invalid_input',
      });
    }
    const input: Record<string, unknown> = { [shape.prompt ?? 'prompt']: request.prompt };
    if (shape.size === 'image_size' && request.size) input.image_size = request.size;
    if (shape.size === 'aspect_ratio') input.aspect_ratio = nearestRatio(request.aspectRatio, shape.ratios ?? ['1:1']);
    if (shape.steps === true) input[shape.stepsField ?? 'num_inference_steps'] = request.steps;
    else if (shape.steps) input.num_inference_steps = String(nearest(request.steps, shape.steps));
    if (shape.seed) input.seed = request.seed;
    if (shape.negative && request.negativePrompt) input.negative_prompt = request.negativePrompt;
    if (shape.numImages) input.num_images = 1;
    if (shape.safety) input.enable_safety_checker = true;
    if (shape.format) input[shape.format] = 'png';
    if (shape.loras && request.lora) input.loras = [{ path: request.lora.url, scale: 1 }];
    if (shape.image === 'image_url' && request.references[0]) input.image_url = request.references[0];
    if (shape.image && shape.image !== 'image_url' && request.references.length > 0) {
      input[shape.image] = request.references;
    }
    return input;
  });
}

const KONTEXT_RATIOS = ['21:9', '16:9', '4:3', '3:2', '1:1', '2:3', '3:4', '9:16', '9:21'] as const;

// The families. `flux`: FLUX [dev]/[schnell]/krea and fal's other diffusion endpoints that take
// image_size, steps, seed and output_format; `sd`: fal's Stable Diffusion runners (`format`,
// negative prompts, LoRAs).
const FLUX: Shape = {
  size: 'image_size',
  steps: true,
  seed: true,
  numImages: true,
  safety: true,
  format: 'output_format',
};
const SD: Shape = {
  size: 'image_size',
  steps: true,
  seed: true,
  negative: true,
  numImages: true,
  safety: true,
  format: 'format',
};

// ---------------------------------------------------------------------------------------------
// Video. Each endpoint's shape below says which of the request's settings it has a field for and
// how it spells them; a setting it has no field for is refused (invalid_input, refunded), never
// dropped, with these exceptions, each because the request always carries a value:
// - resolution: the nearest tier the endpoint lists is sent (fal spells some apart from ours:
//   768P, 540p); an endpoint without the field makes the model's one resolution, which is the
//   catalog's, so the value the request carries;
// - seed and fps: sent where the endpoint takes them; elsewhere the seed only made a run
//   repeatable and the fps is the model's own (the catalog's);
// - an image-to-video endpoint without a ratio field follows its first frame's proportions.
// A length the endpoint does not make, or a ratio it does not list, is refused: the price is per
// second, and a square video asked for is not a 4:3 one.

/** How an endpoint is told the length of the video. */
type VideoLength =
  /** A field with one value per length it makes, in seconds ("5", "5s", 5, or a frame count). */
  | { field: string; seconds: Readonly<Record<number, string | number>> }
  /**
   * `num_frames` at the request's frame rate (sent in `rateField`), rounded up to `step`k+1 frames
   * as the model counts them; the LoRA video endpoint gives its frame count as it is.
   */
  | { frames: { rateField: string; min: number; max: number; step: number; fps?: readonly [number, number] } }
  /** No field: the endpoint makes videos of this length only. */
  | { fixed: number };

/** How an endpoint is told the shape of the video. */
type VideoRatio =
  /** A field taking these values, by our ratio. */
  | { field: string; values: Readonly<Record<string, string>> }
  /** No field: the endpoint makes this ratio only. */
  | { fixed: string }
  /** No field: the first frame's proportions (image-to-video). */
  | 'image';

/** The fields one family of fal video endpoints has. */
interface VideoShape {
  length: VideoLength;
  ratio: VideoRatio;
  /** The `resolution` tiers the endpoint lists, as it spells them. */
  resolutions?: readonly string[];
  /** Where the first frame goes; absent: text-to-video only. */
  firstFrame?: 'image_url' | 'start_image_url';
  lastFrame?: 'end_image_url' | 'tail_image_url';
  /** `flag`: `generate_audio`; `always`: the endpoint always makes a soundtrack; absent: silent. */
  audio?: 'flag' | 'always';
  negative?: boolean;
  seed?: boolean;
  /** `enable_safety_checker: true`. */
  safety?: boolean;
  /** `num_inference_steps`. */
  steps?: boolean;
  guidance?: 'guidance_scale' | 'guide_scale';
  promptExpansion?: 'enable_prompt_expansion' | 'expand_prompt' | 'prompt_optimizer';
  /** `loras: [{path, scale, transformer}]`: Wan 2.2 A14B's high- and low-noise transformers. */
  loras?: boolean;
}

function refuse(message: string): never {
  throw new ProviderError(`The fal.ai endpoint serving this model ${message}`, false, { kind: 'invalid_input' });
}

/** The `aspect_ratio` field taking our ratios as they are spelled. */
const aspectRatios = (...ratios: string[]): VideoRatio => ({
  field: 'aspect_ratio',
  values: Object.fromEntries(ratios.map((r) => [r, r])),
});

/** The `duration` field, one value per length in seconds. */
const durations = (spell: (seconds: number) => string | number, ...seconds: number[]): VideoLength => ({
  field: 'duration',
  seconds: Object.fromEntries(seconds.map((s) => [s, spell(s)])),
});

const heightOf = (tier: string): number => (tier.toLowerCase() === '4k' ? 2160 : Number.parseInt(tier, 10));

/** The tier of `tiers` closest in height to `wanted` ('720p' → '768P'). */
export function nearestResolution(wanted: string, tiers: readonly string[]): string {
  const height = heightOf(wanted);
  return tiers.reduce((a, b) => (Math.abs(heightOf(b) - height) < Math.abs(heightOf(a) - height) ? b : a));
}

function lengthInput(length: VideoLength, request: Extract<VendorRequest, { kind: 'video' }>): Record<string, unknown> {
  if ('fixed' in length) {
    if (request.frames !== undefined || request.durationSeconds !== length.fixed) {
      refuse(`makes ${length.fixed} s videos only`);
    }
    return {};
  }
  if ('field' in length) {
    const value = length.seconds[request.durationSeconds];
    if (value === undefined || request.frames !== undefined) {
      refuse(`makes videos of ${Object.keys(length.seconds).join(', ')} s`);
    }
    return { [length.field]: value };
  }
  const { rateField, min, max, step, fps } = length.frames;
  if (fps && (request.fps < fps[0] || request.fps > fps[1])) refuse(`takes ${fps[0]}-${fps[1]} frames per second`);
  const frames = request.frames ?? Math.ceil((request.fps * request.durationSeconds) / step) * step + 1;
  if (frames < min || frames > max) refuse(`makes ${min}-${max} frames`);
  return { num_frames: frames, [rateField]: request.fps };
}

function shapedVideo(shape: VideoShape): Mapping {
  return mappingFor('video', (request) => {
    const input: Record<string, unknown> = { prompt: request.prompt, ...lengthInput(shape.length, request) };
    if (request.firstFrame) {
      if (!shape.firstFrame) refuse('makes videos from text only');
      input[shape.firstFrame] = request.firstFrame;
    } else if (shape.firstFrame) {
      refuse('needs a first frame');
    }
    if (request.lastFrame) {
      if (!shape.lastFrame) refuse('takes no last frame');
      input[shape.lastFrame] = request.lastFrame;
    }
    const ratio = shape.ratio;
    if (ratio !== 'image') {
      if ('fixed' in ratio) {
        if (request.aspectRatio !== ratio.fixed) refuse(`makes ${ratio.fixed} videos only`);
      } else {
        const value = ratio.values[request.aspectRatio];
        if (value === undefined) refuse(`makes videos of ${Object.keys(ratio.values).join(', ')}`);
        input[ratio.field] = value;
      }
    }
    if (shape.resolutions) input.resolution = nearestResolution(request.resolution, shape.resolutions);
    if (shape.audio === 'flag') input.generate_audio = request.audio;
    else if (shape.audio === 'always' && !request.audio) refuse('always makes a soundtrack');
    else if (!shape.audio && request.audio) refuse('makes silent videos');
    if (request.negativePrompt) {
      if (!shape.negative) refuse('takes no negative prompt');
      input.negative_prompt = request.negativePrompt;
    }
    if (shape.seed && request.seed !== null) input.seed = request.seed;
    if (shape.safety) input.enable_safety_checker = true;
    if (request.steps !== undefined) {
      if (!shape.steps) refuse('takes no step count');
      input.num_inference_steps = request.steps;
    }
    if (request.guidanceScale !== undefined) {
      if (!shape.guidance) refuse('takes no guidance scale');
      input[shape.guidance] = request.guidanceScale;
    }
    // An endpoint without the switch never expands prompts: asking it not to is already met.
    if (request.promptExpansion !== undefined) {
      if (shape.promptExpansion) input[shape.promptExpansion] = request.promptExpansion;
      else if (request.promptExpansion) refuse('does not expand prompts');
    }
    if (request.loras.length > 0) {
      if (!shape.loras) refuse('takes no LoRA');
      input.loras = request.loras.map((l) => ({ path: l.url, scale: l.scale, transformer: l.transformer }));
    }
    return input;
  });
}

const KLING_LENGTH = durations(String, 5, 10);
const KLING_T2V: VideoShape = { length: KLING_LENGTH, ratio: aspectRatios('16:9', '9:16', '1:1'), negative: true };
const KLING_I2V: VideoShape = { length: KLING_LENGTH, ratio: 'image', firstFrame: 'image_url', negative: true };
const VEO: VideoShape = {
  length: durations((s) => `${s}s`, 4, 6, 8),
  ratio: aspectRatios('16:9', '9:16'),
  resolutions: ['720p', '1080p', '4k'],
  audio: 'flag',
  negative: true,
  seed: true,
};
const SEEDANCE: VideoShape = {
  length: durations(String, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12),
  ratio: aspectRatios('16:9', '9:16', '1:1', '4:3', '3:4'),
  resolutions: ['480p', '720p', '1080p'],
  seed: true,
  safety: true,
};
// Wan 2.2 A14B (and its LoRA endpoints): frames at a rate, the sampling settings, the switches.
const WAN_22: VideoShape = {
  length: { frames: { rateField: 'frames_per_second', min: 17, max: 161, step: 4, fps: [4, 60] } },
  ratio: aspectRatios('16:9', '9:16', '1:1'),
  resolutions: ['480p', '580p', '720p'],
  negative: true,
  seed: true,
  safety: true,
  steps: true,
  guidance: 'guidance_scale',
  promptExpansion: 'enable_prompt_expansion',
};
const WAN_21_LENGTH: VideoLength = {
  frames: { rateField: 'frames_per_second', min: 81, max: 100, step: 4, fps: [5, 24] },
};
const WAN_25: VideoShape = {
  length: durations(String, 5, 10),
  ratio: aspectRatios('16:9', '9:16', '1:1'),
  resolutions: ['480p', '720p', '1080p'],
  // ⚠ Wan 2.5 voices its videos itself (an `audio_url` replaces that track); it has no switch.
  audio: 'always',
  negative: true,
  seed: true,
  safety: true,
  promptExpansion: 'enable_prompt_expansion',
};
const LUMA: VideoShape = {
  length: durations((s) => `${s}s`, 5, 9),
  ratio: aspectRatios('16:9', '9:16', '4:3', '3:4'),
  resolutions: ['540p', '720p', '1080p'],
};
const PIXVERSE: VideoShape = {
  length: durations(String, 5, 8),
  ratio: aspectRatios('16:9', '9:16', '1:1', '4:3', '3:4'),
  resolutions: ['360p', '540p', '720p', '1080p'],
  negative: true,
  seed: true,
};
const LTX: VideoShape = {
  length: { frames: { rateField: 'frame_rate', min: 9, max: 1441, step: 8 } },
  ratio: aspectRatios('16:9', '9:16', '1:1'),
  resolutions: ['480p', '720p'],
  negative: true,
  seed: true,
  safety: true,
  promptExpansion: 'expand_prompt',
};
// ⚠ Hailuo 02 and MiniMax Video-01 take no ratio: their text-to-video makes 16:9 (the catalog's
// only ratio for them); Video-01 makes 6 s clips.
const HAILUO_LENGTH = durations(String, 6, 10);

/** Input mappings of fal's video endpoints, by the name a catalog route gives. */
const VIDEO_MAPPINGS = {
  /** fal-ai/kling-video/{v1.6/pro, v2/master, v2.1/master, v2.5-turbo/pro}/text-to-video. */
  kling: shapedVideo(KLING_T2V),
  /** fal-ai/kling-video/v1.6/pro/image-to-video: a ratio and a tail (last) frame. */
  'kling-1.6-i2v': shapedVideo({
    ...KLING_I2V,
    ratio: aspectRatios('16:9', '9:16', '1:1'),
    lastFrame: 'tail_image_url',
  }),
  /** fal-ai/kling-video/{v2/master, v2.1/master, v2.1/standard}/image-to-video. */
  'kling-i2v': shapedVideo(KLING_I2V),
  /** fal-ai/kling-video/v2.5-turbo/pro/image-to-video: a tail (last) frame. */
  'kling-i2v-tail': shapedVideo({ ...KLING_I2V, lastFrame: 'tail_image_url' }),
  /** fal-ai/kling-video/v2.6/pro/text-to-video: native audio. */
  'kling-2.6': shapedVideo({ ...KLING_T2V, audio: 'flag' }),
  /** fal-ai/kling-video/v2.6/pro/image-to-video: start and end frames, native audio. */
  'kling-2.6-i2v': shapedVideo({
    ...KLING_I2V,
    firstFrame: 'start_image_url',
    lastFrame: 'end_image_url',
    audio: 'flag',
  }),
  /** fal-ai/veo3.1 (and /fast): "8s" lengths, 720p-4k, native audio. */
  veo: shapedVideo(VEO),
  /** fal-ai/veo3.1/image-to-video. */
  'veo-i2v': shapedVideo({ ...VEO, firstFrame: 'image_url' }),
  /** fal-ai/bytedance/seedance/v1/pro/text-to-video. */
  seedance: shapedVideo(SEEDANCE),
  /** fal-ai/bytedance/seedance/v1/pro/image-to-video: and an end frame. */
  'seedance-i2v': shapedVideo({ ...SEEDANCE, firstFrame: 'image_url', lastFrame: 'end_image_url' }),
  /** fal-ai/minimax/hailuo-02/standard/text-to-video: 6 or 10 s at 768P, 16:9. */
  hailuo: shapedVideo({ length: HAILUO_LENGTH, ratio: { fixed: '16:9' }, promptExpansion: 'prompt_optimizer' }),
  /** fal-ai/minimax/hailuo-02/standard/image-to-video: 512P or 768P, an end frame. */
  'hailuo-i2v': shapedVideo({
    length: HAILUO_LENGTH,
    ratio: 'image',
    resolutions: ['512P', '768P'],
    firstFrame: 'image_url',
    lastFrame: 'end_image_url',
    promptExpansion: 'prompt_optimizer',
  }),
  /** fal-ai/minimax/video-01: the prompt only. */
  'minimax-video': shapedVideo({ length: { fixed: 6 }, ratio: { fixed: '16:9' }, promptExpansion: 'prompt_optimizer' }),
  /** fal-ai/minimax/video-01/image-to-video. */
  'minimax-video-i2v': shapedVideo({
    length: { fixed: 6 },
    ratio: 'image',
    firstFrame: 'image_url',
    promptExpansion: 'prompt_optimizer',
  }),
  /** fal-ai/wan-t2v (Wan 2.1): 81-100 frames at 5-24 fps. */
  'wan-2.1': shapedVideo({
    length: WAN_21_LENGTH,
    ratio: aspectRatios('16:9', '9:16'),
    resolutions: ['480p', '580p', '720p'],
    negative: true,
    seed: true,
    safety: true,
    steps: true,
    promptExpansion: 'enable_prompt_expansion',
  }),
  /** fal-ai/wan-i2v (Wan 2.1). */
  'wan-2.1-i2v': shapedVideo({
    length: WAN_21_LENGTH,
    ratio: aspectRatios('16:9', '9:16', '1:1'),
    resolutions: ['480p', '720p'],
    firstFrame: 'image_url',
    negative: true,
    seed: true,
    safety: true,
    steps: true,
    guidance: 'guide_scale',
    promptExpansion: 'enable_prompt_expansion',
  }),
  /** fal-ai/wan/v2.2-a14b/text-to-video. */
  'wan-2.2': shapedVideo(WAN_22),
  /** fal-ai/wan/v2.2-a14b/text-to-video/lora: LoRAs per transformer. */
  'wan-lora': shapedVideo({ ...WAN_22, loras: true }),
  /**
   * fal-ai/wan/v2.2-a14b/image-to-video/lora: the first (and last) frame; also Wan 2.2's image
   * endpoint without LoRAs, as fal has no plain A14B image-to-video endpoint but its turbo one.
   */
  'wan-lora-i2v': shapedVideo({ ...WAN_22, loras: true, firstFrame: 'image_url', lastFrame: 'end_image_url' }),
  /** fal-ai/wan-25-preview/text-to-video. */
  'wan-2.5': shapedVideo(WAN_25),
  /** fal-ai/wan-25-preview/image-to-video: the frame sets the ratio. */
  'wan-2.5-i2v': shapedVideo({ ...WAN_25, ratio: 'image', firstFrame: 'image_url' }),
  /** fal-ai/luma-dream-machine/ray-2[-flash]: "5s"/"9s", no square. */
  'luma-ray': shapedVideo(LUMA),
  /** fal-ai/luma-dream-machine/ray-2[-flash]/image-to-video: and an end frame. */
  'luma-ray-i2v': shapedVideo({ ...LUMA, firstFrame: 'image_url', lastFrame: 'end_image_url' }),
  /** fal-ai/pika/v2.2/text-to-video: the length as a number. */
  pika: shapedVideo({
    length: durations(Number, 5, 10),
    ratio: aspectRatios('16:9', '9:16', '1:1'),
    resolutions: ['720p', '1080p'],
    negative: true,
    seed: true,
  }),
  /** fal-ai/pika/v2.2/image-to-video. */
  'pika-i2v': shapedVideo({
    length: durations(Number, 5, 10),
    ratio: 'image',
    resolutions: ['720p', '1080p'],
    firstFrame: 'image_url',
    negative: true,
    seed: true,
  }),
  /** fal-ai/pixverse/{v4.5, v5}/text-to-video. */
  pixverse: shapedVideo(PIXVERSE),
  /** fal-ai/pixverse/{v4.5, v5}/image-to-video. */
  'pixverse-i2v': shapedVideo({ ...PIXVERSE, ratio: 'image', firstFrame: 'image_url' }),
  /** fal-ai/vidu/q1/text-to-video: 5 s at 1080p. */
  vidu: shapedVideo({ length: { fixed: 5 }, ratio: aspectRatios('16:9', '9:16', '1:1'), seed: true }),
  /** fal-ai/vidu/q1/image-to-video. */
  'vidu-i2v': shapedVideo({ length: { fixed: 5 }, ratio: 'image', firstFrame: 'image_url', seed: true }),
  /** fal-ai/ltx-video-13b-distilled: frames at a frame rate. */
  ltx: shapedVideo(LTX),
  /** fal-ai/ltx-video-13b-distilled/image-to-video. */
  'ltx-i2v': shapedVideo({ ...LTX, firstFrame: 'image_url' }),
  /** fal-ai/hunyuan-video: 129 frames (5 s at its 24 fps). */
  'hunyuan-video': shapedVideo({
    length: { field: 'num_frames', seconds: { 5: '129' } },
    ratio: aspectRatios('16:9', '9:16'),
    resolutions: ['480p', '580p', '720p'],
    seed: true,
    safety: true,
  }),
  /** fal-ai/cogvideox-5b: 6 s (49 frames at 8 fps); the shape as a named video_size. */
  cogvideox: shapedVideo({
    length: { fixed: 6 },
    ratio: {
      field: 'video_size',
      values: {
        '16:9': 'landscape_16_9',
        '9:16': 'portrait_16_9',
        '4:3': 'landscape_4_3',
        '3:4': 'portrait_4_3',
        '1:1': 'square_hd',
      },
    },
    negative: true,
    seed: true,
    steps: true,
    guidance: 'guidance_scale',
  }),
} satisfies Record<string, Mapping>;

// ---------------------------------------------------------------------------------------------
// Lip sync, motion control and upscaling: one request each, a few fields.

/** The Topaz enhancement models fal's endpoint lists (`model`). */
export const TOPAZ_MODELS: readonly string[] = [
  'Proteus',
  'Artemis HQ',
  'Artemis MQ',
  'Artemis LQ',
  'Gaia HQ',
  'Gaia CG',
  'Gaia 2',
  'Nyx',
  'Nyx Fast',
  'Nyx XL',
  'Nyx HF',
  'Starlight Precise 2.5',
  'Starlight HQ',
  'Starlight Mini',
  'Starlight Sharp',
  'Starlight Fast 2',
  'Starlight Precise 1',
  'Starlight Precise 2',
  'Starlight Fast 1',
];

const MEDIA_MAPPINGS = {
  /**
   * fal-ai/sync-lipsync/{v2, v2/pro, v3}, fal-ai/latentsync, fal-ai/kling-video/lipsync/audio-to-video:
   * the video and the audio track (each endpoint's own defaults for the rest).
   */
  lipsync: mappingFor('lipsync', (request) => ({ video_url: request.videoUrl, audio_url: request.audioUrl })),
  /** fal-ai/kling-video/v2.6/{pro, standard}/motion-control. */
  'kling-motion': mappingFor('motion', (request) => {
    // Kling 2.6's motion control has no field for a face element (3.0's has).
    if (request.element) refuse('takes no face element');
    return {
      image_url: request.imageUrl,
      video_url: request.videoUrl,
      character_orientation: request.orientation,
      ...(request.prompt ? { prompt: request.prompt } : {}),
    };
  }),
  /** fal-ai/topaz/upscale/video: `H264_output` is spelled with a capital H on the wire. */
  topaz: mappingFor('upscale', (request) => {
    if (request.factor < 1 || request.factor > 8) refuse('upscales 1-8 times');
    if (request.model !== null && !TOPAZ_MODELS.includes(request.model)) refuse(`has no model ${request.model}`);
    if (request.targetFps !== null && !(Number.isInteger(request.targetFps) && request.targetFps <= 120)) {
      refuse('interpolates to a whole frame rate of at most 120');
    }
    // fal's Topaz takes every tuning field but softness.
    if (request.tuning.softness !== undefined) refuse('takes no softness');
    return {
      video_url: request.videoUrl,
      upscale_factor: request.factor,
      H264_output: request.h264,
      ...(request.model !== null ? { model: request.model } : {}),
      ...(request.targetFps !== null ? { target_fps: request.targetFps } : {}),
      ...request.tuning,
    };
  }),
  /** fal-ai/seedvr/upscale/video: by factor, H.264 MP4 out (so `h264` is always met). */
  seedvr: mappingFor('upscale', (request) => {
    if (request.model !== null) refuse('has no enhancement models');
    if (Object.keys(request.tuning).length > 0) refuse('takes no tuning');
    if (request.targetFps !== null) refuse('does not interpolate frames');
    return {
      video_url: request.videoUrl,
      upscale_mode: 'factor',
      upscale_factor: request.factor,
      output_format: 'X264 (.mp4)',
    };
  }),
} satisfies Record<string, Mapping>;

// ---------------------------------------------------------------------------------------------
// 3D. A setting an endpoint has no field for is met only by its default here (what the endpoint
// does on its own: the API's defaults are those of Meshy, whose settings these are); another
// value is refused. Exceptions, as the request always carries them: the seed (sent where taken),
// and the prompt of an image-to-3D endpoint that takes none (the image is the subject; our API
// asks for a prompt even then). A preview (geometry only) from an endpoint that always textures
// gets the textured model: more than asked, never less.

type Model3dRequest = Extract<VendorRequest, { kind: 'model3d' }>;

/** The API's defaults, which an endpoint without the setting's field makes on its own. */
const MODEL3D_DEFAULTS = {
  artStyle: 'realistic',
  topology: 'triangle',
  targetPolycount: 30_000,
  symmetry: 'auto',
  tPose: false,
  pbr: false,
  promptExpansion: false,
} as const satisfies Partial<Model3dRequest>;

type Model3dSetting = keyof typeof MODEL3D_DEFAULTS;

/** Refuses the settings outside `taken` that ask for something other than the default. */
function onlyDefaults(request: Model3dRequest, taken: readonly Model3dSetting[]): void {
  for (const [setting, value] of Object.entries(MODEL3D_DEFAULTS) as Array<[Model3dSetting, unknown]>) {
    if (!taken.includes(setting) && request[setting] !== value) {
      refuse(`takes no ${setting} (asked: ${String(request[setting])})`);
    }
  }
}

function needsImage(request: Model3dRequest): string {
  if (request.imageUrl === null) refuse('makes 3D models from an image only');
  return request.imageUrl;
}

const MESHY_MESH: readonly Model3dSetting[] = ['topology', 'targetPolycount', 'symmetry', 'tPose', 'pbr'];

/** Meshy's mesh settings, shared by its text- and image-to-3D endpoints. */
const meshyMesh = (request: Model3dRequest) => ({
  topology: request.topology,
  target_polycount: request.targetPolycount,
  symmetry_mode: request.symmetry,
  // Meshy replaced is_a_t_pose with pose_mode; '' lets the model choose.
  pose_mode: request.tPose ? 't-pose' : '',
  enable_pbr: request.pbr,
});

const MODEL3D_MAPPINGS = {
  /** fal-ai/meshy/v6-preview/text-to-3d (and v6): Meshy 6 has no art styles. */
  meshy: mappingFor('model3d', (request) => {
    if (request.imageUrl !== null) refuse('makes 3D models from text only');
    if (request.prompt.length > 600) refuse('takes prompts of at most 600 characters');
    onlyDefaults(request, [...MESHY_MESH, 'promptExpansion']);
    return {
      prompt: request.prompt,
      mode: request.mode,
      ...meshyMesh(request),
      enable_prompt_expansion: request.promptExpansion,
      ...seedOf(request),
    };
  }),
  /** fal-ai/meshy/v6-preview/image-to-3d (and v6): textures only for `full`. */
  'meshy-image': mappingFor('model3d', (request) => {
    const image = needsImage(request);
    onlyDefaults(request, MESHY_MESH);
    return { image_url: image, should_texture: request.mode === 'full', ...meshyMesh(request) };
  }),
  /** tripo3d/tripo/v2.5/image-to-3d: texture no|standard, PBR, quads, a face limit. */
  'tripo-image': mappingFor('model3d', (request) => {
    const image = needsImage(request);
    onlyDefaults(request, ['topology', 'targetPolycount', 'pbr']);
    return {
      image_url: image,
      texture: request.mode === 'full' ? 'standard' : 'no',
      pbr: request.pbr,
      quad: request.topology === 'quad',
      face_limit: request.targetPolycount,
      ...seedOf(request),
    };
  }),
  /** fal-ai/hyper3d/rodin: text or images, PBR or shaded materials, a T/A pose. */
  rodin: mappingFor('model3d', (request) => {
    onlyDefaults(request, ['pbr', 'tPose']);
    return {
      prompt: request.prompt,
      ...(request.imageUrl !== null ? { input_image_urls: [request.imageUrl] } : {}),
      material: request.pbr ? 'PBR' : 'Shaded',
      TAPose: request.tPose,
      geometry_file_format: 'glb',
      ...seedOf(request),
    };
  }),
  /** fal-ai/trellis: the image and a seed. */
  trellis: mappingFor('model3d', (request) => {
    const image = needsImage(request);
    onlyDefaults(request, []);
    return { image_url: image, ...seedOf(request) };
  }),
  /** fal-ai/triposr: the image; a GLB. */
  triposr: mappingFor('model3d', (request) => {
    const image = needsImage(request);
    onlyDefaults(request, []);
    return { image_url: image, output_format: 'glb' };
  }),
} satisfies Record<string, Mapping>;

// ---------------------------------------------------------------------------------------------
// Talking heads: a portrait speaking an audio track (VEED's text endpoint speaks the script
// itself). None of these endpoints takes a length or a shape but InfiniTalk (a frame count): the
// video lasts as long as its speech and keeps the portrait's proportions, as an image-to-video
// endpoint without a ratio field keeps its first frame's. A resolution goes to the nearest tier
// the endpoint lists; an endpoint without the field makes its own tier. A prompt goes where the
// endpoint takes one and is refused elsewhere.

type TalkingHeadRequest = Extract<VendorRequest, { kind: 'talking_head' }>;

/** The speech to animate; the request carries '' when the model was to speak the script itself. */
function speechOf(request: TalkingHeadRequest): string {
  if (!request.audioUrl) refuse('animates an audio track, and none was given');
  return request.audioUrl;
}

function noPrompt(request: TalkingHeadRequest): void {
  if (request.prompt !== null) refuse('takes no prompt');
}

// ⚠ InfiniTalk (on Wan 2.1) makes 25 frames a second, 4k+1 frames at a time, 41-721 (its field's
// range): at most 28.8 s. Unsent, the count is 145 (5.8 s), which would cut longer speech short.
const INFINITALK = { fps: 25, min: 41, max: 721, step: 4 } as const;

const TALKING_HEAD_MAPPINGS = {
  /** fal-ai/kling-video/ai-avatar/v2/{standard, pro}: the tier is the endpoint's (no resolution field). */
  'kling-avatar': mappingFor('talking_head', (request) => ({
    image_url: request.imageUrl,
    audio_url: speechOf(request),
    ...(request.prompt !== null ? { prompt: request.prompt } : {}),
  })),
  /** fal-ai/bytedance/omnihuman/v1.5: and 720p or 1080p. */
  omnihuman: mappingFor('talking_head', (request) => ({
    image_url: request.imageUrl,
    audio_url: speechOf(request),
    resolution: nearestResolution(request.resolution, ['720p', '1080p']),
    ...(request.prompt !== null ? { prompt: request.prompt } : {}),
  })),
  /** fal-ai/infinitalk: the length as frames, and a prompt it requires. */
  infinitalk: mappingFor('talking_head', (request) => {
    const frames = Math.ceil((INFINITALK.fps * request.durationSeconds) / INFINITALK.step) * INFINITALK.step + 1;
    if (frames < INFINITALK.min || frames > INFINITALK.max) {
      refuse(`makes ${INFINITALK.min}-${INFINITALK.max} frames (at most 28 s at ${INFINITALK.fps} fps)`);
    }
    return {
      image_url: request.imageUrl,
      audio_url: speechOf(request),
      // Without a direction, "." (what fal's Kling avatar endpoints send when given no prompt): the
      // portrait and the speech lead, and nothing is made up.
      prompt: request.prompt ?? '.',
      num_frames: frames,
      resolution: nearestResolution(request.resolution, ['480p', '720p']),
    };
  }),
  /**
   * fal-ai/sadtalker: `full` animates the whole portrait (the default, `crop`, returns the face
   * cut out, square); SadTalker's authors pair it with `still_mode`, which keeps the head steady
   * enough for the face to be pasted back without seams.
   */
  sadtalker: mappingFor('talking_head', (request) => {
    noPrompt(request);
    return {
      source_image_url: request.imageUrl,
      driven_audio_url: speechOf(request),
      preprocess: 'full',
      still_mode: true,
    };
  }),
  /** veed/fabric-1.0: the portrait, the audio and 480p or 720p. */
  'veed-fabric': mappingFor('talking_head', (request) => {
    noPrompt(request);
    return {
      image_url: request.imageUrl,
      audio_url: speechOf(request),
      resolution: nearestResolution(request.resolution, ['480p', '720p']),
    };
  }),
  /** veed/fabric-1.0/text: speaks the script in a voice of its own, so an audio track would be lost. */
  'veed-fabric-text': mappingFor('talking_head', (request) => {
    noPrompt(request);
    if (request.script === null) refuse('speaks a script, and none was given');
    if (request.audioUrl) refuse('speaks the script itself and takes no audio track');
    return {
      image_url: request.imageUrl,
      text: request.script,
      resolution: nearestResolution(request.resolution, ['480p', '720p']),
    };
  }),
} satisfies Record<string, Mapping>;

// ---------------------------------------------------------------------------------------------
// Reference-to-video. The request's prompt and shots are in our syntax: `@Element1`… name its
// elements in order (the influencer's face first, when one was named), `@Image1`… its images.
// - Kling O1 and O3 use the same words but number by position in the `elements` and `image_urls`
//   lists they are sent: both lists go in the request's order, so each number names the same
//   thing there (the lists are what the numbers are derived from below, not the other way round).
// - Veo 3.1 has no syntax: its `image_urls` are "for consistent subject appearance" and its prompt
//   describes the scene in words, so each reference becomes words naming its place in that list
//   ("the subject of reference image 1"), an element's views being listed one after the other.
// A reference to an element or image the request lacks is refused, as are frames, shots, lengths
// and ratios the endpoint does not take; a setting is never sent without what it asked for.

type ReferenceRequest = Extract<VendorRequest, { kind: 'reference' }>;

/** `text` with each `@ElementN`/`@ImageN` replaced by the N-th name of its list. */
function renameReferences(text: string, names: { Element: readonly string[]; Image: readonly string[] }): string {
  return text.replace(/@(Element|Image)(\d+)/g, (token: string, kind: string, digits: string) => {
    const list = kind === 'Element' ? names.Element : names.Image;
    const name = list[Number(digits) - 1];
    if (name === undefined) {
      throw new ProviderError(
        `The prompt names ${token}, but the request has ${list.length} ${kind.toLowerCase()}${list.length === 1 ? '' : 's'}`,
        false,
        { kind: 'invalid_input' },
      );
    }
    return name;
  });
}

/** A whole number of seconds within the endpoint's range, as the string its `duration` takes. */
function secondsWithin(seconds: number, min: number, max: number, what = 'videos'): string {
  if (!Number.isInteger(seconds) || seconds < min || seconds > max) refuse(`makes ${what} of ${min}-${max} s`);
  return String(seconds);
}

function listedRatio(request: ReferenceRequest, ratios: readonly string[]): string {
  if (!ratios.includes(request.aspectRatio)) refuse(`makes videos of ${ratios.join(', ')}`);
  return request.aspectRatio;
}

const KLING_REFERENCE_RATIOS = ['16:9', '9:16', '1:1'] as const;
// Kling counts elements, images and frames together ("maximum 7 total" on fal's O1 pages; ⚠ O3's
// pages give no figure but for video references, and Kling's own API has the same 7 for it).
const KLING_MAX_INPUTS = 7;
// ⚠ Kling 3.0 Omni makes at most 6 shots per video (its own documentation; fal's schema has no bound).
const KLING_MAX_SHOTS = 6;

/**
 * Kling's `elements` and `image_urls`, in the request's order, and the names our references get
 * there: the N-th entry of each list is `@ElementN`/`@ImageN`.
 */
function klingReferences(request: ReferenceRequest) {
  const elements = request.elements.map((element) => {
    if (element.references.length > 3) refuse('takes at most 3 other views of an element');
    // fal asks for at least one other view; an element with none (the influencer's face) gives its
    // front view again, which is what Kling itself uses when it has no other (⚠ Venice's guide).
    const views = element.references.length > 0 ? element.references : [element.frontal];
    return { frontal_image_url: element.frontal, reference_image_urls: views };
  });
  const names = {
    Element: elements.map((_, i) => `@Element${i + 1}`),
    Image: request.images.map((_, i) => `@Image${i + 1}`),
  };
  const lists = {
    ...(elements.length > 0 ? { elements } : {}),
    ...(request.images.length > 0 ? { image_urls: request.images } : {}),
  };
  return { lists, names };
}

/** Refuses what no reference endpoint of Kling takes: too many inputs, or none to keep consistent. */
function klingInputs(request: ReferenceRequest, frames: number): void {
  const references = request.elements.length + request.images.length;
  if (references + frames > KLING_MAX_INPUTS) {
    refuse(`takes at most ${KLING_MAX_INPUTS} elements, images and frames in all (asked: ${references + frames})`);
  }
  if (references === 0 && request.startFrame === null) refuse('needs an element, an image or a start frame');
}

/** `positions` (1-based) of Veo's reference images, in words: "reference images 1 and 2". */
function veoImages(positions: readonly number[]): string {
  const last = positions.at(-1);
  if (positions.length <= 1) return `reference image ${last}`;
  return `reference images ${positions.slice(0, -1).join(', ')} and ${last}`;
}

// ⚠ Veo 3.1 takes 1-3 reference images and makes 8 s only from them (fal's field is a free
// string, "8s" by default; Google's and other hosts' pages give the rest).
const VEO_MAX_REFERENCES = 3;

const REFERENCE_MAPPINGS = {
  /**
   * fal-ai/kling-video/o1/{standard/,}reference-to-video: elements and images, one silent shot of
   * 3-10 s; its tier is the endpoint's. A start frame goes to the image endpoint (`kling-o1-frames`).
   */
  'kling-o1-reference': mappingFor('reference', (request) => {
    if (request.startFrame !== null) refuse('takes no start frame alongside references');
    if (request.endFrame !== null) refuse('takes no end frame');
    if (request.shots.length > 1) refuse('makes one shot per video (no multi-shot)');
    if (request.audio) refuse('makes silent videos');
    klingInputs(request, 0);
    const { lists, names } = klingReferences(request);
    return {
      prompt: renameReferences(request.prompt, names),
      duration: secondsWithin(request.durationSeconds, 3, 10),
      aspect_ratio: listedRatio(request, KLING_REFERENCE_RATIOS),
      ...lists,
    };
  }),
  /**
   * fal-ai/kling-video/o1/image-to-video: from a start frame (and to an end frame), without
   * references; the frames set the shape. Its prompt's `@Image1` is the start frame, which our
   * syntax cannot name (a request without images has no `@Image`), so nothing is renamed.
   */
  'kling-o1-frames': mappingFor('reference', (request) => {
    if (request.startFrame === null) refuse('needs a start frame');
    if (request.elements.length > 0 || request.images.length > 0) {
      refuse('takes no elements or images alongside a start frame');
    }
    if (request.shots.length > 1) refuse('makes one shot per video (no multi-shot)');
    if (request.audio) refuse('makes silent videos');
    return {
      prompt: renameReferences(request.prompt, { Element: [], Image: [] }),
      start_image_url: request.startFrame,
      ...(request.endFrame !== null ? { end_image_url: request.endFrame } : {}),
      duration: secondsWithin(request.durationSeconds, 3, 10),
    };
  }),
  /**
   * fal-ai/kling-video/o3/{standard, pro}/reference-to-video: and start and end frames, native
   * audio, 3-15 s, and shots as `multi_prompt` (each 1-15 s, adding up to the video). Neither
   * endpoint takes a resolution: each makes its tier's (standard 720p, pro 1080p). A route cannot
   * pick its endpoint by resolution, so a 720p request on the pro route is made at 1080p: more than
   * asked, at the catalog's one price.
   */
  'kling-o3-reference': mappingFor('reference', (request) => {
    klingInputs(request, (request.startFrame !== null ? 1 : 0) + (request.endFrame !== null ? 1 : 0));
    const { lists, names } = klingReferences(request);
    const input = {
      duration: secondsWithin(request.durationSeconds, 3, 15),
      aspect_ratio: listedRatio(request, KLING_REFERENCE_RATIOS),
      generate_audio: request.audio,
      ...lists,
      ...(request.startFrame !== null ? { start_image_url: request.startFrame } : {}),
      ...(request.endFrame !== null ? { end_image_url: request.endFrame } : {}),
    };
    if (request.shots.length <= 1) return { prompt: renameReferences(request.prompt, names), ...input };
    if (request.shots.length > KLING_MAX_SHOTS) refuse(`makes at most ${KLING_MAX_SHOTS} shots`);
    const total = request.shots.reduce((sum, shot) => sum + shot.durationSeconds, 0);
    if (total !== request.durationSeconds) {
      refuse(`was given shots of ${total} s for a ${request.durationSeconds} s video`);
    }
    // The endpoint takes a prompt or shots, not both; `customize` keeps our shots as they are
    // (`intelligent` would let the model cut its own).
    return {
      multi_prompt: request.shots.map((shot) => ({
        prompt: renameReferences(shot.prompt, names),
        duration: secondsWithin(shot.durationSeconds, 1, 15, 'shots'),
      })),
      shot_type: 'customize',
      ...input,
    };
  }),
  /** fal-ai/veo3.1/reference-to-video: 1-3 reference images, 8 s, 16:9 or 9:16, native audio. */
  'veo-reference': mappingFor('reference', (request) => {
    if (request.startFrame !== null || request.endFrame !== null) refuse('takes no start or end frame');
    if (request.shots.length > 1) refuse('makes one shot per video (no multi-shot)');
    if (request.durationSeconds !== 8) refuse('makes 8 s videos from references');
    const imageUrls: string[] = [];
    // push answers the list's new length: the image's place, counted from 1.
    const place = (urls: readonly string[]): number[] => urls.map((url) => imageUrls.push(url));
    const names = {
      Element: request.elements.map((e) => `the subject of ${veoImages(place([e.frontal, ...e.references]))}`),
      Image: request.images.map((url) => veoImages(place([url]))),
    };
    if (imageUrls.length === 0) refuse('needs at least one reference image');
    if (imageUrls.length > VEO_MAX_REFERENCES) {
      refuse(
        `takes at most ${VEO_MAX_REFERENCES} reference images, each view of an element counted (asked: ${imageUrls.length})`,
      );
    }
    return {
      prompt: renameReferences(request.prompt, names),
      image_urls: imageUrls,
      duration: '8s',
      aspect_ratio: listedRatio(request, ['16:9', '9:16']),
      resolution: nearestResolution(request.resolution, ['720p', '1080p', '4k']),
      generate_audio: request.audio,
    };
  }),
} satisfies Record<string, Mapping>;

// ---------------------------------------------------------------------------------------------
// Speech: MiniMax's text to speech on fal, in a MiniMax voice named like our preset (`Wise_Woman`).

type SpeechRequest = Extract<VendorRequest, { kind: 'speech' }>;

// ⚠ MiniMax speaks at 0.5-2 and reads at most 5000 characters (fal's schema; VENDORS.md).
const MINIMAX_SPEED = [0.5, 2] as const;
const MINIMAX_MAX_CHARACTERS = 5000;

/** MiniMax's emotion for each of ours: it has no `excited` or `calm`. */
const MINIMAX_EMOTIONS: Readonly<Record<TtsEmotion, string>> = {
  neutral: 'neutral',
  happy: 'happy',
  sad: 'sad',
  angry: 'angry',
  fearful: 'fearful',
  disgusted: 'disgusted',
  surprised: 'surprised',
  excited: 'happy',
  calm: 'neutral',
};

/** MiniMax's `language_boost` names, by ISO 639-1 code; another language is boosted `auto`. */
const MINIMAX_LANGUAGES: Readonly<Record<string, string>> = {
  af: 'Afrikaans',
  ar: 'Arabic',
  bg: 'Bulgarian',
  ca: 'Catalan',
  cs: 'Czech',
  da: 'Danish',
  de: 'German',
  el: 'Greek',
  en: 'English',
  es: 'Spanish',
  fi: 'Finnish',
  fr: 'French',
  he: 'Hebrew',
  hi: 'Hindi',
  hr: 'Croatian',
  hu: 'Hungarian',
  id: 'Indonesian',
  it: 'Italian',
  ja: 'Japanese',
  ko: 'Korean',
  ms: 'Malay',
  nb: 'Norwegian',
  nl: 'Dutch',
  nn: 'Nynorsk',
  no: 'Norwegian',
  pl: 'Polish',
  pt: 'Portuguese',
  ro: 'Romanian',
  ru: 'Russian',
  sk: 'Slovak',
  sl: 'Slovenian',
  sv: 'Swedish',
  th: 'Thai',
  tr: 'Turkish',
  uk: 'Ukrainian',
  vi: 'Vietnamese',
  zh: 'Chinese',
};

// MiniMax makes MP3, FLAC and raw PCM. The service makes the rest from these: WAV by wrapping the
// PCM (at the rate of our own `pcm`), OGG and AAC by converting the MP3.
interface MinimaxAudio {
  format: 'mp3' | 'flac' | 'pcm';
  sample_rate: number;
  bitrate?: number;
  channel: 1;
}
const MINIMAX_MP3: MinimaxAudio = { format: 'mp3', sample_rate: 44100, bitrate: 128000, channel: 1 };
const MINIMAX_AUDIO: Readonly<Record<string, MinimaxAudio>> = {
  mp3: MINIMAX_MP3,
  ogg: MINIMAX_MP3,
  aac: MINIMAX_MP3,
  flac: { format: 'flac', sample_rate: 44100, channel: 1 },
  pcm: { format: 'pcm', sample_rate: TTS_PCM_SAMPLE_RATE, channel: 1 },
  wav: { format: 'pcm', sample_rate: TTS_PCM_SAMPLE_RATE, channel: 1 },
} satisfies Record<TtsFormat, MinimaxAudio>;

/** `record[key]` when the record has it (not one of Object's own names). */
const own = <T>(record: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;

/** The MiniMax voice of a speech request; refused when the voice has none. */
function minimaxVoice(request: SpeechRequest): string {
  const voice = request.voices.fal;
  if (!voice) refuse('speaks only MiniMax voices, and this voice is not one of them');
  return voice;
}

const SPEECH_MAPPINGS = {
  /**
   * fal-ai/minimax/speech-02-hd: the text in a MiniMax voice at a speed and an emotion, the
   * language boosted, the audio as a URL (fal answers hex by default). The seed is not MiniMax's.
   */
  'minimax-speech': mappingFor('speech', (request) => {
    const voice = minimaxVoice(request);
    if (request.text.trim() === '') refuse('needs some text to speak');
    const characters = [...request.text].length;
    if (characters > MINIMAX_MAX_CHARACTERS) {
      refuse(`speaks at most ${MINIMAX_MAX_CHARACTERS} characters (asked: ${characters})`);
    }
    const [slowest, fastest] = MINIMAX_SPEED;
    if (!(request.speed >= slowest && request.speed <= fastest)) {
      refuse(`speaks at speeds ${slowest} to ${fastest}, not ${request.speed}`);
    }
    const audio = own(MINIMAX_AUDIO, request.format);
    if (!audio) refuse(`makes no ${request.format} audio`);
    return {
      text: request.text,
      // No `vol`: the service applies the volume itself, after the vendor.
      voice_setting: {
        voice_id: voice,
        speed: request.speed,
        emotion: MINIMAX_EMOTIONS[ttsEmotion(request.emotion)],
      },
      language_boost: own(MINIMAX_LANGUAGES, request.language.toLowerCase()) ?? 'auto',
      audio_setting: { ...audio },
      output_format: 'url',
    };
  }),
} satisfies Record<string, Mapping>;

/** Input mappings of fal endpoints, by the name a catalog route gives. */
export const FAL_MAPPINGS = {
  /** fal-ai/flux/schnell, fal-ai/flux-1/schnell, rundiffusion-fal/juggernaut-flux/pro. */
  flux: shaped(FLUX),
  /** fal-ai/flux-lora, fal-ai/flux-krea-lora, rundiffusion-fal/rundiffusion-photo-flux. */
  'flux-lora': shaped({ ...FLUX, loras: true }),
  /** fal-ai/flux-lora/image-to-image. */
  'flux-lora-i2i': shaped({ ...FLUX, loras: true, image: 'image_url' }),
  /** fal-ai/flux-pro/v1.1: image_size, seed, output_format; no steps. */
  'flux-pro': shaped({ size: 'image_size', seed: true, numImages: true, format: 'output_format' }),
  /** fal-ai/flux-pro/v1.1-ultra: an aspect ratio, and an optional image prompt. */
  'flux-ultra': shaped({
    size: 'aspect_ratio',
    ratios: KONTEXT_RATIOS,
    seed: true,
    numImages: true,
    format: 'output_format',
    image: 'image_url',
  }),
  /** fal-ai/flux-pro/kontext[/max][/text-to-image]: an aspect ratio, and the image to edit. */
  kontext: shaped({
    size: 'aspect_ratio',
    ratios: KONTEXT_RATIOS,
    seed: true,
    numImages: true,
    format: 'output_format',
    image: 'image_url',
  }),
  /** fal-ai/flux-pro/kontext/multi: several images composed (influencer images: the face first). */
  'kontext-multi': shaped({
    size: 'aspect_ratio',
    ratios: KONTEXT_RATIOS,
    seed: true,
    numImages: true,
    format: 'output_format',
    image: 'image_urls',
  }),
  /** fal-ai/flux-kontext/dev: the image to edit, steps and seed; the size follows the image. */
  'kontext-dev': shaped({
    size: 'none',
    steps: true,
    seed: true,
    numImages: true,
    safety: true,
    format: 'output_format',
    image: 'image_url',
  }),
  /** fal-ai/fast-sdxl, fal-ai/stable-diffusion-v15, fal-ai/dreamshaper, fal-ai/realistic-vision. */
  sd: shaped({ ...SD, loras: true }),
  /** fal-ai/playground-v25: as `sd` without LoRAs. */
  'sd-base': shaped(SD),
  /** fal-ai/fast-lightning-sdxl: 1, 2, 4 or 8 steps, no negative prompt. */
  'sdxl-lightning': shaped({ ...SD, negative: false, steps: [1, 2, 4, 8] }),
  /** fal-ai/stable-diffusion-v35-large (LoRAs), fal-ai/hidream-i1-full (LoRAs), fal-ai/qwen-image (LoRAs). */
  'diffusion-lora': shaped({ ...FLUX, negative: true, loras: true }),
  /** fal-ai/stable-diffusion-v35-medium, fal-ai/kolors, fal-ai/hunyuan-image/v2.1, fal-ai/hidream-i1-dev/fast. */
  diffusion: shaped({ ...FLUX, negative: true }),
  /** fal-ai/wan/v2.2-a14b/text-to-image: one image per request, no output format. */
  wan: shaped({ size: 'image_size', steps: true, seed: true, negative: true, safety: true }),
  /** fal-ai/aura-flow: square only, steps and seed. */
  'aura-flow': shaped({ size: 'none', steps: true, seed: true, numImages: true }),
  /** fal-ai/nano-banana. */
  'nano-banana': shaped({
    size: 'aspect_ratio',
    ratios: ['21:9', '16:9', '3:2', '4:3', '5:4', '1:1', '4:5', '3:4', '2:3', '9:16'],
    seed: true,
    numImages: true,
    format: 'output_format',
  }),
  /** fal-ai/nano-banana/edit: the images to edit. */
  'nano-banana-edit': shaped({
    size: 'aspect_ratio',
    ratios: ['21:9', '16:9', '3:2', '4:3', '5:4', '1:1', '4:5', '3:4', '2:3', '9:16'],
    seed: true,
    numImages: true,
    format: 'output_format',
    image: 'image_urls',
  }),
  /** fal-ai/ideogram/v3: image_size, negative prompt, style reference images. */
  ideogram: shaped({ size: 'image_size', seed: true, negative: true, numImages: true, image: 'image_urls' }),
  /** fal-ai/ideogram/v3/remix: the image to remix. */
  'ideogram-remix': shaped({ size: 'image_size', seed: true, negative: true, numImages: true, image: 'image_url' }),
  /** fal-ai/ideogram/v2a/turbo: its own aspect ratios. */
  'ideogram-v2': shaped({
    size: 'aspect_ratio',
    ratios: ['10:16', '16:10', '9:16', '16:9', '4:3', '3:4', '1:1', '1:3', '3:1', '3:2', '2:3'],
    seed: true,
  }),
  /** fal-ai/recraft/v3/text-to-image. */
  recraft: shaped({ size: 'image_size', safety: true }),
  /** fal-ai/recraft/v3/image-to-image. */
  'recraft-i2i': shaped({ size: 'none', negative: true, image: 'image_url' }),
  /** fal-ai/luma-photon[/flash]: an aspect ratio only. */
  luma: shaped({ size: 'aspect_ratio', ratios: ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9', '9:21'] }),
  /** fal-ai/minimax/image-01. */
  minimax: shaped({
    size: 'aspect_ratio',
    ratios: ['1:1', '16:9', '4:3', '3:2', '2:3', '3:4', '9:16', '21:9'],
    numImages: true,
  }),
  /** fal-ai/bytedance/seedream/v4/text-to-image. */
  seedream: shaped({ size: 'image_size', seed: true, numImages: true, safety: true }),
  /** fal-ai/bytedance/seedream/v4/edit: the images to edit. */
  'seedream-edit': shaped({ size: 'image_size', seed: true, numImages: true, safety: true, image: 'image_urls' }),
  /** fal-ai/qwen-image-edit: the image to edit. */
  'qwen-edit': shaped({ ...FLUX, negative: true, image: 'image_url' }),
  /** fal-ai/qwen-image-edit-plus: the images to edit. */
  'qwen-edit-plus': shaped({ ...FLUX, negative: true, image: 'image_urls' }),
  /** fal-ai/omnigen-v2: reference images as input_image_urls. */
  omnigen: shaped({ ...FLUX, negative: true, image: 'input_image_urls' }),
  /** fal-ai/bagel/edit: the image to edit and a seed. */
  bagel: shaped({ size: 'none', seed: true, safety: true, image: 'image_url' }),
  /** bria/fibo-edit/edit: the instruction, the image, steps as steps_num. */
  'fibo-edit': shaped({
    prompt: 'instruction',
    size: 'none',
    steps: true,
    stepsField: 'steps_num',
    seed: true,
    negative: true,
    image: 'image_url',
  }),
  ...VIDEO_MAPPINGS,
  ...MEDIA_MAPPINGS,
  ...MODEL3D_MAPPINGS,
  ...TALKING_HEAD_MAPPINGS,
  ...REFERENCE_MAPPINGS,
  ...SPEECH_MAPPINGS,
} satisfies Record<string, Mapping>;
