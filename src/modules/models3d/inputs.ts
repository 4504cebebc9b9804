// The normalised request of 3D generation, as its plan stores it and as whatever serves it reads it.
import { type Static, Type } from 'typebox';

export const Model3dInput = Type.Object({
  prompt: Type.String(),
  init_image: Type.Union([Type.String(), Type.Null()]),
  mode: Type.Enum(['preview', 'full']),
  art_style: Type.String(),
  topology: Type.Enum(['triangle', 'quad']),
  target_polycount: Type.Integer(),
  symmetry: Type.Enum(['auto', 'on', 'off']),
  t_pose: Type.Boolean(),
  pbr: Type.Boolean(),
  prompt_expansion: Type.Boolean(),
});
export type Model3dInput = Static<typeof Model3dInput>;
