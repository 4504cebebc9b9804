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
import { type Mapping, mappingFor } from '../../mapping.ts';
import type { VendorRequest } from '../../types.ts';
import { nearestResolution, refuse } from './common.ts';

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
export const VIDEO_MAPPINGS = {
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
