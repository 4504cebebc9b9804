import type pg from 'pg';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { withTransaction } from '../db/pool.ts';
import { addJob } from '../db/sql.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { stopItem } from './cancel.ts';
import { ITEM_JOB_MAX_ATTEMPTS, ITEM_TASK, VENDOR_POLL_TASK } from './create.ts';
import * as sql from './sql/index.ts';
import type { EngineServices, Operation } from './types.ts';

// An item of a type with no deadline of its own.
const FALLBACK_DEADLINE_S = 3600;
// A delivery due this long with nothing under way is queued again.
const DELIVERY_GRACE_S = 30;
// Arbitrary constant: one sweep at a time across every process.
const SWEEP_LOCK = 7_305_002_009;
const BATCH = 500;
// The jobs that run an item: its own, and the polls of its vendor job.
const ITEM_TASKS = [ITEM_TASK, VENDOR_POLL_TASK];

/** How an item ends whose synchronous request's process stopped while running it. */
const INTERRUPTED = {
  error: 'Interrupted: the process running this synchronous request stopped before it finished',
  errorKind: 'interrupted',
};

export interface SweepReport {
  requeuedItems: number;
  failedItems: number;
  requeuedDeliveries: number;
}

export interface SweepOptions {
  /** Only with leases to judge: the database has been reachable for a whole lease (see Sweeper). */
  judgeLeases: boolean;
  /** Seconds an item of each type may take from acceptance to its outcome. */
  deadlinesS: Readonly<Record<string, number>>;
  /** The configured vendors: a timed-out item's vendor job is cancelled there (best effort). */
  providers: Pick<ProviderRegistry, 'get'>;
  /** Told of a vendor job that could not be cancelled. */
  log?: (err: Error) => void;
  /**
   * The lease: how long a synchronous request woken for room in its team's cap is given to claim
   * its item before the item counts as stranded.
   */
  leaseMs?: number;
}

/**
 * One pass of the recovery sweep: fails and refunds items past their deadline (exactly once:
 * the item's status guard), queues again the items that nothing is running or will run (a lost
 * or spent job, a completion lost in an outage), fails and refunds the items of synchronous
 * requests whose process stopped (their lease lapsed), and queues again the webhook deliveries
 * left pending the same way. Safe beside a concurrent sweep and beside running work: every change
 * re-checks its condition under the row's lock.
 */
export async function sweepOnce(
  pool: pg.Pool,
  services: EngineServices,
  operations: Record<string, Operation>,
  options: SweepOptions,
): Promise<SweepReport> {
  const report: SweepReport = { requeuedItems: 0, failedItems: 0, requeuedDeliveries: 0 };
  for (const id of await sql.selectOverdueItems(pool, options.deadlinesS, FALLBACK_DEADLINE_S, BATCH)) {
    const item = await sql.selectUnfinishedItem(pool, id);
    if (!item) continue;
    const limit = options.deadlinesS[item.type] ?? FALLBACK_DEADLINE_S;
    const within = limit < 120 ? `${limit} seconds` : `${Math.round(limit / 60)} minutes`;
    const failure = { error: `Timed out: not finished within ${within} of starting`, errorKind: 'timeout' };
    if (await stopItem(pool, services, operations, item, failure, options)) report.failedItems += 1;
  }
  if (!options.judgeLeases) return report;
  const stranded = await sql.selectStrandedItems(pool, ITEM_TASKS, options.leaseMs ?? 0, BATCH);
  for (const { id, in_request: inRequest } of stranded) {
    if (inRequest) {
      // Its request's process died mid-call: nobody waits for it, so it ends (refunded once).
      const item = await sql.selectUnfinishedItem(pool, id);
      // Failed only while its lease is still lapsed (a request woken for room may claim it meanwhile).
      const failure = { ...INTERRUPTED, leaseLapsed: true };
      if (item && (await stopItem(pool, services, operations, item, failure, options))) report.failedItems += 1;
      continue;
    }
    const requeued = await withTransaction(pool, async (client) => {
      if (!(await sql.lockStrandedItem(client, ITEM_TASKS, id))) return false;
      await sql.deleteJobsFor(client, ITEM_TASKS, 'item_id', id);
      await addJob(client, ITEM_TASK, { item_id: id }, { maxAttempts: ITEM_JOB_MAX_ATTEMPTS });
      return true;
    });
    if (requeued) report.requeuedItems += 1;
  }
  for (const id of await sql.selectStrandedDeliveries(pool, services.webhookTask, DELIVERY_GRACE_S, BATCH)) {
    const requeued = await withTransaction(pool, async (client) => {
      if (!(await sql.lockStrandedDelivery(client, services.webhookTask, id))) return false;
      await sql.deleteJobsFor(client, [services.webhookTask], 'delivery_id', id);
      await services.queueDeliveryAttempt(client, id);
      return true;
    });
    if (requeued) report.requeuedDeliveries += 1;
  }
  return report;
}

export interface Sweeper {
  stop(): Promise<void>;
}

/**
 * Runs the sweep every `intervalMs` in this process, under a session advisory lock so that one
 * process sweeps at a time (the lock goes with the session if the process dies). Leases are
 * judged only once this process has seen the database reachable for a whole lease: after an
 * outage, the processes still running items get the time to renew their leases first.
 */
export function startSweeper(
  pool: pg.Pool,
  services: EngineServices,
  operations: Record<string, Operation>,
  options: {
    intervalMs: number;
    leaseMs: number;
    deadlinesS: Readonly<Record<string, number>>;
    providers: Pick<ProviderRegistry, 'get'>;
    log: (report: SweepReport | Error) => void;
  },
): Sweeper {
  let reachableSince: number | undefined = Date.now();
  let running: Promise<void> | undefined;
  const tick = async () => {
    let client: pg.PoolClient | undefined;
    let broken = false;
    try {
      client = await pool.connect();
      if (!(await sql.tryLockSweep(client, SWEEP_LOCK))) return;
      reachableSince ??= Date.now();
      try {
        const report = await sweepOnce(pool, services, operations, {
          judgeLeases: Date.now() - reachableSince >= options.leaseMs,
          deadlinesS: options.deadlinesS,
          providers: options.providers,
          log: options.log,
          leaseMs: options.leaseMs,
        });
        if (report.failedItems + report.requeuedItems + report.requeuedDeliveries > 0) options.log(report);
      } finally {
        await sql.unlockSweep(client, SWEEP_LOCK);
      }
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        reachableSince = undefined;
        broken = true;
      } else options.log(err as Error);
    } finally {
      client?.release(broken);
    }
  };
  const timer = setInterval(() => {
    running ??= tick().finally(() => {
      running = undefined;
    });
  }, options.intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
