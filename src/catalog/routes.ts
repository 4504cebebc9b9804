// Every catalog model with the routes that may serve it, across the image and media catalogs:
// what the operator's view of the providers (GET /admin/v1/providers) is built from.
import { readFileSync } from 'node:fs';
import { type Static, Type } from 'typebox';
import Value from 'typebox/value';
import type { MediaCatalog } from './media-models.ts';
import { type ModelCatalog, type ModelRoute, RoutesSchema } from './models.ts';

/** The in-house influencer model and the routes that may serve its images. */
export const INFLUENCER_MODEL_ROUTES: { id: string; routes: ModelRoute[] } = JSON.parse(
  readFileSync(new URL('./models/influencer-model.json', import.meta.url), 'utf8'),
);

const EndpointModel = Type.Object({
  kind: Type.String({ minLength: 1, description: 'What it makes (video, speech), as the catalogs are named' }),
  operation: Type.String({ minLength: 1, description: 'The endpoint that names it' }),
  routes: RoutesSchema,
});

/**
 * The models that endpoints name themselves, outside the catalog's lists (motion control, the
 * LoRA video model, influencer videos, text to speech), by model id; checked at start.
 */
export const ENDPOINT_MODELS: Readonly<Record<string, Static<typeof EndpointModel>>> = loadEndpointModels();

/** The routes of those models, by model id. */
export const FIXED_ROUTES: Readonly<Record<string, ModelRoute[]>> = Object.fromEntries(
  Object.entries(ENDPOINT_MODELS).map(([id, model]) => [id, model.routes]),
);

function loadEndpointModels(): Record<string, Static<typeof EndpointModel>> {
  const data: unknown = JSON.parse(readFileSync(new URL('./models/endpoint-routes.json', import.meta.url), 'utf8'));
  const schema = Type.Record(Type.String(), EndpointModel);
  if (!Value.Check(schema, data)) {
    const first = [...Value.Errors(schema, data)][0];
    throw new Error(`Model catalog endpoint-routes.json: invalid at ${first?.instancePath}: ${first?.message}`);
  }
  return data as Record<string, Static<typeof EndpointModel>>;
}

/** The routes of a list that may be used: those the operator has not switched off (`enabled: false`). */
export function enabledRoutes<T extends { enabled?: boolean }>(routes: readonly T[]): T[] {
  return routes.filter((route) => route.enabled !== false);
}

export interface ModelRoutes {
  /** The catalog the model is in (image, edit, face, video, music, ...): ids repeat across them. */
  kind: string;
  model: string;
  routes: readonly ModelRoute[];
  /** The endpoint that names the model, for the models outside the catalog's lists. */
  operation?: string;
}

/** Every model of both catalogs with its routes in order of preference. */
export function catalogRoutes(catalog: ModelCatalog, media: MediaCatalog): ModelRoutes[] {
  const out: ModelRoutes[] = [];
  for (const kind of ['image', 'edit', 'face'] as const) {
    for (const model of catalog[kind]) out.push({ kind, model: model.id, routes: model.routes });
  }
  out.push({ kind: 'influencer', model: INFLUENCER_MODEL_ROUTES.id, routes: INFLUENCER_MODEL_ROUTES.routes });
  for (const [model, { kind, operation, routes }] of Object.entries(ENDPOINT_MODELS)) {
    out.push({ kind, model, routes, operation });
  }
  for (const [kind, list] of Object.entries(media)) {
    for (const entry of list as Array<{ id: string; routes?: ModelRoute[] }>) {
      if (entry.routes) out.push({ kind, model: entry.id, routes: entry.routes });
    }
  }
  return out;
}
