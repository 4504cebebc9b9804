import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
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
import { isDatabaseUnavailable } from './db/errors.ts';
import { addJob } from './db/sql.ts';
import { ITEM_JOB_MAX_ATTEMPTS, ITEM_TASK, VENDOR_POLL_TASK } from './engine/create.ts';
import { claimDeadWorkers, forgetWorkers, itemTraceparent, markWorkersAlive } from './engine/index.ts';
import { LocalRuns } from './engine/local-runs.ts';
import { startSweeper } from './engine/recovery.ts';
import { sweepRetention } from './engine/retention.ts';
import { runClaimed, runItem } from './engine/run-item.ts';
import { pollVendor, queuePoll, removePollOfFinishedItem } from './engine/vendor.ts';
import { inJobSpan, tracingEnabled } from './lib/tracing.ts';
import { deleteExpiredSessions } from './modules/console/sql.ts';
import { deleteExpiredIdempotencyKeys } from './modules/idempotency/service.ts';
import { deleteGoneInstances } from './modules/instances/service.ts';
import { attemptDelivery, WEBHOOK_TASK } from './modules/webhooks/service.ts';
import type { ProviderOutput } from './providers/types.ts';

const CLEANUP_TASK = 'idempotency_cleanup';

/** With tracing on, an item's runs continue its generation's trace (stored with the item). */
function itemSpanOf(deps: Deps) {
  return async (task: string, itemId: string, attempt: number, run: () => Promise<void>) =>
    tracingEnabled()
      ? inJobSpan(
          task,
          await itemTraceparent(deps.pool, itemId),
          { 'genmedia.item.id': itemId, 'genmedia.job.attempt': attempt },
          run,
        )
      : run();
}

// A run of an item claimed at accept that ended with an error is tried again by a job after this
// long (about graphile-worker's first backoff for a job's failed run).
const LOCAL_RUN_RETRY_MS = 3_000;

/**
 * The items this process's asynchronous requests accept claimed, run by its worker at once as a
 * job's run would run them (spans, retries of retryable failures, polls by jobs); a run that ends
 * with an error is tried again by a job, as a job's failed run is (the recovery sweep queues one
 * should even that fail: the item's lease lapses).
 */
function localRuns(deps: Deps, abort: AbortSignal, log: Pino): LocalRuns {
  const context = deps.work.context(abort);
  const itemSpan = itemSpanOf(deps);
  /** A run that ended with an error: tried again by a job, as a job's failed run is. */
  const failed = async (err: unknown, itemId: string, retry: () => Promise<void>) => {
    if (isDatabaseUnavailable(err)) {
      // The recovery sweep (or the vendor job's scheduled poll) takes it up once the database is back.
      log.warn(
        { err, item: itemId },
        'database unavailable during background work; it is recovered once the database is back',
      );
      return;
    }
    log.warn({ err, item: itemId }, 'work this process took on at once failed: a job tries it again');
    await retry();
  };
  return new LocalRuns(
    deps.config.workerConcurrency,
    {
      run: async (item, sendTo) => {
        try {
          await itemSpan(ITEM_TASK, item.id, 1, async () => {
            await runClaimed(context, deps.work.operations, item, { mayRetry: true, ...(sendTo ? { sendTo } : {}) });
          });
        } catch (err) {
          await failed(err, item.id, () =>
            addJob(
              deps.pool,
              ITEM_TASK,
              { item_id: item.id },
              {
                maxAttempts: ITEM_JOB_MAX_ATTEMPTS,
                runAt: new Date(Date.now() + LOCAL_RUN_RETRY_MS),
              },
            ),
          );
        }
      },
      poll: async (itemId, reported) => {
        try {
          await itemSpan(VENDOR_POLL_TASK, itemId, 1, async () => {
            await pollVendor(context, deps.work.operations, itemId, reported);
          });
          // The poll scheduled when the job was sent is not needed once the item has finished.
          await removePollOfFinishedItem(deps.pool, itemId);
        } catch (err) {
          // The poll job replaces the one scheduled when the job was sent.
          await failed(err, itemId, () => queuePoll(deps.pool, itemId, LOCAL_RUN_RETRY_MS, reported));
        }
      },
    },
    (err) => log.warn({ err }, 'could not queue the retry of an item; the recovery sweep will'),
  );
}

