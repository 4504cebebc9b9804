// Recording an item's outcome: exactly once, with its refund, counters and webhook.

import type pg from 'pg';
import { retryWhileUnavailable } from '../db/errors.ts';
import { type Queryable, withTransaction } from '../db/pool.ts';
import { timeOfId } from '../lib/id-time.ts';
import { newId } from '../lib/ids.ts';
import { wakeTarget } from './create.ts';
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
   * The route that served it, whose count of failures in a row ends, recorded with the outcome
   * whether or not the outcome itself is (an item run in its request settles in one call).
   */
  routeServed?: { provider: string; endpoint: string };
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
 * Records an item's outcome once, with everything that follows from it: the refund of a failed
 * item (or of the unused part of a completed one's charge), the generation's counters and final
 * status, the team's waiting items started (one call, sql.recordFinish), and, in one transaction
 * with it when there are some, the operation's completion hook and the webhook. A second call for
 * the same item changes nothing (false).
 */
export async function finishItem(
  pool: pg.Pool,
  services: EngineServices,
  operation: Operation | undefined,
  item: sql.ClaimedItem,
  outcome: Outcome,
): Promise<boolean> {
  const common = {
    itemId: item.id,
    teamId: item.team_id,
    routeServed: outcome.routeServed,
    ledgerId: newId('led'),
    wake: wakeTarget(services.teamMaxConcurrentItems),
  };
  const record: sql.FinishRecord = outcome.ok
    ? {
        ...common,
        ok: true,
        url: outcome.url,
        result: outcome.file.metadata,
        bytes: outcome.bytes,
        attempt: outcome.attempt,
        actualCredits: outcome.file.actualCredits,
      }
    : {
        ...common,
        ok: false,
        error: outcome.error,
        errorKind: outcome.errorKind ?? null,
        refund: outcome.refund ?? true,
        spareStoring: outcome.spareStoring ?? false,
        leaseLapsed: outcome.leaseLapsed ?? false,
      };
  const write = async (db: Queryable) => {
    const done = await sql.recordFinish(db, record);
    if (!done.recorded) return false;
    if (outcome.ok) {
      await operation?.onCompleted?.(db, {
        item: executable(item),
        workspaceId: item.workspace_id,
        url: outcome.url,
        file: outcome.file,
      });
    } else {
      await operation?.onFailed?.(db, executable(item), outcome.error);
    }
    if (done.finished && done.webhook_url) {
      const row = await sql.selectStatus(db, item.generation_id, item.team_id);
      if (row) {
        await services.enqueueWebhook(db, {
          teamId: item.team_id,
          generationId: item.generation_id,
          url: done.webhook_url,
          eventType: done.status === 'completed' ? 'generation.completed' : 'generation.failed',
          data: toStatusRecord(row),
        });
      }
    }
    return { finished: done.finished ? done.status : undefined };
  };
  // Alone (one call) when nothing else is to be written with it: no hook, and no webhook for its generation.
  const hook = outcome.ok ? operation?.onCompleted : operation?.onFailed;
  const alone = hook === undefined && item.webhook_url === null;
  const recorded = alone ? await write(pool) : await withTransaction(pool, write);
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
export async function recordOutcome(
  ctx: ExecutionContext,
  operation: Operation | undefined,
  item: sql.ClaimedItem,
  outcome: Outcome,
): Promise<boolean> {
  const recorded = await retryWhileUnavailable(() => finishItem(ctx.pool, ctx.services, operation, item, outcome), {
    maxMs: ctx.itemPolicy.finishPatienceMs,
  });
  if (recorded && ctx.recorded) {
    ctx.recorded.set(
      item.id,
      outcome.ok
        ? {
            status: 'COMPLETED',
            url: outcome.url,
            // As stored: JSON, an empty result none.
            result: outcome.file.metadata === undefined ? null : JSON.parse(JSON.stringify(outcome.file.metadata)),
            error: null,
            errorKind: null,
          }
        : { status: 'FAILED', url: null, result: null, error: outcome.error, errorKind: outcome.errorKind ?? null },
    );
  }
  return recorded;
}

/**
 * Before an item's result file is stored: where its operation handed out the items' result URLs at
 * accept (resultUrlsAtAccept), records that the file is about to be stored (see
 * sql.markStoringResult), so that a cancel can no longer refund what the client may fetch, riding
 * out a database outage as recording its outcome does: done work is not thrown away. False when
 * the item has ended meanwhile: nothing is to be stored then. Any other result's URL reaches the
 * client with its completion only: nothing is recorded (a cancel meanwhile refunds the item, and
 * the file written for it is deleted).
 */
export async function markStoringResult(ctx: ExecutionContext, operation: Operation, itemId: string): Promise<boolean> {
  if (!operation.resultUrlsAtAccept) return true;
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
