import { OperationName } from '../../catalog/operation-names.ts';
import { operationOf } from '../../engine/operation.ts';
import type { ExecutableItem, ExecutionContext, Operation, VendorWork } from '../../engine/types.ts';
import { Model3dInput } from './inputs.ts';

/** 3D generation for a vendor: from the prompt, or from the image when one is given. */
const model3dForVendor = (ctx: ExecutionContext, item: ExecutableItem<Model3dInput>): VendorWork => {
  const req = item.request;
  return {
    routes: ctx.media.model_3d.find((m) => m.id === item.model)?.routes ?? [],
    request: {
      kind: 'model3d',
      prompt: req.prompt,
      imageUrl: req.init_image,
      mode: req.mode,
      artStyle: req.art_style,
      topology: req.topology,
      targetPolycount: req.target_polycount,
      symmetry: req.symmetry,
      tPose: req.t_pose,
      pbr: req.pbr,
      promptExpansion: req.prompt_expansion,
      // 3D requests take no seed: the vendor draws its own.
      seed: null,
    },
    expects: 'model',
  };
};

/** 3D model generation. */
export const model3dOperations: Record<string, Operation> = {
  // model_url is in the answer that accepts it.
  [OperationName.model3dGenerate]: operationOf(Model3dInput, { vendor: model3dForVendor, resultUrlsAtAccept: true }),
};
