import { OperationName } from '../../catalog/operation-names.ts';
import { FIXED_ROUTES } from '../../catalog/routes.ts';
import { ttsEmotion } from '../../catalog/voices.ts';
import { operationOf } from '../../engine/operation.ts';
import type { ExecutableItem, ExecutionContext, Operation, VendorWork } from '../../engine/types.ts';
import { WorkError } from '../../lib/errors.ts';
import type { ReferenceElement } from '../../providers/types.ts';
import { needSpeech } from '../speech/speak.ts';
import {
  LipsyncInput,
  LoraInput,
  MotionInput,
  ReferenceInput,
  TalkingHeadInput,
  UpscaleInput,
  VideoGenerateInput,
} from './inputs.ts';
import { LORA_VIDEO_MODEL } from './schemas.ts';

// videos/generate takes no seed: none is sent, and the vendor draws its own.
const seedOf = (item: ExecutableItem): number | null =>
  item.input.seed === undefined ? null : Number(item.input.seed);

/** The routes of the model `id` in one list of the media catalog (none when it has no entry). */
function routesOf(list: ReadonlyArray<{ id: string; routes: VendorWork['routes'] }>, id: string | null) {
  return list.find((m) => m.id === id)?.routes ?? [];
}

/**
 * videos/generate for a vendor: text-to-video, or image-to-video from the first frame. The provider
 * family's `settings.provider` keeps the routes of that provider only, the catalog's or the
 * operator's (none configured: simulated).
 */
const generateForVendor = (ctx: ExecutionContext, item: ExecutableItem<VideoGenerateInput>): VendorWork => {
  const req = item.request;
  return {
    routes: routesOf(ctx.media.video, item.model),
    ...(req.family ? { provider: req.family.provider } : {}),
    request: {
      kind: 'video',
      prompt: req.prompt,
      negativePrompt: null,
      aspectRatio: req.aspect_ratio,
      durationSeconds: req.duration,
      resolution: req.resolution,
      fps: req.fps,
      seed: seedOf(item),
      firstFrame: req.first_frame_image,
      lastFrame: null,
      audio: req.native_audio,
      loras: [],
      family: req.family,
    },
    expects: 'video',
  };
};

/** videos/lipsync for a vendor: the video and the audio to sync its lips to. */
const lipsyncForVendor = (ctx: ExecutionContext, item: ExecutableItem<LipsyncInput>): VendorWork => {
  const req = item.request;
  return {
    routes: routesOf(ctx.media.lipsync, item.model),
    request: { kind: 'lipsync', videoUrl: req.video_url, audioUrl: req.audio_url },
    expects: 'video',
  };
};

/** The face element of a motion-control request, as the API took it (`frontal_image_url`, views). */
function elementOf(given: unknown): ReferenceElement | null {
  const element = given as { frontal_image_url?: unknown; reference_image_urls?: unknown } | null;
  if (!element || typeof element.frontal_image_url !== 'string') return null;
  const views = Array.isArray(element.reference_image_urls) ? element.reference_image_urls : [];
  return { frontal: element.frontal_image_url, references: views.filter((v): v is string => typeof v === 'string') };
}

/** videos/motion-control for a vendor: the reference's motion onto the image's character. */
const motionForVendor = (_ctx: ExecutionContext, item: ExecutableItem<MotionInput>): VendorWork => {
  const req = item.request;
  return {
    routes: FIXED_ROUTES[item.model ?? ''] ?? [],
    request: {
      kind: 'motion',
      imageUrl: req.image_url,
      videoUrl: req.video_url,
      orientation: req.orientation === 'video' ? 'video' : 'image',
      prompt: req.prompt,
      element: elementOf(req.element),
    },
    expects: 'video',
  };
};

/** The upscale endpoints for a vendor: the factor, frame rate and the upscaler's own model. */
const upscaleForVendor = (ctx: ExecutionContext, item: ExecutableItem<UpscaleInput>): VendorWork => {
  const req = item.request;
  return {
    routes: routesOf(ctx.media.upscalers, item.model),
    request: {
      kind: 'upscale',
      videoUrl: req.video_url,
      factor: req.factor,
      targetFps: req.target_fps,
      model: req.video_model,
      h264: req.h264_output ?? false,
      tuning: Object.fromEntries(
        Object.entries(req.effects ?? {}).filter((e): e is [string, number] => typeof e[1] === 'number'),
      ),
    },
    expects: 'video',
  };
};

/** The LoRA video endpoint for a vendor: its sampling settings as given, the LoRAs per transformer. */
const loraForVendor = (_ctx: ExecutionContext, item: ExecutableItem<LoraInput>): VendorWork => {
  const req = item.request;
  return {
    routes: FIXED_ROUTES[LORA_VIDEO_MODEL] ?? [],
    request: {
      kind: 'video',
      prompt: req.prompt,
      negativePrompt: null,
      aspectRatio: req.aspect_ratio,
      durationSeconds: req.num_frames / req.fps,
      resolution: req.resolution,
      fps: req.fps,
      seed: req.seed,
      firstFrame: req.image_url,
      lastFrame: null,
      audio: false,
      loras: req.loras.map((l) => ({
        url: l.path,
        scale: l.scale,
        transformer: l.transformer === 'low' || l.transformer === 'both' ? l.transformer : 'high',
      })),
      frames: req.num_frames,
      steps: req.steps,
      guidanceScale: req.guidance_scale,
      promptExpansion: req.prompt_expansion,
      givenLoras: req.loras,
    },
    expects: 'video',
  };
};

