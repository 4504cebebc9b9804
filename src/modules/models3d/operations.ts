import type { Executor, Operation } from '../../engine/types.ts';
import { simulateProviderCall } from '../../providers/simulator/common.ts';
import { renderGlb } from '../../providers/simulator/model3d.ts';

interface Model3dInput {
  prompt: string;
  init_image: string | null;
  mode: 'preview' | 'full';
  art_style: string;
  topology: 'triangle' | 'quad';
  target_polycount: number;
  symmetry: 'auto' | 'on' | 'off';
  t_pose: boolean;
  pbr: boolean;
}

const generate: Executor = async (ctx, item) => {
  const r = item.request as unknown as Model3dInput;
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

/** 3D model generation. */
export const model3dOperations: Record<string, Operation> = {
  'model3d.generate': { execute: generate },
};
