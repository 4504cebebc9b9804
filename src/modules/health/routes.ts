import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { ping } from '../../db/sql.ts';
import { AppError } from '../../lib/errors.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { DATABASE_RETRY_AFTER_S } from '../../plugins/errors.ts';

// Well inside the 2 s a load balancer's probe usually allows.
const READY_TIMEOUT_MS = 1500;

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
      // A hung database must not hang the probe: no answer within the limit is not ready.
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer in time')), READY_TIMEOUT_MS);
      });
      try {
        await Promise.race([ping(app.deps.pool), timeout]);
      } catch {
        throw new AppError(
          'service_unavailable',
          `Database unreachable (no answer within ${READY_TIMEOUT_MS} ms)`,
          undefined,
          { 'retry-after': String(DATABASE_RETRY_AFTER_S) },
        );
      } finally {
        clearTimeout(timer);
      }
      return { status: 'ready' };
    },
  );
}