/**
 * reference-to-video for a vendor: the characters, images and shots as the request gave them (a
 * route's mapping writes the references the model's way), and the script spoken over it. Requests
 * accepted before vendors served this operation lack them: no route serves those (the simulator
 * draws them from the shots and images in the model's words).
 */
const referenceForVendor = (ctx: ExecutionContext, item: ExecutableItem<ReferenceInput>): VendorWork => {
  const req = item.request;
  const drawn = {
    prompt: req.prompt,
    shots: req.shots.map((s) => ({ prompt: s.prompt, durationSeconds: s.duration })),
    images: req.reference_images,
  };
  const { elements, images, segments } = req;
  const given = elements && images && segments ? { elements, images, segments } : undefined;
  return {
    routes: given ? routesOf(ctx.media.reference_video, item.model) : [],
    request: {
      kind: 'reference',
      prompt: given ? given.segments.map((s) => s.prompt).join(' ') : drawn.prompt,
      shots: given ? given.segments.map((s) => ({ prompt: s.prompt, durationSeconds: s.duration })) : drawn.shots,
      elements: given?.elements ?? [],
      images: given?.images ?? drawn.images,
      startFrame: req.frames.start,
      endFrame: req.frames.end,
      durationSeconds: req.duration,
      aspectRatio: req.aspect_ratio,
      resolution: req.resolution,
      audio: req.native_audio,
      script: req.script,
      voiceProfile: req.voice_profile,
      drawn,
    },
    expects: 'video',
  };
};

/**
 * talking-head for a vendor: the portrait (the start image, or the influencer's face) speaking the
 * uploaded audio, or the script spoken in the voice before the submit (`prepareTalkingHead`).
 * Scenes from a location template and character-sheet models have no route: they need a start
 * frame composed first (the simulator composes it).
 */
const talkingHeadForVendor = (ctx: ExecutionContext, item: ExecutableItem<TalkingHeadInput>): VendorWork => {
  const req = item.request;
  const composed = req.template || req.sheet_based || !req.start_image_url;
  return {
    routes: composed ? [] : routesOf(ctx.media.talking_head, item.model),
    request: {
      kind: 'talking_head',
      imageUrl: req.start_image_url ?? '',
      // Spoken before the submit (prepareTalkingHead) when the script is to be voiced.
      audioUrl: req.audio_url ?? '',
      script: req.script,
      prompt: req.camera_motion_prompt,
      durationSeconds: req.duration,
      resolution: req.resolution,
      aspectRatio: req.aspect_ratio,
      speech: {
        mode: req.mode,
        voiceProfile: req.voice?.profile ?? null,
        speed: req.audio.speed,
        volume: req.audio.volume,
        emotion: req.audio.emotion,
        language: req.audio.language,
      },
      template: req.template,
    },
    expects: 'video',
  };
};

/**
 * Has a talking head's script spoken in its voice (audio_mode 'generate') as text to speech is (the
 * item's speech sub-work, waited for), and gives its URL to the vendor. Models that read the script
 * themselves, and uploaded audio, need nothing.
 */
const prepareTalkingHead = async (
  ctx: ExecutionContext,
  item: ExecutableItem<TalkingHeadInput>,
  work: VendorWork,
): Promise<VendorWork> => {
  const req = item.request;
  const model = ctx.media.talking_head.find((m) => m.id === item.model);
  if (work.request.kind !== 'talking_head' || req.mode !== 'generate' || !model?.needs_audio) return work;
  if (!req.script || !req.voice) {
    throw new WorkError('This talking head has no script and voice to speak', false, { kind: 'invalid_input' });
  }
  const speech = await needSpeech(ctx, item, {
    voice_id: req.voice.id,
    profile: req.voice.profile,
    vendor_voice: req.voice.vendor ?? null,
    text: req.script,
    language: req.audio.language,
    speed: req.audio.speed,
    volume: req.audio.volume,
    emotion: ttsEmotion(req.audio.emotion),
    format: 'mp3',
  });
  // Its URL is unguessable, as result URLs are: the vendor is given it, nobody else.
  return { ...work, request: { ...work.request, audioUrl: speech.url } };
};

/** The video operations. */
export const videoOperations: Record<string, Operation> = {
  [OperationName.videoGenerate]: operationOf(VideoGenerateInput, { vendor: generateForVendor }),
  [OperationName.videoLipsync]: operationOf(LipsyncInput, { vendor: lipsyncForVendor }),
  [OperationName.videoMotion]: operationOf(MotionInput, { vendor: motionForVendor }),
  [OperationName.videoReference]: operationOf(ReferenceInput, { vendor: referenceForVendor }),
  [OperationName.videoTalkingHead]: operationOf(TalkingHeadInput, {
    vendor: talkingHeadForVendor,
    prepare: prepareTalkingHead,
  }),
  [OperationName.videoUpscale]: operationOf(UpscaleInput, { vendor: upscaleForVendor }),
  [OperationName.videoLora]: operationOf(LoraInput, { vendor: loraForVendor }),
};
