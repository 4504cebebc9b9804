import type { StreamSink } from '../providers/types.ts';
import { stopItems } from './cancel.ts';
import { runItem } from './run-item.ts';
import { type ItemStatus, selectItemResult } from './sql/history.ts';
import { countUnfinishedItems } from './sql/items.ts';
import type { ExecutionContext, Work } from './types.ts';

// How often a waiting request looks whether its vendor jobs have finished.
const WAIT_STEP_MS = 100;

/** How an item ended, as the one who waited for it reads it. */
export interface ItemOutcome {
  id: string;
  status: ItemStatus;
  url: string | null;
  result: Record<string, unknown> | null;
  error: string | null | undefined;
  /** The WorkError kind of a failure, when one is known. */
  errorKind: string | null;
}

/** Runs each item once in this process (no retry here: the item's queued job is its safety net). */
async function runEach(context: ExecutionContext, work: Work, itemIds: string[], waitUntil?: number): Promise<void> {
  await Promise.all(itemIds.map((id) => runItem(context, work.operations, id, { mayRetry: false, waitUntil })));
}

/** Runs items in this process now, each once and for at most `timeoutMs`; a vendor job they start goes on. */
export function runItemsHere(work: Work, itemIds: string[], timeoutMs: number): Promise<void> {
  return runEach(work.context(AbortSignal.timeout(timeoutMs)), work, itemIds);
}

/** Waits until none of `itemIds` is queued or processing, or until `deadline`. */
async function waitUntilFinished(context: ExecutionContext, itemIds: string[], deadline: number): Promise<void> {
  while ((await countUnfinishedItems(context.pool, itemIds)) > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
}

/**
 * Runs items in this process and waits at most `waitMs` for them: each runs here once, and a
 * vendor that took the work as a job finishes it by its webhook or polls. What has not finished
 * by then (waiting for room in the team's cap, or still at a vendor) is failed with
 * `timeoutError` and refunded, so the outcomes tell the truth about the money. Answers each
 * item's outcome, in order. `stream` receives the route's answer as it comes (a streamed text request).
 */
export async function runAndWait(
  work: Work,
  itemIds: string[],
  waitMs: number,
  timeoutError: string,
  stream?: StreamSink,
): Promise<ItemOutcome[]> {
  const deadline = Date.now() + waitMs;
  const context = { ...work.context(AbortSignal.timeout(waitMs)), ...(stream ? { stream } : {}) };
  await runEach(context, work, itemIds, deadline);
  await waitUntilFinished(context, itemIds, deadline);
  await stopItems(
    context.pool,
    context.services,
    work.operations,
    itemIds,
    { error: timeoutError, errorKind: 'timeout' },
    { providers: context.providers },
  );
  return Promise.all(
    itemIds.map(async (id) => {
      const row = await selectItemResult(context.pool, id);
      return {
        id,
        status: row?.status ?? 'FAILED',
        url: row?.url ?? null,
        result: row?.result ?? null,
        error: row?.error,
        errorKind: row?.error_kind ?? null,
      };
    }),
  );
}
