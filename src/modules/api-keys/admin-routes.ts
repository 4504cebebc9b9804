import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { TeamParams } from '../teams/schemas.ts';
import { ApiKey, CreateApiKeyBody, CreatedApiKey, KeyParams } from './schemas.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './service.ts';

export default async function apiKeyAdminRoutes(app: App): Promise<void> {
  const tags = ['Admin'];

  app.post(
    '/admin/v1/teams/:team_id/api-keys',
    {
      schema: {
        tags,
        summary: 'Issue an API key for a team',
        params: TeamParams,
        body: Type.Optional(CreateApiKeyBody),
        response: { 201: CreatedApiKey, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return createApiKey(app.deps.pool, request.params.team_id, request.body?.name ?? null);
    },
  );

  app.get(
    '/admin/v1/teams/:team_id/api-keys',
    {
      schema: {
        tags,
        summary: "List a team's API keys (without secrets)",
        params: TeamParams,
        response: { 200: Type.Array(ApiKey), ...errorResponses(401, 404) },
      },
    },
    (request) => listApiKeys(app.deps.pool, request.params.team_id),
  );

  app.delete(
    '/admin/v1/api-keys/:key_id',
    {
      schema: {
        tags,
        summary: 'Revoke an API key',
        description: 'The key stops working at once on this process and within one second on every other.',
        params: KeyParams,
        response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const key = await revokeApiKey(app.deps.pool, request.params.key_id);
      app.deps.authenticator.evictKey(key.id);
      reply.code(204).send(null);
    },
  );
}
