import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { DATABASE_RETRY_AFTER_S } from '../../db/errors.ts';
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
      // A hung database must not hang the probe: a check gives up after DATABASE_CHECK_TIMEOUT_MS,
      // and a database already known not to answer is not asked again here.
      const { databaseHealth } = app.deps;
      if (!databaseHealth.available || !(await databaseHealth.check())) {
        throw new AppError(
          'service_unavailable',
          `Database unreachable (no answer within ${app.deps.config.databaseTimeouts.checkMs} ms)`,
          undefined,
          { 'retry-after': String(DATABASE_RETRY_AFTER_S) },
        );
      }
      return { status: 'ready' };
    },
  );
}
