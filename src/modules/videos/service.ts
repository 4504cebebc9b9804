// The rules and prices of this module's generation requests: each plan turns a validated
// request into the work to charge for and run.

import type { Static } from 'typebox';
import type { Deps } from '../../app-types.ts';
import {
  creditsFor,
  ENDPOINT_PRICED,
  FAMILY_PRICE as FAMILY_CATALOG_PRICE,
  LORA_VIDEO_PRICE,
  MOTION_PRICE,
} from '../../catalog/endpoint-prices.ts';
import { lookupModel } from '../../catalog/lookup.ts';
import type { Upscaler } from '../../catalog/media-models.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import { teamHasGeneration } from '../../engine/index.ts';
import type { PlanDeps } from '../../engine/inputs.ts';
import { probeUserMedia } from '../../engine/media-probe.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { invalidField, notFound } from '../../lib/errors.ts';
import { requireInfluencer, requireReadyInfluencer } from '../influencers/service.ts';
import { resolveVoiceProfile } from '../voices/service.ts';
import { selectLatestVoiceOfInfluencer, spokenVoice } from '../voices/sql.ts';
import type {
  LipsyncInput,
  LoraInput,
  MotionInput,
  ReferenceInput,
  TalkingHeadInput,
  UpscaleInput,
  VideoGenerateInput,
} from './inputs.ts';
import {
  type DeprecatedSeedvrBody,
  type DeprecatedTopazBody,
  type LipsyncBody,
  LORA_VIDEO_MODEL,
  type LoraVideoBody,
  type MotionControlBody,
  type ReferenceToVideoBody,
  type TalkingHeadBody,
  type UpscaleBody,
  type VideoGenerateBody,
} from './schemas.ts';
import { outputTier, UPSCALE_TIERS } from './upscale.ts';

/** Provider-family prices (the catalog's), by quality (its resolution): credits per second. */
export const FAMILY_PRICE = FAMILY_CATALOG_PRICE.credits_per_second_by_quality;
/** Motion transfer (the catalog's price): credits per second of the reference video. */
export const MOTION_CONTROL_CREDITS_PER_SECOND = MOTION_PRICE.credits_per_second;
/** The LoRA video model (the catalog's price): credits per second of output, by resolution. */
export const LORA_VIDEO_CREDITS_PER_SECOND = LORA_VIDEO_PRICE.credits_per_second_by_resolution;

export const credits = creditsFor;

/** An upscaler's credits per second at the tier of an output height (its top tier beyond). */
export function tierCreditsPerSecond(model: Upscaler, outputHeight: number): number {
  const tiers = model.credits_per_second_by_tier;
  return tiers[outputTier(outputHeight)] ?? Math.max(...Object.values(tiers));
}

/** The plan of every upscale request: the three endpoints differ in sizing and price only. */
export function upscalePlan(
  model: Upscaler,
  videoUrl: string,
  input: Omit<UpscaleInput, 'video_url'>,
  price: number,
): GenerationPlan {
  return {
    operation: OperationName.videoUpscale,
    model: model.id,
    input: { video_url: videoUrl, ...input } satisfies UpscaleInput,
    items: [{ type: 'video', price }],
    estimatedSeconds: model.estimated_seconds,
    urls: [{ field: 'video_url', url: videoUrl }],
  };
}

/** Checks @ElementN and @ImageN references of a prompt against what the request supplies. */
export function checkReferences(field: string, text: string, elements: number, images: number): void {
  for (const match of text.matchAll(/@(Element|Image)(\d+)/g)) {
    const n = Number(match[2]);
    const available = match[1] === 'Element' ? elements : images;
    if (n < 1 || n > available) {
      throw invalidField(
        field,
        `${match[0]} does not exist: the request has ${available} ${match[1] === 'Element' ? 'element' : 'image'}${available === 1 ? '' : 's'}`,
      );
    }
  }
}

