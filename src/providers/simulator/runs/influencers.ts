// The simulator's influencer training (a reference sheet) and influencer videos.

import { dimensionsFor } from '../../../catalog/image-sizes.ts';
import { PRESET_VOICES, type VoiceProfile } from '../../../catalog/voices.ts';
import { renderImage } from '../../../render/images.ts';
import { synthesizeSpeech } from '../../../render/speech.ts';
import { renderVideo, videoDimensions } from '../../../render/video.ts';
import type { InfluencerScene } from '../../types.ts';
import { needed, type Simulation, type SimulatorContext, simulateProviderCall, simulationFor } from '../common.ts';

/** Training builds the influencer's reference sheet from the face and best full-body images. */
const train = simulationFor('image', async (ctx, item, r) => {
  await simulateProviderCall([r.prompt], ctx.simulatorDelayMs, ctx.signal);
  const references = await Promise.all(r.references.map((u) => ctx.fetchMedia(u)));
  const { width, height } = r.size ?? dimensionsFor(r.aspectRatio);
  return renderImage({
    prompt: r.prompt,
    seed: r.seed,
    width,
    height,
    model: item.model ?? '',
    references,
    variant: 'reference-sheet',
  });
});

async function renderFrame(ctx: SimulatorContext, scene: InfluencerScene, which: 'opening' | 'closing', model: string) {
  const references = await Promise.all(scene.references.map((u) => ctx.fetchMedia(u)));
  const { width, height } = videoDimensions(scene.aspectRatio, '720p');
  return renderImage({ prompt: scene[which], seed: which === 'opening' ? 0 : 1, width, height, model, references });
}

/**
 * The three parts of an influencer video: the planned opening and closing frames, and the video
 * between them with its audio; with a voice the audio is spoken in (converted to) that voice.
 */
const video: Simulation = async (ctx, item, request) => {
  const part = item.input.part;
  const carried = request?.kind === 'image' || request?.kind === 'video' ? request.scene : undefined;
  const scene = needed(carried, 'influencer scene');
  await simulateProviderCall([scene.prompt, scene.dialog], ctx.simulatorDelayMs, ctx.signal);
  const model = item.model ?? '';
  if (part === 'first_frame') return renderFrame(ctx, scene, 'opening', model);
  if (part === 'last_frame') return renderFrame(ctx, scene, 'closing', model);
  // The frames are deterministic: rendering them again gives exactly the stored ones.
  const [first, last] = await Promise.all([
    renderFrame(ctx, scene, 'opening', model),
    renderFrame(ctx, scene, 'closing', model),
  ]);
  const profile = scene.voice?.profile ?? (PRESET_VOICES[0]?.profile as VoiceProfile);
  const speech = await synthesizeSpeech(scene.dialog ?? scene.prompt, profile, { format: 'wav' });
  const { width, height } = videoDimensions(scene.aspectRatio, '720p');
  const file = await renderVideo({
    prompt: `${scene.prompt}; ${scene.motion}`,
    seed: 0,
    model,
    width,
    height,
    durationSeconds: scene.durationSeconds,
    fps: 24,
    startFrame: first.data,
    endFrame: last.data,
    audio: speech.data,
  });
  return { ...file, metadata: { has_voice_conversion: scene.voice !== null, voice_id: scene.voice?.id ?? null } };
};

/** The simulator's runs of these operations. */
export const influencerSimulations: Record<string, Simulation> = {
  'influencer.train': train,
  'influencer.video': video,
};
