import { dimensionsFor } from '../../catalog/image-sizes.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import { FIXED_ROUTES, INFLUENCER_MODEL_ROUTES } from '../../catalog/routes.ts';
import { PRESET_VOICES } from '../../catalog/voices.ts';
import { operationOf } from '../../engine/operation.ts';
import type { ExecutableItem, ExecutionContext, LocalFile, Operation, VendorWork } from '../../engine/types.ts';
import { WorkError } from '../../lib/errors.ts';
import { AAC_OUTPUT_ARGS, probeMedia, readOutput, runFfmpeg, tempInput, withTempDir } from '../../lib/ffmpeg.ts';
import type { InfluencerScene } from '../../providers/types.ts';
import { renderImage } from '../../render/images.ts';
import { readStored } from '../../storage/read.ts';
import { needSpeech } from '../speech/speak.ts';
import { TrainInput, VideoInput } from './inputs.ts';
import { selectVideoFrames, setTrainingStatus } from './sql.ts';

// Without a voice of its own, an influencer speaks with the first preset voice (as the simulator does).
const DEFAULT_VOICE = PRESET_VOICES[0] as (typeof PRESET_VOICES)[number];
// The longest clip the influencer video route makes; a longer dialog holds the last frame.
const MAX_VENDOR_SECONDS = 12;
// How long the video part waits before it looks for its frames again.
const FRAMES_WAIT_MS = 2000;

/**
 * An influencer video's parts for a vendor: its opening and closing frames through the influencer
 * image route (the face and references composed), then the video between them (their URLs are
 * filled in by `prepareVideo`, once the frames exist).
 */
const videoForVendor = (_ctx: ExecutionContext, item: ExecutableItem<VideoInput>): VendorWork | undefined => {
  const r = item.request;
  const part = item.input.part;
  const scene: InfluencerScene = {
    prompt: r.prompt,
    dialog: r.dialog,
    opening: r.shot.opening,
    closing: r.shot.closing,
    motion: r.shot.motion,
    references: r.references,
    aspectRatio: r.aspect_ratio,
    durationSeconds: r.duration,
    voice: r.voice ? { id: r.voice.id, profile: r.voice.profile } : null,
  };
  if (part === 'first_frame' || part === 'last_frame') {
    return {
      routes: INFLUENCER_MODEL_ROUTES.routes,
      request: {
        kind: 'image',
        prompt: r.shot[part === 'first_frame' ? 'opening' : 'closing'],
        negativePrompt: null,
        size: dimensionsFor(r.aspect_ratio),
        aspectRatio: r.aspect_ratio,
        steps: 28,
        seed: part === 'first_frame' ? 0 : 1,
        references: r.references,
        lora: null,
        scene,
      },
      expects: 'image',
    };
  }
  if (part !== 'video') return undefined;
  return {
    routes: FIXED_ROUTES['influencer-video'] ?? [],
    request: {
      kind: 'video',
      prompt: `${r.prompt}; ${r.shot.motion}`,
      negativePrompt: null,
      aspectRatio: r.aspect_ratio,
      durationSeconds: Math.min(r.duration, MAX_VENDOR_SECONDS),
      resolution: '720p',
      fps: 24,
      seed: null,
      // The frames' URLs, once they exist (prepareVideo).
      firstFrame: '',
      lastFrame: '',
      audio: false,
      loras: [],
      scene,
    },
    expects: 'video',
  };
};

/**
 * Training draws the influencer's reference sheet from its face and best full-body images: the
 * service's own work, which no vendor serves.
 */
const drawReferenceSheet = async (ctx: ExecutionContext, item: ExecutableItem<TrainInput>): Promise<LocalFile> => {
  const r = item.request;
  const references = await Promise.all([r.face_image, r.best_full_image].map((url) => ctx.fetchMedia(url)));
  const { width, height } = dimensionsFor('3:2');
  return renderImage({
    prompt: `${r.name} reference sheet`,
    seed: 0,
    width,
    height,
    model: item.model ?? '',
    references,
    variant: 'reference-sheet',
  });
};

