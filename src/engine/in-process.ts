import { setTimeout as sleep } from 'node:timers/promises';
import type { StreamSink } from '../providers/types.ts';
import { stopItems } from './cancel.ts';
import { claimWithinTeamCap, holdLease, runClaimed, runItem } from './run-item.ts';
import { type ItemStatus, selectItemResult } from './sql/history.ts';
import { type CappedClaim, type ClaimedItem, claimItem } from './sql/items.ts';
import type { ExecutionContext, NextStep, RecordedOutcome, RouteReserved, RunOptions, Work } from './types.ts';
import { pollVendor } from './vendor.ts';

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

/**
 * Runs a claimed item to its end in this process, under a lease it keeps fresh while the call
 * lasts (should the process die, the lease lapses and the recovery sweep fails and refunds the
 * item): the routes in turn (failover), a vendor's Retry-After and a vendor job's polls waited
 * for here, while they fit before `deadline`. A failure with no outcome recorded (an error of
 * ours) fails the item and refunds it.
 */
async function runHere(
  context: ExecutionContext,
  work: Work,
  item: ClaimedItem,
  deadline: number,
  sendTo?: RouteReserved,
): Promise<void> {
  const options: RunOptions = { mayRetry: false, waitUntil: deadline, here: true };
  const release = holdLease(context, item.id);
  try {
    // Its first run goes to the route its acceptance recorded, if any; a later one chooses again.
    let next: NextStep | undefined = await runClaimed(
      context,
      work.operations,
      item,
      sendTo ? { ...options, sendTo } : options,
    );
    while (next && next.at < deadline) {
      const wait = next.at - Date.now();
      if (wait > 0 && !(await sleep(wait, true, { signal: context.signal }).catch(() => false))) break;
      if (next.kind === 'poll') {
        next = await pollVendor(context, work.operations, item.id, undefined, options);
      } else {
        const again = await claimItem(context.pool, item.id, context.itemPolicy.leaseMs);
        next = again ? await runClaimed(context, work.operations, again, options) : undefined;
      }
    }
  } catch (err) {
    // Past the deadline, the request's timeout stops it (with the reason the client is told).
    if (context.signal.aborted) return;
    await stopItems(
      context.pool,
      context.services,
      work.operations,
      [item.id],
      { error: err instanceof Error ? err.message : String(err), errorKind: 'internal' },
      { providers: context.providers },
    );
  } finally {
    release();
  }
}

/** One item of a synchronous request: claimed when it was accepted, or (a retry finishing it) not yet. */
export interface RequestItem {
  id: string;
  claim?: CappedClaim;
  /** The route its claim at accept recorded it as on its way to. */
  sendTo?: RouteReserved;
}

/**
 * Runs a synchronous request's items in this process and waits at most `waitMs` for them, with
 * no job and no polling of their status: each is run here to its end (runHere); one that found
 * no room in its team's cap waits here until room frees (RoomWaits), then runs. What has not
 * finished by then is failed with `timeoutError` and refunded, so the outcomes tell the truth
 * about the money. Answers each item's outcome, in order. `stream` receives the route's answer as
 * it comes (a streamed text request).
 */
export async function runAndWait(
  work: Work,
  items: RequestItem[],
  waitMs: number,
  timeoutError: string,
  stream?: StreamSink,
): Promise<ItemOutcome[]> {
  const deadline = Date.now() + waitMs;
  // The outcomes recorded here are answered as they were recorded; the others are read.
  const recorded = new Map<string, RecordedOutcome>();
  const context = { ...work.context(AbortSignal.timeout(waitMs)), recorded, ...(stream ? { stream } : {}) };
  await Promise.all(
    items.map(async ({ id, claim: accepted, sendTo }) => {
      let claim = accepted ?? (await claimWithinTeamCap(context, id));
      if (claim.kind === 'waiting') {
        await work.rooms.until(id, context.signal, async () => {
          context.services.metrics.roomWaitClaimTried();
          claim = await claimWithinTeamCap(context, id);
          return claim.kind !== 'waiting';
        });
      }
      // A route recorded at accept goes with the claim made there only.
      if (claim.kind === 'claimed') await runHere(context, work, claim.item, deadline, accepted ? sendTo : undefined);
    }),
  );
  const read = async (id: string): Promise<ItemOutcome | undefined> => {
    const known = recorded.get(id);
    if (known) return { id, ...known };
    const row = await selectItemResult(context.pool, id);
    return (
      row && { id, status: row.status, url: row.url, result: row.result, error: row.error, errorKind: row.error_kind }
    );
  };
  let outcomes = await Promise.all(items.map(({ id }) => read(id)));
  const unfinished = items.filter((_, i) => outcomes[i]?.status === 'QUEUED' || outcomes[i]?.status === 'PROCESSING');
  if (unfinished.length > 0) {
    await stopItems(
      context.pool,
      context.services,
      work.operations,
      unfinished.map((i) => i.id),
      { error: timeoutError, errorKind: 'timeout' },
      { providers: context.providers },
    );
    outcomes = await Promise.all(items.map(({ id }) => read(id)));
  }
  return items.map(
    ({ id }, i) => outcomes[i] ?? { id, status: 'FAILED', url: null, result: null, error: undefined, errorKind: null },
  );
}
