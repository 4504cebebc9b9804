// The simulator's influencer videos: their frames and the video between them.

import { OperationName } from '../../../catalog/operation-names.ts';
import { renderImage } from '../../../render/images.ts';
import { renderVideo, videoDimensions } from '../../../render/video.ts';
import { requestOfKind } from '../../mapping.ts';
import type { InfluencerScene } from '../../types.ts';
import { needed, type Simulation, type SimulatorContext, simulateProviderCall } from '../common.ts';

async function renderFrame(ctx: SimulatorContext, scene: InfluencerScene, which: 'opening' | 'closing', model: string) {
  const references = await Promise.all(scene.references.map((u) => ctx.fetchMedia(u)));
  const { width, height } = videoDimensions(scene.aspectRatio, '720p');
  return renderImage({ prompt: scene[which], seed: which === 'opening' ? 0 : 1, width, height, model, references });
}

/**
 * The three parts of an influencer video, as the vendor routes make them: the opening and closing
 * frames from the scene, then the silent video between the stored frames (the operation voices it).
 */
const video: Simulation = async (ctx, item, request) => {
  const model = item.model ?? '';
  if (request?.kind === 'image') {
    const scene = needed(request.scene, 'influencer scene');
    await simulateProviderCall([scene.prompt, scene.dialog], ctx.simulatorDelayMs, ctx.signal);
    return renderFrame(ctx, scene, item.input.part === 'last_frame' ? 'closing' : 'opening', model);
  }
  const r = requestOfKind(request, 'video', "The simulator's influencer video");
  const scene = needed(r.scene, 'influencer scene');
  await simulateProviderCall([scene.prompt, scene.dialog], ctx.simulatorDelayMs, ctx.signal);
  const [first, last] = await Promise.all(
    [r.firstFrame, r.lastFrame].map((url) => ctx.fetchMedia(needed(url ?? undefined, 'frames'))),
  );
  const { width, height } = videoDimensions(scene.aspectRatio, '720p');
  return renderVideo({
    prompt: r.prompt,
    seed: 0,
    model,
    width,
    height,
    durationSeconds: r.durationSeconds,
    fps: r.fps,
    startFrame: first,
    endFrame: last,
  });
};

/** The simulator's runs of these operations. */
export const influencerSimulations: Record<string, Simulation> = {
  [OperationName.influencerVideo]: video,
};
