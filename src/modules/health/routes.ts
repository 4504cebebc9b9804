import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { ping } from '../../db/sql.ts';
import { AppError } from '../../lib/errors.ts';
import { errorResponses } from '../../lib/schemas.ts';

const Status = Type.Object({ status: Type.String() });

export default async function healthRoutes(app: App): Promise<void> {
  app.get(
    '/healthz',
    {
      logLevel: 'warn',
      schema: { tags: ['Operations'], summary: 'The process is alive', response: { 200: Status } },
    },
    () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      schema: {
        tags: ['Operations'],
        summary: 'The database is reachable',
        response: { 200: Status, ...errorResponses(503) },
      },
    },
    async () => {
      try {
        await ping(app.deps.pool);
      } catch {
        throw new AppError('service_unavailable', 'Database unreachable');
      }
      return { status: 'ready' };
    },
  );
}