export function planVideoGenerate({ media, live }: Deps, body: Static<typeof VideoGenerateBody>): GenerationPlan {
  const model = lookupModel(media.video, body.model, 'video');
  const s = body.settings ?? {};
  const aspect = s.aspect_ratio ?? '16:9';
  if (!(model.settings.aspect_ratios as string[]).includes(aspect)) {
    throw invalidField(
      'settings.aspect_ratio',
      `model ${model.id} supports ${model.settings.aspect_ratios.join(', ')}`,
    );
  }
  const durations = model.settings.durations;
  const duration = s.duration ?? (durations.includes(5) ? 5 : model.settings.default_duration);
  if (!durations.includes(duration)) {
    throw invalidField('settings.duration', `model ${model.id} supports ${durations.join(', ')} seconds`);
  }
  if (body.first_frame_image && !model.capabilities.image_to_video) {
    throw invalidField('first_frame_image', `model ${model.id} does not do image-to-video`);
  }
  if (!body.first_frame_image && !model.capabilities.text_to_video) {
    throw invalidField('first_frame_image', `model ${model.id} needs a first frame (image-to-video only)`);
  }
  let resolution: string = model.settings.resolution;
  let price = model.provider_family ? 0 : credits(model.price.credits_per_second, duration);
  let family: VideoGenerateInput['family'] = null;
  if (model.provider_family) {
    const provider = s.provider ?? media.video_providers[0]?.id;
    const known = media.video_providers.find((p) => p.id === provider);
    if (!known) {
      throw invalidField('settings.provider', `must be one of ${media.video_providers.map((p) => p.id).join(', ')}`);
    }
    const quality = s.quality ?? 'high';
    const removeWatermark = s.remove_watermark ?? true;
    if (removeWatermark && !known.supports_watermark_removal) {
      throw invalidField('settings.remove_watermark', `provider ${provider} cannot remove the watermark`);
    }
    resolution = quality === 'high' ? '1080p' : '720p';
    const rates = live.priceOr('video', model.id, FAMILY_CATALOG_PRICE).credits_per_second_by_quality;
    price = credits(rates[quality], duration);
    family = { provider: known.id, quality, remove_watermark: removeWatermark };
  }
  return {
    operation: OperationName.videoGenerate,
    model: model.id,
    input: {
      prompt: body.prompt,
      aspect_ratio: aspect,
      duration,
      resolution,
      fps: model.settings.fps,
      first_frame_image: body.first_frame_image ?? null,
      native_audio: model.capabilities.native_audio,
      family,
    } satisfies VideoGenerateInput,
    items: [{ type: 'video', price }],
    estimatedSeconds: model.estimated_seconds,
    webhookUrl: body.webhook ?? null,
    urls: body.first_frame_image ? [{ field: 'first_frame_image', url: body.first_frame_image }] : [],
  };
}

export async function planLipsync(
  deps: PlanDeps,
  body: Static<typeof LipsyncBody>,
  teamId: string,
): Promise<GenerationPlan> {
  const model = lookupModel(deps.media.lipsync, body.model, 'lipsync');
  if (body.generation_id !== undefined && !(await teamHasGeneration(deps.pool, body.generation_id, teamId))) {
    throw notFound('Generation', body.generation_id);
  }
  const [video] = await Promise.all([
    probeUserMedia(deps, 'video_url', body.video_url, 'video'),
    probeUserMedia(deps, 'audio_url', body.audio_url, 'audio'),
  ]);
  if (video.durationSeconds > model.settings.max_duration_seconds) {
    throw invalidField(
      'video_url',
      `is ${video.durationSeconds.toFixed(1)} s; model ${model.id} takes at most ${model.settings.max_duration_seconds} s`,
    );
  }
  return {
    operation: OperationName.videoLipsync,
    model: model.id,
    input: {
      video_url: body.video_url,
      audio_url: body.audio_url,
      attached_to: body.generation_id ?? null,
    } satisfies LipsyncInput,
    items: [{ type: 'video', price: credits(model.price.credits_per_second, video.durationSeconds) }],
    estimatedSeconds: model.estimated_seconds,
    urls: [
      { field: 'video_url', url: body.video_url },
      { field: 'audio_url', url: body.audio_url },
    ],
  };
}

