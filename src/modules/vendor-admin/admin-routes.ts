import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { Attempt, GenerationParams, ProviderSummary, ProvidersQuery } from './schemas.ts';
import { listAttempts, listProviders } from './service.ts';

export default async function providerAdminRoutes(app: App): Promise<void> {
  const tags = ['Admin'];

  app.get(
    '/admin/v1/providers',
    {
      schema: {
        tags,
        summary: 'List the providers, the models each serves and the routes cooling down',
        querystring: ProvidersQuery,
        response: { 200: Type.Array(ProviderSummary), ...errorResponses(400, 401) },
      },
    },
    (request) => listProviders(app.deps, { check: request.query.check ?? false }),
  );

  app.get(
    '/admin/v1/generations/:generation_id/attempts',
    {
      schema: {
        tags,
        summary: "List every vendor attempt of a generation's items",
        params: GenerationParams,
        response: { 200: Type.Array(Attempt), ...errorResponses(400, 401, 404) },
      },
    },
    (request) => listAttempts(app.deps, request.params.generation_id),
  );
}
