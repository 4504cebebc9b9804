// Routes an operator adds by configuration: catalog models served by their own ComfyUI, first in
// each model's routes (their own GPUs before any paid vendor), with the workflow a route names.
import type { MediaCatalog } from './media-models.ts';
import type { ModelCatalog, ModelRoute } from './models.ts';

/** The workflows COMFYUI_MODELS names for one model: without images, and from images. */
export interface ComfyModelWorkflows {
  workflow?: string;
  image_workflow?: string;
}

/**
 * Puts a ComfyUI route first in the routes of each model COMFYUI_MODELS names (`kind:model` →
 * workflows): the image mapping for image, edit and face models, the video mapping for video
 * models. A workflow for requests without images (`workflow`) and one for requests that bring
 * images (`image_workflow`): a request of the kind a model has no workflow for takes its other
 * routes. Throws, naming the setting, for a model or workflow that does not exist.
 */
export function addComfyRoutes(
  catalog: ModelCatalog,
  media: MediaCatalog,
  models: Record<string, ComfyModelWorkflows>,
  workflows: readonly string[],
): void {
  for (const [key, chosen] of Object.entries(models)) {
    const [kind = '', id = ''] = key.split(':');
    const model =
      kind === 'video' ? media.video.find((m) => m.id === id) : catalog.find(kind as 'image' | 'edit' | 'face', id);
    if (!model)
      throw new Error(`Invalid configuration:\n  COMFYUI_MODELS: "${key}" is not a ${kind} model of the catalog`);
    for (const name of [chosen.workflow, chosen.image_workflow]) {
      if (name !== undefined && !workflows.includes(name)) {
        throw new Error(
          `Invalid configuration:\n  COMFYUI_MODELS: "${key}" names the workflow "${name}", which is not one of ${workflows.join(', ') || '(none)'}`,
        );
      }
    }
    const mapping = kind === 'video' ? 'video' : 'image';
    const route: ModelRoute = {
      provider: 'comfyui',
      endpoint: chosen.workflow ?? chosen.image_workflow ?? '',
      ...(chosen.workflow ? { mapping } : {}),
      ...(chosen.image_workflow ? { image_endpoint: chosen.image_workflow, image_mapping: mapping } : {}),
    };
    model.routes.unshift(route);
  }
}