/** Motion control's price now (the operator's, else the catalog's). */
const motionPrice = (deps: Pick<Deps, 'live'>) =>
  deps.live.priceOr(ENDPOINT_PRICED.motion.kind, ENDPOINT_PRICED.motion.model, MOTION_PRICE);

export async function planMotionControl(
  deps: PlanDeps,
  body: Static<typeof MotionControlBody>,
): Promise<GenerationPlan> {
  const orientation = body.character_orientation ?? 'video';
  if (body.element && orientation !== 'video') {
    throw invalidField('element', "needs character_orientation 'video'");
  }
  if (body.prompt) checkReferences('prompt', body.prompt, body.element ? 1 : 0, 0);
  const reference = await probeUserMedia(deps, 'video_url', body.video_url, 'video');
  const limit = orientation === 'video' ? 30 : 10;
  if (reference.durationSeconds > limit + 0.05) {
    throw invalidField(
      'video_url',
      `is ${reference.durationSeconds.toFixed(1)} s; with character_orientation '${orientation}' it may be at most ${limit} s`,
    );
  }
  const elementUrls = body.element
    ? [body.element.frontal_image_url, ...(body.element.reference_image_urls ?? [])]
    : [];
  return {
    operation: OperationName.videoMotion,
    model: 'kling-2.6-motion-control',
    input: {
      video_url: body.video_url,
      image_url: body.image_url,
      prompt: body.prompt ?? null,
      orientation,
      element: body.element ?? null,
    } satisfies MotionInput,
    items: [{ type: 'video', price: credits(motionPrice(deps).credits_per_second, reference.durationSeconds) }],
    estimatedSeconds: 120,
    urls: [
      { field: 'video_url', url: body.video_url },
      { field: 'image_url', url: body.image_url },
      ...elementUrls.map((url, i) => ({
        field: i === 0 ? 'element.frontal_image_url' : `element.reference_image_urls[${i - 1}]`,
        url,
      })),
    ],
  };
}