/** The job handlers this service runs. */
export function taskList(deps: Deps, abort: AbortSignal): TaskList {
  const { pool, config } = deps;
  const { operations } = deps.work;
  const context = deps.work.context(abort);
  const itemSpan = itemSpanOf(deps);
  return {
    [ITEM_TASK]: async (payload, helpers) => {
      const { item_id: itemId, wait_until: waitUntil } = payload as { item_id: string; wait_until?: unknown };
      await itemSpan(ITEM_TASK, itemId, helpers.job.attempts, () =>
        runItem(context, operations, itemId, {
          mayRetry: true,
          // The next try of an item a synchronous request is waiting for.
          waitUntil: typeof waitUntil === 'number' ? waitUntil : undefined,
        }),
      );
    },
    [VENDOR_POLL_TASK]: async (payload, helpers) => {
      const { item_id: itemId, reported } = payload as { item_id: string; reported?: ProviderOutput };
      await itemSpan(VENDOR_POLL_TASK, itemId, helpers.job.attempts, async () => {
        await pollVendor(context, operations, itemId, reported);
      });
    },
    [WEBHOOK_TASK]: async (payload, helpers) => {
      const { delivery_id: deliveryId, traceparent } = payload as { delivery_id: string; traceparent?: string };
      const attributes = { 'genmedia.webhook.delivery_id': deliveryId, 'genmedia.job.attempt': helpers.job.attempts };
      await inJobSpan(WEBHOOK_TASK, traceparent, attributes, () =>
        attemptDelivery(pool, deliveryId, {
          allowPrivateUrls: config.allowPrivateUrls,
          retryDelaysS: config.webhookRetryDelaysS,
          metrics: deps.engine.metrics,
          secrets: deps.secrets,
        }),
      );
    },
    [CLEANUP_TASK]: async () => {
      await deleteExpiredIdempotencyKeys(pool);
      await deleteGoneInstances(pool);
      await deleteExpiredSessions(pool);
      await sweepRetention(pool, deps.storage, {
        now: new Date(),
        recordsRetentionDays: config.recordsRetentionDays,
      });
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
    markWorkersAlive(pool, [id]).catch((err: unknown) => log.warn({ err }, 'heartbeat failed'));
  };
  events.on('pool:create', ({ workerPool }) => announce(workerPool.id));
  events.on('worker:create', ({ worker }) => announce(worker.workerId));
  // Beside its jobs, the worker runs the items this process's requests accept claimed, while it has room.
  const local = localRuns(deps, abort.signal, log);
  events.on('job:start', () => local.jobStarted());
  events.on('job:success', () => local.jobEnded());
  events.on('job:error', () => local.jobEnded());
  events.on('pool:create', () => local.jobsReset());
  deps.work.localRuns = local;

  // The live configuration (model routes, availability, ...) before the first job: items read it.
  await deps.live.start(log);
  const utils: WorkerUtils = await makeWorkerUtils({ pgPool: pool, logger });
  const startRunner = () =>
    run({
      pgPool: pool,
      concurrency: config.workerConcurrency,
      taskList: taskList(deps, abort.signal),
      parsedCronItems: parseCronItems([{ task: CLEANUP_TASK, match: '17 * * * *', options: { backfillPeriod: 0 } }]),
      noHandleSignals: true,
      logger,
      events,
    });
  let stopping = false;
  const stopped = new AbortController();
  let runner: Runner = await startRunner();
  // graphile-worker shuts its pool down when it cannot record a job's outcome (e.g. the
  // database went away at that moment): the process stays, and a new runner takes over once
  // the database answers again. Nothing is lost meanwhile: the jobs are still in the table.
  const keepRunning = (current: Runner) => {
    current.promise.then(
      () => restart('the job runner stopped'),
      (err: unknown) => restart('the job runner failed', err),
    );
  };
  let restarting: Promise<void> | undefined;
  const restart = (reason: string, err?: unknown) => {
    if (stopping || restarting) return;
    log.warn({ err }, `${reason}: starting a new one`);
    restarting = (async () => {
      for (let delay = 1000; !stopping; delay = Math.min(delay * 2, 30_000)) {
        await sleep(delay, undefined, { signal: stopped.signal }).catch(() => undefined);
        if (stopping) return;
        try {
          runner = await startRunner();
          keepRunning(runner);
          log.info('job runner restarted');
          return;
        } catch (startError) {
          log.warn({ err: startError }, 'job runner could not start yet');
        }
      }
    })().finally(() => {
      restarting = undefined;
    });
  };
  keepRunning(runner);
  // graphile-worker looks up its task ids once per runner and keeps that answer, a failure
  // included: when the lookup failed (a query timed out while the process started on a busy
  // machine), every later attempt to take a job fails at once with that same error and no job is
  // ever taken. The same error object seen twice means that runner is stuck: it is stopped, and
  // keepRunning starts a new one, which asks again.
  const seenErrors = new WeakSet<object>();
  let loggedError = false;
  let replacing: Runner | undefined;
  events.on('worker:getJob:error', ({ error }) => {
    if (stopping || restarting || replacing === runner) return;
    if (!loggedError) {
      loggedError = true;
      log.warn({ err: error }, 'the job runner could not take a job');
    }
    if (typeof error !== 'object' || error === null) return;
    if (!seenErrors.has(error)) {
      seenErrors.add(error);
      return;
    }
    replacing = runner;
    log.warn({ err: error }, 'the job runner keeps failing with the same error: replacing it');
    runner.stop().catch((err: unknown) => log.warn({ err }, 'the stuck job runner did not stop cleanly'));
  });
  events.on('pool:create', () => {
    loggedError = false;
  });
  const sweeper = startSweeper(pool, deps.engine, deps.work.operations, {
    intervalMs: config.sweepIntervalMs,
    leaseMs: config.items.leaseMs,
    deadlinesS: config.items.deadlinesS,
    providers: deps.providers,
    log: (outcome) =>
      outcome instanceof Error
        ? log.error({ err: outcome }, 'recovery sweep failed')
        : log.warn({ sweep: outcome }, 'recovery sweep took up stranded work'),
  });

  const beatEvery = Math.max(250, Math.floor(config.workerDeadAfterMs / 4));
  // After an outage every worker's last beat is old: judge others only once this process has
  // seen the database for a whole dead-after period, so live workers have beaten again by then.
  let reachableSince: number | undefined = Date.now();
  const timer = setInterval(() => {
    void (async () => {
      try {
        if (mine.size > 0) await markWorkersAlive(pool, [...mine]);
        reachableSince ??= Date.now();
        if (Date.now() - reachableSince < config.workerDeadAfterMs) return;
        const dead = await claimDeadWorkers(pool, config.workerDeadAfterMs);
        if (dead.length > 0) {
          await utils.forceUnlockWorkers(dead);
          log.warn({ workers: dead }, 'released the jobs of workers that stopped beating');
        }
      } catch (err) {
        if (isDatabaseUnavailable(err)) reachableSince = undefined;
        log.warn({ err }, 'worker liveness check failed');
      }
    })();
  }, beatEvery);
  timer.unref();

  return {
    stop: async () => {
      stopping = true;
      stopped.abort();
      clearInterval(timer);
      await sweeper.stop();
      // The items it runs for this process's requests end as its jobs do (the API stopped first).
      deps.work.localRuns = undefined;
      await local.close();
      await restarting;
      await runner.stop().catch((err: unknown) => log.warn({ err }, 'job runner stopped with an error'));
      abort.abort();
      await forgetWorkers(pool, [...mine]).catch(() => undefined);
      await utils.release();
      await deps.live.stop();
    },
  };
}
