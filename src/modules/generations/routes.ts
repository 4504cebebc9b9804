import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { selectStatus } from '../../engine/sql.ts';
import { GenerationStatusRecord, toStatusRecord } from '../../engine/status.ts';
import { notFound } from '../../lib/errors.ts';
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
}