export async function planReferenceToVideo(
  deps: Deps,
  body: Static<typeof ReferenceToVideoBody>,
  teamId: string,
): Promise<GenerationPlan> {
  const model = lookupModel(deps.media.reference_video, body.model, 'reference-to-video');
  const influencer = body.influencer_id
    ? await requireReadyInfluencer(deps.pool, teamId, body.influencer_id)
    : undefined;
  const voiceProfile = body.voice_id ? await resolveVoiceProfile(deps, teamId, body.voice_id) : null;
  const elements = body.elements ?? [];
  const images = body.image_urls ?? [];
  const elementCount = elements.length + (influencer ? 1 : 0);
  const { settings } = model;

  if (body.resolution !== undefined) {
    if (settings.resolutions.length === 0) {
      throw invalidField('resolution', `model ${model.id} has no resolution choice`);
    }
    if (!(settings.resolutions as string[]).includes(body.resolution)) {
      throw invalidField('resolution', `model ${model.id} supports ${settings.resolutions.join(', ')}`);
    }
  }
  const resolution = body.resolution ?? settings.resolutions.at(-1) ?? '1080p';
  const aspect = body.aspect_ratio ?? '16:9';
  if (!(settings.aspect_ratios as string[]).includes(aspect)) {
    throw invalidField('aspect_ratio', `model ${model.id} supports ${settings.aspect_ratios.join(', ')}`);
  }
  const inputs = elementCount + images.length + (body.start_image_url ? 1 : 0);
  if (model.per_segment_shots && inputs > 7) {
    throw invalidField('elements', `model ${model.id} takes at most 7 inputs (elements, images and start frame)`);
  }

  let segments: Array<{ prompt: string; duration: number }>;
  if (body.multi_prompt) {
    segments = body.multi_prompt.map((s) => ({ prompt: s.prompt, duration: Number(s.duration) }));
    body.multi_prompt.forEach((s, i) => {
      checkReferences(`multi_prompt[${i}].prompt`, s.prompt, elementCount, images.length);
    });
  } else {
    segments = [{ prompt: body.prompt, duration: Number(body.duration ?? '5') }];
    checkReferences('prompt', body.prompt, elementCount, images.length);
  }
  const total = segments.reduce((sum, s) => sum + s.duration, 0);
  if (total < settings.min_duration || total > settings.max_duration) {
    throw invalidField(
      body.multi_prompt ? 'multi_prompt' : 'duration',
      `model ${model.id} makes ${settings.min_duration}-${settings.max_duration} s videos${body.multi_prompt ? ` (the segments add up to ${total} s)` : ''}`,
    );
  }
  // Our @ElementN/@ImageN become the model's own syntax.
  const native = (text: string) =>
    model.per_segment_shots
      ? text
      : text
          .replace(/@Element(\d+)/g, (_m, n: string) => `<character ${n}>`)
          .replace(/@Image(\d+)/g, (_m, n: string) => `<reference image ${n}>`);
  let start = 0;
  const shots = segments.map((s) => {
    const shot = { prompt: native(s.prompt), start, duration: s.duration };
    start += s.duration;
    return shot;
  });
  const prompt = model.per_segment_shots
    ? native(segments.map((s) => s.prompt).join(' '))
    : shots.map((s) => `[${s.start}-${s.start + s.duration}s] ${s.prompt}`).join(' ');

  const urlFields: Array<{ field: string; url: string }> = [];
  elements.forEach((e, i) => {
    urlFields.push({ field: `elements[${i}].frontal_image_url`, url: e.frontal_image_url });
    e.reference_image_urls.forEach((url, j) => {
      urlFields.push({ field: `elements[${i}].reference_image_urls[${j}]`, url });
    });
  });
  images.forEach((url, i) => {
    urlFields.push({ field: `image_urls[${i}]`, url });
  });
  for (const field of ['start_image_url', 'end_image_url', 'outfit_image_url'] as const) {
    const url = body[field];
    if (url) urlFields.push({ field, url });
  }
  (body.product_image_urls ?? []).forEach((url, i) => {
    urlFields.push({ field: `product_image_urls[${i}]`, url });
  });
  (body.location_image_urls ?? []).forEach((url, i) => {
    urlFields.push({ field: `location_image_urls[${i}]`, url });
  });

  return {
    operation: OperationName.videoReference,
    model: model.id,
    input: {
      prompt,
      shots: model.per_segment_shots ? shots : [{ prompt, start: 0, duration: total }],
      duration: total,
      aspect_ratio: aspect,
      resolution,
      influencer_face: influencer?.face_image ?? null,
      frames: { start: body.start_image_url ?? null, end: body.end_image_url ?? null },
      reference_images: [
        ...(influencer ? [influencer.face_image] : []),
        ...elements.map((e) => e.frontal_image_url),
        ...images,
      ],
      script: body.script ?? null,
      voice_id: body.voice_id ?? null,
      voice_profile: voiceProfile,
      native_audio: model.native_audio,
      elements: [
        ...(influencer ? [{ frontal: influencer.face_image, references: [] }] : []),
        ...elements.map((e) => ({ frontal: e.frontal_image_url, references: e.reference_image_urls })),
      ],
      images,
      segments,
    } satisfies ReferenceInput,
    items: [{ type: 'video', price: credits(model.price.credits_per_second, total) }],
    estimatedSeconds: model.estimated_seconds,
    urls: urlFields,
  };
}

