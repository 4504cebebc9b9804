import { Logger, type Runner, run, type TaskList } from 'graphile-worker';
import type pg from 'pg';
import type { Logger as Pino } from 'pino';

/** The job handlers this service runs; feature modules add theirs here. */
export function taskList(): TaskList {
  return {};
}

/**
 * Starts a graphile-worker runner on the shared pool: jobs are picked up through LISTEN/NOTIFY,
 * retried with backoff, and finished (or released) before `stop()` resolves.
 */
export async function startWorker(pool: pg.Pool, concurrency: number, log: Pino): Promise<Runner> {
  const logger = new Logger(() => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'info' : 'debug';
    log[method]({ worker: meta }, message);
  });
  return run({ pgPool: pool, concurrency, taskList: taskList(), parsedCronItems: [], noHandleSignals: true, logger });
}
