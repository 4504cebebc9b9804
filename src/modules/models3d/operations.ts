import type { Operation } from '../../engine/types.ts';

/** 3D model generation. */
export const model3dOperations: Record<string, Operation> = {
  'model3d.generate': {},
};