export async function planTalkingHead(
  deps: Deps,
  body: Static<typeof TalkingHeadBody>,
  teamId: string,
): Promise<GenerationPlan> {
  const model = lookupModel(deps.media.talking_head, body.model, 'talking-head');
  const mode = body.audio_mode ?? 'generate';
  const sheet = model.sheet_based;
  if (mode === 'generate' && !body.script) throw invalidField('script', "is required when audio_mode is 'generate'");
  if (mode === 'upload' && !body.audio_url) throw invalidField('audio_url', "is required when audio_mode is 'upload'");
  if (mode === 'generate' && body.audio_url) throw invalidField('audio_url', "is only for audio_mode 'upload'");
  if (!sheet && (body.static_camera !== undefined || body.camera_motion_prompt !== undefined)) {
    throw invalidField(
      body.static_camera !== undefined ? 'static_camera' : 'camera_motion_prompt',
      `applies to sheet-based models only; ${model.id} is not one`,
    );
  }
  const staticCamera = body.static_camera ?? true;
  if (body.camera_motion_prompt !== undefined && staticCamera) {
    throw invalidField('camera_motion_prompt', 'is used only when static_camera is false');
  }
  if (body.start_image_url && (body.template_id || body.angle_id)) {
    throw invalidField('start_image_url', 'cannot be combined with template_id and angle_id');
  }
  if ((body.template_id === undefined) !== (body.angle_id === undefined)) {
    throw invalidField(
      body.template_id === undefined ? 'template_id' : 'angle_id',
      'template_id and angle_id go together',
    );
  }
  const template = body.template_id
    ? deps.media.talking_head_templates.find((t) => t.id === body.template_id)
    : undefined;
  if (body.template_id && !template) throw notFound('Template', body.template_id);
  const angle = template?.angles.find((a) => a.id === body.angle_id);
  if (template && !angle) {
    throw invalidField('angle_id', `template ${template.id} has angles ${template.angles.map((a) => a.id).join(', ')}`);
  }
  const needsInfluencer = sheet || template !== undefined || (mode === 'generate' && model.needs_audio);
  if (needsInfluencer && !body.influencer_id) {
    const why = sheet
      ? `model ${model.id} is sheet-based`
      : template
        ? 'a template start image is used'
        : `audio_mode 'generate' on model ${model.id} voices the script with the influencer's voice`;
    throw invalidField('influencer_id', `is required: ${why}`);
  }
  if (!sheet && !template && !body.start_image_url) {
    throw invalidField('start_image_url', 'is required (or template_id with angle_id)');
  }
  const influencer = body.influencer_id
    ? await requireReadyInfluencer(deps.pool, teamId, body.influencer_id)
    : undefined;
  let voice: TalkingHeadInput['voice'] = null;
  if (mode === 'generate' && model.needs_audio && influencer) {
    const latest = await selectLatestVoiceOfInfluencer(deps.pool, influencer.id);
    if (!latest) {
      throw invalidField(
        'influencer_id',
        `influencer ${influencer.id} has no voice yet: create one with POST /api/v1/voices/generate, or use audio_mode 'upload'`,
      );
    }
    voice = spokenVoice(latest);
  }
  const durations = model.settings.durations;
  const duration = body.duration === undefined ? model.settings.default_duration : Number(body.duration);
  if (!durations.includes(duration)) {
    throw invalidField('duration', `model ${model.id} supports ${durations.join(', ')} seconds`);
  }
  const resolution = body.resolution ?? model.settings.default_resolution;
  if (!(model.settings.resolutions as string[]).includes(resolution)) {
    throw invalidField('resolution', `model ${model.id} supports ${model.settings.resolutions.join(', ')}`);
  }
  const aspect = body.aspect_ratio ?? '9:16';
  if (!(model.settings.aspect_ratios as string[]).includes(aspect)) {
    throw invalidField('aspect_ratio', `model ${model.id} supports ${model.settings.aspect_ratios.join(', ')}`);
  }
  const a = body.audio_settings ?? {};
  return {
    operation: OperationName.videoTalkingHead,
    model: model.id,
    input: {
      mode,
      script: body.script ?? null,
      audio_url: body.audio_url ?? null,
      audio: {
        speed: a.speed ?? 1,
        volume: a.volume ?? 1,
        emotion: a.emotion ?? 'neutral',
        language: a.language ?? 'en',
      },
      voice,
      duration,
      resolution,
      aspect_ratio: aspect,
      start_image_url: body.start_image_url ?? influencer?.face_image ?? null,
      template: template && angle ? { id: template.id, angle: angle.id } : null,
      sheet_based: sheet,
      static_camera: sheet ? staticCamera : null,
      camera_motion_prompt: body.camera_motion_prompt ?? null,
    } satisfies TalkingHeadInput,
    items: [{ type: 'video', price: credits(model.price.credits_per_second, duration) }],
    estimatedSeconds: model.estimated_seconds,
    urls: [
      ...(body.audio_url ? [{ field: 'audio_url', url: body.audio_url }] : []),
      ...(body.start_image_url ? [{ field: 'start_image_url', url: body.start_image_url }] : []),
    ],
  };
}

