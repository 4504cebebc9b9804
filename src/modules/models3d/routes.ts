import type { App } from '../../app-types.ts';
import { acceptedWithCredits } from '../../engine/accepted.ts';
import { defineGenerationEndpoint } from '../../engine/define.ts';
import { Model3dBody, Model3dResponse, planModel3d } from './service.ts';

export default async function model3dRoutes(app: App): Promise<void> {
  defineGenerationEndpoint(app, {
    url: '/api/v1/models-3d/generate',
    tags: ['3D models'],
    summary: 'Generate a 3D model (GLB)',
    description:
      'Asynchronous. model_url is the GLB’s final URL (it answers once the generation has completed). Its face count ' +
      "is within 10% of target_polycount; 'quad' topology counts quads. should_remesh false keeps the raw " +
      'triangle mesh (topology and polycount are then not applied). Costs the model’s preview or full price.',
    body: Model3dBody,
    response: Model3dResponse,
    errors: [403, 404],
    plan: planModel3d,
    respond: (created) => acceptedWithCredits(created, { model_url: created.resultUrl(0, 'glb') }),
  });
}
