import { EventEmitter } from 'node:events';
import {
  Logger,
  makeWorkerUtils,
  parseCronItems,
  type Runner,
  run,
  type TaskList,
  type WorkerEvents,
  type WorkerUtils,
} from 'graphile-worker';
import type { Logger as Pino } from 'pino';
import type { Deps } from './app-types.ts';
import { ITEM_TASK } from './engine/create.ts';
import { runItem } from './engine/run-item.ts';
import * as workerSql from './engine/sql.ts';
import { deleteExpiredIdempotencyKeys } from './modules/idempotency/service.ts';
import { attemptDelivery, WEBHOOK_TASK } from './modules/webhooks/service.ts';
import { executionContext, operations } from './operations.ts';

const CLEANUP_TASK = 'idempotency_cleanup';

/** The job handlers this service runs. */
export function taskList(deps: Deps, abort: AbortSignal): TaskList {
  const { pool, config } = deps;
  const context = executionContext(deps, abort);
  return {
    [ITEM_TASK]: async (payload, helpers) => {
      const { item_id: itemId } = payload as { item_id: string };
      await runItem(context, operations, itemId, helpers.job);
    },
    [WEBHOOK_TASK]: async (payload) => {
      const { delivery_id: deliveryId } = payload as { delivery_id: string };
      await attemptDelivery(pool, deliveryId, {
        allowPrivateUrls: config.allowPrivateUrls,
        retryDelaysS: config.webhookRetryDelaysS,
      });
    },
    [CLEANUP_TASK]: async () => {
      await deleteExpiredIdempotencyKeys(pool);
    },
  };
}

export interface RunningWorker {
  stop(): Promise<void>;
}

/**
 * Starts a graphile-worker runner on the shared pool (jobs picked up through LISTEN/NOTIFY,
 * retried with backoff), plus liveness: this process's workers beat every few seconds, and the
 * jobs of workers that stopped beating (a process killed mid-job) are released so another
 * worker finishes them. Stopping lets running jobs finish first.
 */
export async function startWorker(deps: Deps, log: Pino): Promise<RunningWorker> {
  const { pool, config } = deps;
  const logger = new Logger(() => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'info' : 'debug';
    log[method]({ worker: meta }, message);
  });
  const abort = new AbortController();
  const events: WorkerEvents = new EventEmitter();
  const mine = new Set<string>();
  // Jobs are locked under the pool's id (and, in some modes, a worker's): both beat.
  const announce = (id: string) => {
    mine.add(id);
    workerSql.beat(pool, [id]).catch((err: unknown) => log.warn({ err }, 'heartbeat failed'));
  };
  events.on('pool:create', ({ workerPool }) => announce(workerPool.id));
  events.on('worker:create', ({ worker }) => announce(worker.workerId));

  const utils: WorkerUtils = await makeWorkerUtils({ pgPool: pool, logger });
  const runner: Runner = await run({
    pgPool: pool,
    concurrency: config.workerConcurrency,
    taskList: taskList(deps, abort.signal),
    parsedCronItems: parseCronItems([{ task: CLEANUP_TASK, match: '17 * * * *', options: { backfillPeriod: 0 } }]),
    noHandleSignals: true,
    logger,
    events,
  });

  const beatEvery = Math.max(250, Math.floor(config.workerDeadAfterMs / 4));
  const timer = setInterval(() => {
    void (async () => {
      try {
        if (mine.size > 0) await workerSql.beat(pool, [...mine]);
        const dead = await workerSql.claimDeadWorkers(pool, config.workerDeadAfterMs);
        if (dead.length > 0) {
          await utils.forceUnlockWorkers(dead);
          log.warn({ workers: dead }, 'released the jobs of workers that stopped beating');
        }
      } catch (err) {
        log.warn({ err }, 'worker liveness check failed');
      }
    })();
  }, beatEvery);
  timer.unref();

  return {
    stop: async () => {
      clearInterval(timer);
      await runner.stop();
      abort.abort();
      await workerSql.forget(pool, [...mine]).catch(() => undefined);
      await utils.release();
    },
  };
}