export async function planUpscale(deps: PlanDeps, body: Static<typeof UpscaleBody>): Promise<GenerationPlan> {
  const model = lookupModel(deps.media.upscalers, body.model, 'upscaler');
  const topazOnly = [
    'topaz_video_model',
    'target_fps',
    'h264_output',
    'compression',
    'noise',
    'halo',
    'grain',
    'recover_detail',
    'softness',
  ] as const;
  if (model.id !== 'topaz') {
    const used = topazOnly.find((f) => body[f] !== undefined);
    if (used) throw invalidField(used, `applies to the topaz upscaler only, not ${model.id}`);
  }
  const videoModel = body.topaz_video_model ?? model.default_video_model ?? null;
  if (model.id === 'topaz') {
    if (!model.video_models.some((v) => v.id === videoModel)) {
      throw invalidField('topaz_video_model', `must be one of: ${model.video_models.map((v) => v.id).join(', ')}`);
    }
    const isDefault = videoModel === model.default_video_model;
    const effects = (['compression', 'noise', 'halo', 'grain', 'recover_detail'] as const).filter(
      (f) => body[f] !== undefined,
    );
    if (isDefault && effects.length > 0) {
      throw invalidField(effects[0] as string, `is not used by the default enhancement model ${videoModel}`);
    }
    if (!isDefault && body.softness !== undefined) {
      throw invalidField('softness', `applies to the default enhancement model ${model.default_video_model} only`);
    }
  }
  const factor = body.upscale_factor ?? 2;
  const probe = await probeUserMedia(deps, 'video_url', body.video_url, 'video');
  const perSecond = tierCreditsPerSecond(model, (probe.height ?? 720) * factor);
  const price = credits(perSecond * (body.target_fps ? 2 : 1), probe.durationSeconds);
  return upscalePlan(
    model,
    body.video_url,
    {
      factor,
      target_fps: body.target_fps ?? null,
      video_model: videoModel,
      output_quality: body.output_quality ?? 'high',
      h264_output: body.h264_output ?? null,
      effects: {
        compression: body.compression,
        noise: body.noise,
        halo: body.halo,
        grain: body.grain,
        recover_detail: body.recover_detail,
        softness: body.softness,
      },
    },
    price,
  );
}

