import type pg from 'pg';
import { withTransaction } from '../db/pool.ts';
import { changeCredits } from '../modules/credits/service.ts';
import { enqueueWebhook } from '../modules/webhooks/service.ts';
import type { ProviderFile } from '../providers/types.ts';
import { ProviderError } from '../providers/types.ts';
import { resultKey } from './create.ts';
import * as sql from './sql.ts';
import { toStatusRecord } from './status.ts';
import type { ExecutableItem, ExecutionContext, Operation } from './types.ts';

export interface JobAttempt {
  attempts: number;
  max_attempts: number;
}

type Outcome = { ok: true; url: string; file: ProviderFile } | { ok: false; error: string };

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
async function finishItem(
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

/**
 * Runs one item: claim it, run its operation, copy the result into our storage, and record the
 * outcome. A retryable failure is rethrown while attempts remain (the queue retries with
 * backoff); any other failure, or the last attempt, fails the item and refunds it. Workers run
 * this from the item's job; synchronous endpoints run it in the request, with no retries.
 */
export async function runItem(
  ctx: ExecutionContext,
  operations: Record<string, Operation>,
  itemId: string,
  job: JobAttempt,
): Promise<void> {
  const item = await sql.claimItem(ctx.pool, itemId);
  if (!item) return;
  const operation = operations[item.operation];
  if (!operation) {
    await finishItem(ctx.pool, operation, item, { ok: false, error: `No executor for operation ${item.operation}` });
    return;
  }
  let file: ProviderFile;
  try {
    file = await operation.execute(ctx, executable(item));
  } catch (err) {
    const retryable = !(err instanceof ProviderError) || err.retryable;
    if (retryable && job.attempts < job.max_attempts) throw err;
    await finishItem(ctx.pool, operation, item, {
      ok: false,
      error: err instanceof Error ? err.message : String(err),
    });
    return;
  }
  const key = resultKey(item.generation_id, item.id, item.storage_token, file.extension);
  await ctx.storage.put(key, file.data, file.contentType);
  await finishItem(ctx.pool, operation, item, { ok: true, url: ctx.storage.publicUrl(key), file });
}
