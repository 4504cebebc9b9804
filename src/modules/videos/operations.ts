import { FIXED_ROUTES } from '../../catalog/routes.ts';
import type { ExecutableItem, ExecutionContext, Operation, VendorWork } from '../../engine/types.ts';
import type { LipsyncInput, LoraInput, MotionInput, UpscaleInput, VideoGenerateInput } from './inputs.ts';
import { LORA_VIDEO_MODEL } from './schemas.ts';

const seedOf = (item: ExecutableItem): number => Number(item.input.seed ?? 0);

/** The routes of the model `id` in one list of the media catalog (none when it has no entry). */
function routesOf(list: ReadonlyArray<{ id: string; routes: VendorWork['routes'] }>, id: string | null) {
  return list.find((m) => m.id === id)?.routes ?? [];
}

/**
 * videos/generate for a vendor: text-to-video, or image-to-video from the first frame. The provider
 * family's `settings.provider` keeps the routes of that provider only (none configured: simulated).
 */
const generateForVendor = (ctx: ExecutionContext, item: ExecutableItem): VendorWork => {
  const req = item.request as VideoGenerateInput;
  const routes = routesOf(ctx.media.video, item.model);
  return {
    routes: req.family ? routes.filter((r) => r.provider === req.family?.provider) : routes,
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
    },
    expects: 'video',
  };
};

/** videos/lipsync for a vendor: the video and the audio to sync its lips to. */
const lipsyncForVendor = (ctx: ExecutionContext, item: ExecutableItem): VendorWork => {
  const req = item.request as LipsyncInput;
  return {
    routes: routesOf(ctx.media.lipsync, item.model),
    request: { kind: 'lipsync', videoUrl: req.video_url, audioUrl: req.audio_url },
    expects: 'video',
  };
};

/** videos/motion-control for a vendor: the reference's motion onto the image's character. */
const motionForVendor = (_ctx: ExecutionContext, item: ExecutableItem): VendorWork => {
  const req = item.request as MotionInput;
  return {
    routes: FIXED_ROUTES[item.model ?? ''] ?? [],
    request: {
      kind: 'motion',
      imageUrl: req.image_url,
      videoUrl: req.video_url,
      orientation: req.orientation === 'video' ? 'video' : 'image',
      prompt: req.prompt,
    },
    expects: 'video',
  };
};

/** The upscale endpoints for a vendor: the factor, frame rate and the upscaler's own model. */
const upscaleForVendor = (ctx: ExecutionContext, item: ExecutableItem): VendorWork => {
  const req = item.request as UpscaleInput;
  return {
    routes: routesOf(ctx.media.upscalers, item.model),
    request: {
      kind: 'upscale',
      videoUrl: req.video_url,
      factor: req.factor,
      targetFps: req.target_fps,
      model: req.video_model,
      h264: req.h264_output ?? false,
    },
    expects: 'video',
  };
};

/** The LoRA video endpoint for a vendor: its sampling settings as given, the LoRAs per transformer. */
const loraForVendor = (_ctx: ExecutionContext, item: ExecutableItem): VendorWork => {
  const req = item.request as LoraInput;
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
    },
    expects: 'video',
  };
};

/** The video operations (reference-to-video and talking heads run on the simulator for now). */
export const videoOperations: Record<string, Operation> = {
  'video.generate': { vendor: generateForVendor },
  'video.lipsync': { vendor: lipsyncForVendor },
  'video.motion': { vendor: motionForVendor },
  'video.reference': {},
  'video.talking_head': {},
  'video.upscale': { vendor: upscaleForVendor },
  'video.lora': { vendor: loraForVendor },
};
