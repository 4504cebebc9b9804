// The simulator's 3D models.

import { OperationName } from '../../../catalog/operation-names.ts';
import { renderGlb } from '../../../render/model3d.ts';
import { type Simulation, simulateProviderCall, simulationFor } from '../common.ts';

const generate = simulationFor('model3d', async (ctx, item, r) => {
  await simulateProviderCall([r.prompt], ctx.simulatorDelayMs, ctx.signal);
  const reference = r.imageUrl ? await ctx.fetchMedia(r.imageUrl) : undefined;
  const { faces, triangles, ...file } = await renderGlb({
    prompt: r.prompt,
    seed: 0,
    model: item.model ?? '',
    targetPolycount: r.targetPolycount,
    topology: r.topology,
    symmetry: r.symmetry,
    artStyle: r.artStyle,
    pbr: r.pbr,
    mode: r.mode,
    tPose: r.tPose,
    reference,
  });
  return { ...file, metadata: { faces, triangles, topology: r.topology } };
});

/** The simulator's runs of these operations. */
export const model3dSimulations: Record<string, Simulation> = {
  [OperationName.model3dGenerate]: generate,
};
