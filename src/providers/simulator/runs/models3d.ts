// The simulator's 3D models.

import type { Model3dInput } from '../../../modules/models3d/inputs.ts';
import { type Simulation, simulateProviderCall } from '../common.ts';
import { renderGlb } from '../model3d.ts';

const generate: Simulation = async (ctx, item) => {
  const r = item.request as Model3dInput;
  await simulateProviderCall([r.prompt], ctx.simulatorDelayMs, ctx.signal);
  const reference = r.init_image ? await ctx.fetchMedia(r.init_image) : undefined;
  const { faces, triangles, ...file } = await renderGlb({
    prompt: r.prompt,
    seed: 0,
    model: item.model ?? '',
    targetPolycount: r.target_polycount,
    topology: r.topology,
    symmetry: r.symmetry,
    artStyle: r.art_style,
    pbr: r.pbr,
    mode: r.mode,
    tPose: r.t_pose,
    reference,
  });
  return { ...file, metadata: { faces, triangles, topology: r.topology } };
};

/** The simulator's runs of these operations. */
export const model3dSimulations: Record<string, Simulation> = {
  'model3d.generate': generate,
};
