import type pg from 'pg';
import { retryWhileUnavailable } from '../db/errors.ts';
import { withTransaction } from '../db/pool.ts';
import { changeCredits } from '../modules/credits/service.ts';
import { enqueueWebhook } from '../modules/webhooks/service.ts';
import type { ProviderFile } from '../providers/types.ts';
import { ProviderError } from '../providers/types.ts';
import { resultKey } from './create.ts';
import * as sql from './sql.ts';
import { toStatusRecord } from './status.ts';
import type { ExecutableItem, ExecutionContext, Operation } from './types.ts';

export type Outcome = { ok: true; url: string; file: ProviderFile } | { ok: false; error: string };

function executable(item: sql.ClaimedItem): ExecutableItem {
  return {
    id: item.id,
    generationId: item.generation_id,
    position: item.position,
    type: item.type,
    model: item.model,
    teamId: item.team_id,
    request: item.generation_input,
    input: item.input,
    attempt: item.attempts,
  };
}

/**
 * Records an item's outcome once, with everything that follows from it, in one transaction:
 * the operation's completion hook, the refund of a failed item, the generation's counters and
 * final status, and the webhook. A second call for the same item changes nothing.
 */
export async function finishItem(
  pool: pg.Pool,
  operation: Operation | undefined,
  item: sql.ClaimedItem,
  outcome: Outcome,
): Promise<void> {
  await withTransaction(pool, async (client) => {
    let refund = 0;
    if (outcome.ok) {
      if (!(await sql.completeItem(client, item.id, outcome.url, outcome.file.metadata))) return;
      const actual = outcome.file.actualCredits;
      if (actual !== undefined && actual < item.price) {
        refund = item.price - Math.max(0, Math.ceil(actual));
        if (refund > 0) {
          await changeCredits(client, {
            teamId: item.team_id,
            amount: refund,
            kind: 'refund',
            reason: `Unused part of the charge for item ${item.id}`,
            generationId: item.generation_id,
          });
        }
      }
      await operation?.onCompleted?.(client, {
        item: executable(item),
        workspaceId: item.workspace_id,
        url: outcome.url,
        file: outcome.file,
      });
    } else {
      const failed = await sql.failItem(client, item.id, outcome.error);
      if (!failed) return;
      await operation?.onFailed?.(client, executable(item), outcome.error);
      refund = failed.price;
      if (refund > 0) {
        await changeCredits(client, {
          teamId: item.team_id,
          amount: refund,
          kind: 'refund',
          reason: `Refund of failed item ${item.id}`,
          generationId: item.generation_id,
        });
      }
    }
    const generation = await sql.countFinishedItem(client, item.generation_id, outcome.ok, refund);
    if (generation.finished && generation.webhook_url) {
      const row = await sql.selectStatus(client, item.generation_id, item.team_id);
      if (row) {
        await enqueueWebhook(client, {
          teamId: item.team_id,
          generationId: item.generation_id,
          url: generation.webhook_url,
          eventType: generation.status === 'completed' ? 'generation.completed' : 'generation.failed',
          data: toStatusRecord(row),
        });
      }
    }
  });
}

/** How a process runs items: retries, leases and the bound on interrupted runs. */
export interface ItemPolicy {
  /** Provider attempts of an item whose failures are retryable. */
  maxAttempts: number;
  /** How long a claim holds the item without renewal; renewed at a third of it while running. */
  leaseMs: number;
  /** Runs that may end without an outcome (a crash, an outage) before the item is failed. */
  maxInterruptions: number;
  /** How long recording a finished item waits for an unavailable database. */
  finishPatienceMs: number;
}

/** What the caller of runItem allows: a worker's job may be retried, a synchronous request's not. */
export interface RunOptions {
  mayRetry: boolean;
}

/** Keeps the item's lease fresh while it runs (sooner after a failed renewal), until stopped. */
function holdLease(ctx: ExecutionContext, itemId: string): () => void {
  const every = Math.max(100, Math.floor(ctx.itemPolicy.leaseMs / 3));
  let timer: NodeJS.Timeout;
  const renew = () => {
    sql.renewItemLeases(ctx.pool, [itemId], ctx.itemPolicy.leaseMs).then(
      () => {
        timer = setTimeout(renew, every);
      },
      () => {
        timer = setTimeout(renew, Math.min(every, 1000));
      },
    );
  };
  timer = setTimeout(renew, every);
  return () => clearTimeout(timer);
}

/**
 * Runs one item: claim it under a lease, run its operation, copy the result into our storage,
 * and record the outcome. A retryable provider failure is counted on the item and rethrown
 * while attempts remain (the queue retries with backoff); any other failure, or the last
 * attempt, fails the item and refunds it. Runs that ended with no outcome (a crash or an
 * outage) are not provider failures: they are counted apart and fail the item only past
 * `maxInterruptions`. Recording a finished item rides out a database outage, so done work is
 * not thrown away. Workers run this from the item's job; synchronous endpoints run it in the
 * request, with no retries.
 */
export async function runItem(
  ctx: ExecutionContext,
  operations: Record<string, Operation>,
  itemId: string,
  options: RunOptions,
): Promise<void> {
  const policy = ctx.itemPolicy;
  const item = await sql.claimItem(ctx.pool, itemId, policy.leaseMs);
  if (!item) return;
  const finish = (outcome: Outcome) =>
    retryWhileUnavailable(() => finishItem(ctx.pool, operations[item.operation], item, outcome), {
      maxMs: policy.finishPatienceMs,
    });
  const operation = operations[item.operation];
  if (!operation) {
    await finish({ ok: false, error: `No executor for operation ${item.operation}` });
    return;
  }
  const interruptions = item.attempts - 1 - item.failures;
  if (interruptions > policy.maxInterruptions) {
    await finish({
      ok: false,
      error: `Stopped after its run was interrupted ${interruptions} times (the worker running it stopped)`,
    });
    return;
  }
  const releaseLease = holdLease(ctx, item.id);
  let file: ProviderFile;
  try {
    file = await operation.execute(ctx, executable(item));
  } catch (err) {
    releaseLease();
    const retryable = !(err instanceof ProviderError) || err.retryable;
    if (retryable && options.mayRetry && item.failures + 1 < policy.maxAttempts) {
      await sql.recordItemFailure(ctx.pool, item.id);
      throw err;
    }
    await finish({ ok: false, error: err instanceof Error ? err.message : String(err) });
    return;
  }
  try {
    const key = resultKey(item.generation_id, item.id, item.storage_token, file.extension);
    await ctx.storage.put(key, file.data, file.contentType);
    await finish({ ok: true, url: ctx.storage.publicUrl(key), file });
  } finally {
    releaseLease();
  }
}
