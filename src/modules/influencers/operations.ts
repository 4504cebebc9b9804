import { PRESET_VOICES, type VoiceProfile } from '../../catalog/voices.ts';
import type { Executor, Operation } from '../../engine/types.ts';
import { simulateProviderCall } from '../../providers/simulator/common.ts';
import { dimensionsFor, renderImage } from '../../providers/simulator/images.ts';
import { synthesizeSpeech } from '../../providers/simulator/speech.ts';
import { renderVideo, videoDimensions } from '../../providers/simulator/video.ts';
import { setTrainingStatus } from './sql.ts';

interface TrainInput {
  influencer_id: string;
  name: string;
  face_image: string;
  best_full_image: string;
}

/** Training builds the influencer's reference sheet from the face and best full-body images. */
const train: Executor = async (ctx, item) => {
  const r = item.request as unknown as TrainInput;
  await simulateProviderCall([r.name], ctx.simulatorDelayMs, ctx.signal);
  const references = await Promise.all([ctx.fetchMedia(r.face_image), ctx.fetchMedia(r.best_full_image)]);
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

interface VideoInput {
  prompt: string;
  dialog: string | null;
  shot: { opening: string; closing: string; motion: string };
  references: string[];
  aspect_ratio: '16:9' | '9:16';
  duration: number;
  voice: { id: string; profile: VoiceProfile } | null;
}

async function renderFrame(ctx: Parameters<Executor>[0], r: VideoInput, which: 'opening' | 'closing', model: string) {
  const references = await Promise.all(r.references.map((u) => ctx.fetchMedia(u)));
  const { width, height } = videoDimensions(r.aspect_ratio, '720p');
  return renderImage({ prompt: r.shot[which], seed: which === 'opening' ? 0 : 1, width, height, model, references });
}

/**
 * The three parts of an influencer video: the planned opening and closing frames, and the video
 * between them with its audio; with a voice the audio is spoken in (converted to) that voice.
 */
const video: Executor = async (ctx, item) => {
  const r = item.request as unknown as VideoInput;
  const part = item.input.part;
  await simulateProviderCall([r.prompt, r.dialog], ctx.simulatorDelayMs, ctx.signal);
  const model = item.model ?? '';
  if (part === 'first_frame') return renderFrame(ctx, r, 'opening', model);
  if (part === 'last_frame') return renderFrame(ctx, r, 'closing', model);
  // The frames are deterministic: rendering them again gives exactly the stored ones.
  const [first, last] = await Promise.all([
    renderFrame(ctx, r, 'opening', model),
    renderFrame(ctx, r, 'closing', model),
  ]);
  const profile = r.voice?.profile ?? (PRESET_VOICES[0]?.profile as VoiceProfile);
  const speech = await synthesizeSpeech(r.dialog ?? r.prompt, profile, { format: 'wav' });
  const { width, height } = videoDimensions(r.aspect_ratio, '720p');
  const file = await renderVideo({
    prompt: `${r.prompt}; ${r.shot.motion}`,
    seed: 0,
    model,
    width,
    height,
    durationSeconds: r.duration,
    fps: 24,
    startFrame: first.data,
    endFrame: last.data,
    audio: speech.data,
  });
  return { ...file, metadata: { has_voice_conversion: r.voice !== null, voice_id: r.voice?.id ?? null } };
};

/** Influencer training and videos. */
export const influencerOperations: Record<string, Operation> = {
  'influencer.train': {
    execute: train,
    onCompleted: async (db, done) => {
      await setTrainingStatus(db, String((done.item.request as unknown as TrainInput).influencer_id), 'completed');
    },
    onFailed: async (db, item) => {
      await setTrainingStatus(db, String((item.request as unknown as TrainInput).influencer_id), 'failed');
    },
  },
  'influencer.video': { execute: video },
};
