import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { generationEndpointOf, Quote } from '../../engine/define.ts';
import { selectStatus } from '../../engine/sql.ts';
import { GenerationStatusRecord, toStatusRecord } from '../../engine/status.ts';
import { invalidField, notFound } from '../../lib/errors.ts';
import { errorResponses } from '../../lib/schemas.ts';

export default async function generationRoutes(app: App): Promise<void> {
  app.get(
    '/api/v1/generations/:id/status',
    {
      schema: {
        tags: ['Generations'],
        summary: 'Status of any generation',
        description:
          'Poll every 2-5 s until status is completed or failed. Another team’s generation is 404, like an unknown one.',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: GenerationStatusRecord, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const row = await selectStatus(app.deps.pool, request.params.id, request.principal.teamId);
      if (!row) throw notFound('Generation', request.params.id);
      return toStatusRecord(row);
    },
  );

  app.post(
    '/api/v1/quote',
    {
      schema: {
        tags: ['Generations'],
        summary: 'What a generation request would cost, without making it',
        description:
          'Runs the same validation and pricing as the endpoint itself (a generation POST with the header ' +
          '`Prefer: dry-run` does the same) and answers the credits it would charge and your balance; nothing is ' +
          'written or charged. An invalid body answers as the endpoint would (400, 404, ...).',
        body: Type.Object({
          endpoint: Type.String({
            minLength: 1,
            maxLength: 300,
            description: "A generation endpoint's path, e.g. /api/v1/videos/generate",
            examples: ['/api/v1/images/generate'],
          }),
          body: Type.Object({}, { additionalProperties: true, description: 'The request body to price' }),
        }),
        response: { 200: Quote, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, typedReply) => {
      // The endpoint's own answer is passed on as it is, whatever its status.
      const reply = typedReply as unknown as FastifyReply;
      const path = request.body.endpoint.trim().replace(/^POST\s+/i, '');
      if (!generationEndpointOf(path)) {
        throw invalidField('endpoint', `${path} is not a generation endpoint (e.g. /api/v1/images/generate)`);
      }
      const headers: Record<string, string> = { 'content-type': 'application/json', prefer: 'dry-run' };
      if (request.headers.authorization) headers.authorization = request.headers.authorization;
      const answer = await app.inject({
        method: 'POST',
        url: path,
        headers,
        payload: JSON.stringify(request.body.body),
      });
      reply.code(answer.statusCode).type('application/json; charset=utf-8');
      for (const name of ['retry-after', 'preference-applied']) {
        const value = answer.headers[name];
        if (typeof value === 'string') reply.header(name, value);
      }
      return reply.send(answer.body);
    },
  );
}
