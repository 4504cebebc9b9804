// Recording an item's outcome: exactly once, with its refund, counters and webhook.

import type pg from 'pg';
import { retryWhileUnavailable } from '../db/errors.ts';
import { type Queryable, withTransaction } from '../db/pool.ts';
import { timeOfId } from '../lib/id-time.ts';
import { startWaitingItems } from './create.ts';
import * as sql from './sql/index.ts';
import { toStatusRecord } from './status.ts';
import type { EngineServices, ExecutableItem, ExecutionContext, Operation, StoredFile } from './types.ts';

export type Outcome = (
  | {
      ok: true;
      url: string;
      file: StoredFile;
      /** The size of the stored file (its team's storage quota), recorded with the completion. */
      bytes?: number;
      /** How the item's open vendor attempt ended, recorded with the completion. */
      attempt?: sql.AttemptEnd;
    }
  /**
   * errorKind: the WorkError kind, when a provider said why. `refund` false keeps the charge (a
   * cancel of work a vendor already runs); `spareStoring` leaves an item whose result file is being
   * stored to complete (a team's cancel: a file the client can fetch is never refunded).
   */
  | {
      ok: false;
      error: string;
      errorKind?: string;
      refund?: boolean;
      spareStoring?: boolean;
      /** Only while no process holds the item's lease (the sweep failing a stranded item). */
      leaseLapsed?: boolean;
    }
) & {
  /** The vendor this run sent it to, which the claimed item does not name yet (for the metrics). */
  provider?: string;
  /**
   * What is recorded with the outcome, in its transaction, whether or not the outcome itself is
   * (an item run in its request settles in one transaction: the route's health with it).
   */
  alongside?: (db: Queryable) => Promise<void>;
};

/** The item as an operation sees it. */
export function executable(item: sql.ClaimedItem): ExecutableItem {
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
    acceptedRoutes: item.accepted_routes,
  };
}

/**
 * Records an item's outcome once, with everything that follows from it, in one transaction:
 * the operation's completion hook, the refund of a failed item, the generation's counters and
 * final status, and the webhook. A second call for the same item changes nothing (false).
 */
export async function finishItem(
  pool: pg.Pool,
  services: EngineServices,
  operation: Operation | undefined,
  item: sql.ClaimedItem,
  outcome: Outcome,
): Promise<boolean> {
  const recorded = await withTransaction(pool, async (client) => {
    // The team's row first, as a claim takes it: moving an item changes the team's counts, and
    // the same order in both keeps a cancel and a claim of one item from deadlocking.
    await sql.lockTeam(client, item.team_id);
    await outcome.alongside?.(client);
    let refund = 0;
    if (outcome.ok) {
      // The attempt ends and the file is counted whether or not the item was still ours to complete.
      const { url, file, bytes, attempt } = outcome;
      if (!(await sql.completeItem(client, item.id, url, file.metadata, bytes, attempt))) {
        if (bytes !== undefined) await sql.recordResultBytes(client, item.id, bytes);
        return false;
      }
      const actual = outcome.file.actualCredits;
      if (actual !== undefined && actual < item.price) {
        refund = item.price - Math.max(0, Math.ceil(actual));
        if (refund > 0) {
          await services.changeCredits(client, {
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
      const refunds = outcome.refund ?? true;
      const failed = await sql.failItem(client, item.id, outcome.error, outcome.errorKind ?? null, {
        refund: refunds,
        spareStoring: outcome.spareStoring ?? false,
        leaseLapsed: outcome.leaseLapsed,
      });
      if (!failed) return false;
      await operation?.onFailed?.(client, executable(item), outcome.error);
      refund = refunds ? failed.price : 0;
      if (refund > 0) {
        await services.changeCredits(client, {
          teamId: item.team_id,
          amount: refund,
          kind: 'refund',
          reason: `Refund of failed item ${item.id}`,
          generationId: item.generation_id,
        });
      }
    }
    const generation = await sql.countFinishedItem(client, item.generation_id, outcome.ok, refund);
    // Room for the team's next waiting items (its cap counts running items).
    await startWaitingItems(client, item.team_id, services.teamMaxConcurrentItems);
    if (generation.finished && generation.webhook_url) {
      const row = await sql.selectStatus(client, item.generation_id, item.team_id);
      if (row) {
        await services.enqueueWebhook(client, {
          teamId: item.team_id,
          generationId: item.generation_id,
          url: generation.webhook_url,
          eventType: generation.status === 'completed' ? 'generation.completed' : 'generation.failed',
          data: toStatusRecord(row),
        });
      }
    }
    return { finished: generation.finished ? generation.status : undefined };
  });
  if (recorded) {
    if (recorded.finished === 'completed' || recorded.finished === 'failed') {
      services.metrics.generationFinished({ operation: item.operation, model: item.model, status: recorded.finished });
    }
    services.metrics.itemFinished({
      operation: item.operation,
      model: item.model,
      provider: outcome.provider ?? item.provider,
      ok: outcome.ok,
      errorKind: outcome.ok ? null : outcome.errorKind,
      acceptedAt: timeOfId(item.generation_id),
    });
  }
  return recorded !== false;
}

/** Records an item's outcome (finishItem), riding out a database outage for up to the policy's patience. */
export function recordOutcome(
  ctx: ExecutionContext,
  operation: Operation | undefined,
  item: sql.ClaimedItem,
  outcome: Outcome,
): Promise<boolean> {
  return retryWhileUnavailable(() => finishItem(ctx.pool, ctx.services, operation, item, outcome), {
    maxMs: ctx.itemPolicy.finishPatienceMs,
  });
}

/**
 * Records that the item's result file is about to be stored (see sql.markStoringResult), riding
 * out a database outage as recording its outcome does: done work is not thrown away. False when
 * the item has ended meanwhile: nothing is to be stored then.
 */
export function markStoringResult(ctx: ExecutionContext, itemId: string): Promise<boolean> {
  return retryWhileUnavailable(() => sql.markStoringResult(ctx.pool, itemId), {
    maxMs: ctx.itemPolicy.finishPatienceMs,
  });
}

/**
 * Deletes the result file a run stored for an item that did not complete (it was failed while the
 * file was being written: past its deadline, or a synchronous request's timeout), so that nothing
 * refunded stays fetchable. A file of an item that completed (another run's) is kept.
 */
export async function discardResult(ctx: ExecutionContext, itemId: string, key: string): Promise<void> {
  const item = await sql.selectItemResult(ctx.pool, itemId);
  if (item?.status === 'FAILED') await ctx.storage.delete(key);
}
