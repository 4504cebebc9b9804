// The simulator's influencer training (a reference sheet) and influencer videos.

import { dimensionsFor } from '../../../catalog/image-sizes.ts';
import { PRESET_VOICES, type VoiceProfile } from '../../../catalog/voices.ts';
import type { TrainInput, VideoInput } from '../../../modules/influencers/inputs.ts';
import { type Simulation, type SimulatorContext, simulateProviderCall } from '../common.ts';
import { renderImage } from '../images.ts';
import { synthesizeSpeech } from '../speech.ts';
import { renderVideo, videoDimensions } from '../video.ts';

/** Training builds the influencer's reference sheet from the face and best full-body images. */
const train: Simulation = async (ctx, item) => {
  const r = item.request as TrainInput;
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

async function renderFrame(ctx: SimulatorContext, r: VideoInput, which: 'opening' | 'closing', model: string) {
  const references = await Promise.all(r.references.map((u) => ctx.fetchMedia(u)));
  const { width, height } = videoDimensions(r.aspect_ratio, '720p');
  return renderImage({ prompt: r.shot[which], seed: which === 'opening' ? 0 : 1, width, height, model, references });
}

/**
 * The three parts of an influencer video: the planned opening and closing frames, and the video
 * between them with its audio; with a voice the audio is spoken in (converted to) that voice.
 */
const video: Simulation = async (ctx, item) => {
  const r = item.request as VideoInput;
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

/** The simulator's runs of these operations. */
export const influencerSimulations: Record<string, Simulation> = {
  'influencer.train': train,
  'influencer.video': video,
};
