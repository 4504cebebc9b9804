import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import type { Static, TObject, TSchema } from 'typebox';
import type { App, Deps } from '../app-types.ts';
import { errorResponses } from '../lib/schemas.ts';
import { resolveWorkspace } from '../modules/workspaces/service.ts';
import { createGeneration } from './create.ts';
import type { CreatedGeneration, GenerationPlan } from './types.ts';
import { checkUserUrls } from './urls.ts';

/**
 * A generation endpoint is a declaration: its schemas, how a request becomes a plan (models,
 * items, price) and the response. The engine does the rest for every endpoint alike:
 * authentication (by path), validation, the workspace check, URL checks, the credit charge,
 * rows and jobs in one transaction, idempotency, and the response.
 */
export interface GenerationEndpoint<TBody extends TObject, TResponse extends TSchema> {
  url: string;
  tags: string[];
  summary: string;
  description?: string;
  body: TBody;
  response: TResponse;
  /** Error statuses this endpoint documents besides 400 and 401. */
  errors?: number[];
  plan(deps: Deps, body: Static<TBody>, teamId: string): GenerationPlan | Promise<GenerationPlan>;
  respond(created: CreatedGeneration, plan: GenerationPlan, body: Static<TBody>): Static<TResponse>;
}

/** Registers one declared generation endpoint on the app. */
export function defineGenerationEndpoint<TBody extends TObject, TResponse extends TSchema>(
  app: App,
  endpoint: GenerationEndpoint<TBody, TResponse>,
): void {
  const schema: FastifySchema = {
    tags: endpoint.tags,
    summary: endpoint.summary,
    description: endpoint.description,
    body: endpoint.body,
    headers: {
      type: 'object',
      properties: {
        'idempotency-key': {
          type: 'string',
          description: 'Same key and body within 24 h replays the first response without a second charge',
        },
      },
    },
    response: { 200: endpoint.response, ...errorResponses(400, 401, 402, ...(endpoint.errors ?? []), 409, 422) },
  };

  const handler = async (request: FastifyRequest): Promise<unknown> => {
    const { deps } = app;
    const teamId = request.principal.teamId;
    const body = request.body as Static<TBody>;
    const workspaceId = await resolveWorkspace(deps.pool, teamId, (body as { workspace_id?: string }).workspace_id);
    const plan = await endpoint.plan(deps, body, teamId);
    await checkUserUrls(deps, plan);
    return createGeneration(deps.pool, {
      teamId,
      workspaceId,
      plan,
      itemMaxAttempts: deps.config.itemMaxAttempts,
      idempotency: request.idempotency,
      respond: (created) => endpoint.respond(created, plan, body),
    });
  };

  // The declaration's generic types are checked above; Fastify's own inference cannot follow them.
  (app as unknown as FastifyInstance).route({ method: 'POST', url: endpoint.url, schema, handler });
}
