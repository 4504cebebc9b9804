// The rules and prices of this module's generation requests: each plan turns a validated
// request into the work to charge for and run.

import type { Static } from 'typebox';
import { Type } from 'typebox';
import type { Deps } from '../../app-types.ts';
import { lookupModel } from '../../catalog/lookup.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { invalidField } from '../../lib/errors.ts';
import { AsyncAccepted, Prompt, Url, Webhook } from '../../lib/fields.ts';
import { WorkspaceIdField } from '../workspaces/schemas.ts';
import type { Model3dInput } from './inputs.ts';

export const Model3dBody = Type.Object({
  prompt: Prompt,
  init_image: Type.Optional(Url('Image-to-3D')),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  settings: Type.Optional(
    Type.Object({
      mode: Type.Optional(Type.Enum(['preview', 'full'], { description: "Default 'full'" })),
      art_style: Type.Optional(Type.Enum(['realistic', 'sculpture'], { description: "Default 'realistic'" })),
      topology: Type.Optional(
        Type.Enum(['triangle', 'quad'], { description: "Default 'triangle'; 'quad' for rigging" }),
      ),
      target_polycount: Type.Optional(Type.Integer({ minimum: 1000, maximum: 100_000, description: 'Default 30000' })),
      symmetry_mode: Type.Optional(Type.Enum(['auto', 'on', 'off'], { description: "Default 'auto'" })),
      should_remesh: Type.Optional(Type.Boolean({ description: 'Default true' })),
      is_a_t_pose: Type.Optional(Type.Boolean({ description: 'Default false' })),
      enable_pbr: Type.Optional(Type.Boolean({ description: 'Default false' })),
      enable_prompt_expansion: Type.Optional(Type.Boolean({ description: 'Default false' })),
    }),
  ),
  webhook: Type.Optional(Webhook),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const Model3dResponse = Type.Object({
  ...AsyncAccepted,
  model_url: Type.String({ format: 'uri', description: 'Where the GLB will be once the generation completes' }),
  credits_used: Type.Number(),
});

export function planModel3d({ media }: Deps, body: Static<typeof Model3dBody>): GenerationPlan {
  const model = lookupModel(media.model_3d, body.model, '3D');
  if (body.init_image && !model.capabilities.image_to_3d) {
    throw invalidField('init_image', `model ${model.id} does not do image-to-3D`);
  }
  if (!body.init_image && !model.capabilities.text_to_3d) {
    throw invalidField('init_image', `model ${model.id} needs init_image (image-to-3D only)`);
  }
  const s = body.settings ?? {};
  if (s.enable_pbr && !model.capabilities.pbr)
    throw invalidField('settings.enable_pbr', `model ${model.id} has no PBR textures`);
  const mode = s.mode ?? 'full';
  const remesh = s.should_remesh ?? true;
  return {
    operation: OperationName.model3dGenerate,
    model: model.id,
    input: {
      prompt: body.prompt,
      init_image: body.init_image ?? null,
      mode,
      art_style: s.art_style ?? 'realistic',
      topology: remesh ? (s.topology ?? 'triangle') : 'triangle',
      target_polycount: remesh ? (s.target_polycount ?? 30_000) : 30_000,
      symmetry: s.symmetry_mode ?? 'auto',
      t_pose: s.is_a_t_pose ?? false,
      pbr: s.enable_pbr ?? false,
      prompt_expansion: s.enable_prompt_expansion ?? false,
    } satisfies Model3dInput,
    items: [{ type: 'model', price: mode === 'preview' ? model.price.preview : model.price.full }],
    estimatedSeconds: model.estimated_seconds,
    webhookUrl: body.webhook ?? null,
    urls: body.init_image ? [{ field: 'init_image', url: body.init_image }] : [],
  };
}
