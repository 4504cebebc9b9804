// Sub-work: what an item needs made first by another operation (the speech a talking head's vendor
// is given, the voice of an influencer video). It is a generation of its own, at no price (the
// item's price covers it), made once per item and purpose, hidden from the team's history and
// status, and run on the same road as every item: its vendor is sent it once, fails over, is
// followed by polls and webhooks, and a crash does not make it twice. The item that needs it waits
// for it: its job comes back until the sub-work has ended.

import type { OperationName } from '../catalog/operation-names.ts';
import { isUniqueViolation } from '../db/batched-calls.ts';
import { WorkError } from '../lib/errors.ts';
import { createGeneration } from './create.ts';
import { selectSubWork } from './sql/generations.ts';
import type { ExecutableItem, ExecutionContext, PlannedItem } from './types.ts';

/** How long an item waiting for its sub-work waits before it looks again. */
export const SUB_WORK_WAIT_MS = 1000;

/** What an item asks to have made first: one item of an operation, under a purpose of its own. */
export interface SubWorkRequest {
  /** What it is for (one sub-work per item and purpose): `speech`. */
  purpose: string;
  /** What it is called in messages: "the speech". */
  what: string;
  operation: OperationName;
  model: string | null;
  type: PlannedItem['type'];
  /** Its stored request, as the operation's input schema describes it. */
  input: Record<string, unknown>;
}

/** Finished sub-work: its file, and what its item's result says. */
export interface SubWorkResult {
  url: string;
  result: Record<string, unknown>;
}

/**
 * The sub-work `request` of `item`, made once: its result when it has completed. Until it has
 * ended it throws a retryable WorkError with a `retryAfterMs` (the item's job comes back then, a
 * deferral that is not counted as a failure); when it failed, a WorkError that fails the item.
 */
export async function needSubWork(
  ctx: ExecutionContext,
  item: ExecutableItem,
  request: SubWorkRequest,
): Promise<SubWorkResult> {
  const made = (await selectSubWork(ctx.pool, item.id, request.purpose)) ?? (await startSubWork(ctx, item, request));
  if (made.status === 'COMPLETED' && made.url) return { url: made.url, result: made.result ?? {} };
  if (made.status === 'FAILED' || made.status === 'COMPLETED') {
    throw new WorkError(`${capitalised(request.what)} could not be made: ${made.error ?? 'no file'}`, false, {
      kind: 'internal',
    });
  }
  throw new WorkError(`Waiting for ${request.what}`, true, { retryAfterMs: SUB_WORK_WAIT_MS });
}

/** Creates the sub-work (once: a second start for the same item and purpose finds the first). */
async function startSubWork(ctx: ExecutionContext, item: ExecutableItem, request: SubWorkRequest) {
  try {
    await createGeneration(ctx.pool, ctx.storage, ctx.services, {
      teamId: item.teamId,
      workspaceId: null,
      plan: {
        operation: request.operation,
        model: request.model,
        input: request.input,
        items: [{ type: request.type, price: 0 }],
        estimatedSeconds: 0,
      },
      // Its files expire with the generation of the item that needs it.
      retentionDays: 0,
      parent: { itemId: item.id, purpose: request.purpose },
    });
  } catch (err) {
    // Started meanwhile by another run of the same item.
    if (!isUniqueViolation(err)) throw err;
  }
  const made = await selectSubWork(ctx.pool, item.id, request.purpose);
  if (!made) throw new WorkError(`${capitalised(request.what)} could not be started`, true);
  return made;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