/** The dialog (or the prompt) in the influencer's voice: the video part's speech sub-work. */
const videoSpeech = (ctx: ExecutionContext, item: ExecutableItem<VideoInput>) => {
  const r = item.request;
  return needSpeech(ctx, item, {
    voice_id: r.voice?.id ?? DEFAULT_VOICE.id,
    profile: r.voice?.profile ?? DEFAULT_VOICE.profile,
    vendor_voice: r.voice?.vendor ?? null,
    text: r.dialog ?? r.prompt,
    language: 'en',
    speed: 1,
    volume: 1,
    emotion: 'neutral',
    format: 'wav',
  });
};

/**
 * The video part starts from the frames the other two parts made (their stored URLs), once its
 * speech is made too.
 */
const prepareVideo = async (
  ctx: ExecutionContext,
  item: ExecutableItem<VideoInput>,
  work: VendorWork,
): Promise<VendorWork> => {
  if (work.request.kind !== 'video') return work;
  // Asked for first, the speech is spoken while the frames are drawn.
  await videoSpeech(ctx, item);
  const frames = await selectVideoFrames(ctx.pool, item.generationId);
  const url = (part: string) => frames.find((f) => f.part === part && f.status === 'COMPLETED')?.url ?? null;
  const [first, last] = [url('first_frame'), url('last_frame')];
  if (!first || !last) {
    const failed = frames.some((f) => f.status === 'FAILED');
    // Frames still being made: the item waits for them (its job runs again shortly).
    if (failed) throw new WorkError('The frames of this video could not be made', false, { kind: 'internal' });
    throw new WorkError('The frames of this video are not ready yet', true, { retryAfterMs: FRAMES_WAIT_MS });
  }
  return { ...work, request: { ...work.request, firstFrame: first, lastFrame: last } };
};

/**
 * The dialog (or the prompt) spoken in the influencer's voice (the speech made before the submit)
 * becomes the video's sound (the voice conversion): the vendor's video is held on its last frame
 * while the speech runs longer.
 */
const voiceVideo = async (ctx: ExecutionContext, item: ExecutableItem<VideoInput>, key: string) => {
  const r = item.request;
  const video = await readStored(ctx.storage, key);
  if (!video) throw new WorkError('The video to voice is missing', false);
  const speech = await ctx.fetchMedia((await videoSpeech(ctx, item)).url);
  const spoken = (await probeMedia(speech)).durationSeconds;
  const voiced = await withTempDir(async (dir) => {
    const videoPath = await tempInput(dir, 'video.mp4', video);
    const audio = await tempInput(dir, 'speech.wav', speech);
    const { durationSeconds } = await probeMedia(video);
    const hold = Math.max(0, spoken - durationSeconds);
    const output = `${dir}/voiced.mp4`;
    await runFfmpeg([
      '-i',
      videoPath,
      '-i',
      audio,
      '-map',
      '0:v:0',
      '-map',
      '1:a:0',
      ...(hold > 0
        ? ['-vf', `tpad=stop_mode=clone:stop_duration=${hold.toFixed(3)}`, '-c:v', 'libx264', '-pix_fmt', 'yuv420p']
        : ['-c:v', 'copy']),
      ...AAC_OUTPUT_ARGS,
      '-af',
      'apad',
      '-shortest',
      '-movflags',
      '+faststart',
      output,
    ]);
    return readOutput(output, 'voicing the influencer video');
  });
  await ctx.storage.put(key, voiced, 'video/mp4');
  return { has_voice_conversion: r.voice !== null, voice_id: r.voice?.id ?? null };
};

/** Influencer training and videos. */
export const influencerOperations: Record<string, Operation> = {
  [OperationName.influencerTrain]: operationOf(TrainInput, {
    local: drawReferenceSheet,
    // The influencer's face and references: its later images and videos are made from them.
    keepsResults: true,
    onCompleted: async (db, done) => {
      await setTrainingStatus(db, done.item.request.influencer_id, 'completed');
    },
    onFailed: async (db, item) => {
      await setTrainingStatus(db, item.request.influencer_id, 'failed');
    },
  }),
  [OperationName.influencerVideo]: operationOf(VideoInput, {
    vendor: videoForVendor,
    // first_frame_url and last_frame_url are in the answer that accepts it.
    resultUrlsAtAccept: true,
    prepare: prepareVideo,
    finishFile: async (ctx, item, key) => (item.input.part === 'video' ? voiceVideo(ctx, item, key) : {}),
  }),
};