/** The two deprecated upscaler-named endpoints share the 'factor' / 'target' sizing. */
export const targetSize = async (
  deps: PlanDeps,
  body: { video_url: string; upscale_mode?: string; upscale_factor?: number; target_resolution?: string },
) => {
  const mode = body.upscale_mode ?? 'factor';
  if (mode === 'target' && !body.target_resolution)
    throw invalidField('target_resolution', "is required in 'target' mode");
  if (mode === 'factor' && body.target_resolution)
    throw invalidField('target_resolution', "is used only in 'target' mode");
  const probe = await probeUserMedia(deps, 'video_url', body.video_url, 'video');
  const height = probe.height ?? 720;
  const width = probe.width ?? 1280;
  const factor =
    mode === 'target'
      ? (UPSCALE_TIERS[body.target_resolution as keyof typeof UPSCALE_TIERS] ?? height) / height
      : (body.upscale_factor ?? 2);
  return { probe, factor, outWidth: Math.round(width * factor), outHeight: Math.round(height * factor) };
};

export async function planSeedvrUpscale(
  deps: PlanDeps,
  body: Static<typeof DeprecatedSeedvrBody>,
): Promise<GenerationPlan> {
  const model = lookupModel(deps.media.upscalers, 'seedvr2', 'upscaler');
  const size = await targetSize(deps, body);
  const megapixels = (size.outWidth * size.outHeight) / 1_000_000;
  return upscalePlan(
    model,
    body.video_url,
    {
      factor: size.factor,
      target_fps: null,
      video_model: null,
      output_quality: body.output_quality ?? 'high',
      deprecated: true,
    },
    credits(model.credits_per_output_megapixel * megapixels, size.probe.durationSeconds),
  );
}

export async function planTopazUpscale(
  deps: PlanDeps,
  body: Static<typeof DeprecatedTopazBody>,
): Promise<GenerationPlan> {
  const model = lookupModel(deps.media.upscalers, 'topaz', 'upscaler');
  const size = await targetSize(deps, body);
  const perSecond = tierCreditsPerSecond(model, size.outHeight);
  return upscalePlan(
    model,
    body.video_url,
    {
      factor: size.factor,
      target_fps: body.target_fps ?? null,
      video_model: model.default_video_model ?? null,
      output_quality: body.output_quality ?? 'high',
      h264_output: body.h264_output ?? null,
      deprecated: true,
    },
    credits(perSecond * (body.target_fps ? 2 : 1), size.probe.durationSeconds),
  );
}

export async function planLoraVideo(
  deps: Deps,
  body: Static<typeof LoraVideoBody>,
  teamId: string,
): Promise<GenerationPlan> {
  if (body.mode === 'i2v' && !body.image_url) throw invalidField('image_url', "is required when mode is 'i2v'");
  if (body.mode === 't2v' && body.image_url) throw invalidField('image_url', "is only for mode 'i2v'");
  if (body.influencer_id) await requireInfluencer(deps.pool, teamId, body.influencer_id);
  const s = body.settings ?? {};
  const resolution = s.resolution ?? '720p';
  const frames = s.num_frames ?? 81;
  const fps = s.frames_per_second ?? 16;
  const seconds = frames / fps;
  const { kind, model } = ENDPOINT_PRICED.loraVideo;
  const loraPrice = deps.live.priceOr(kind, model, LORA_VIDEO_PRICE);
  return {
    operation: OperationName.videoLora,
    model: LORA_VIDEO_MODEL,
    input: {
      mode: body.mode,
      prompt: body.prompt,
      image_url: body.image_url ?? null,
      loras: body.loras,
      resolution,
      aspect_ratio: s.aspect_ratio ?? '16:9',
      num_frames: frames,
      fps,
      steps: s.num_inference_steps ?? 27,
      guidance_scale: s.guidance_scale ?? 3.5,
      prompt_expansion: s.enable_prompt_expansion ?? false,
      seed: s.seed ?? 0,
      influencer_id: body.influencer_id ?? null,
    } satisfies LoraInput,
    items: [{ type: 'video', price: credits(loraPrice.credits_per_second_by_resolution[resolution], seconds) }],
    estimatedSeconds: seconds * 6,
    urls: [
      ...(body.image_url ? [{ field: 'image_url', url: body.image_url }] : []),
      ...body.loras.map((l, i) => ({ field: `loras[${i}].path`, url: l.path })),
    ],
  };
}
