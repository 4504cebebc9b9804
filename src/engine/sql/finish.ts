/** Finishing items: the result stored, the item completed or failed, counted into its generation. */

import type { Queryable } from '../../db/pool.ts';
import type { AttemptEnd } from './attempts.ts';
import { callWithPayload } from './batched.ts';
import type { GenerationStatus } from './history.ts';
import type { WakeTarget } from './items.ts';

/** An item's outcome as finish_item records it (see recordFinish). */
export type FinishRecord = {
  itemId: string;
  teamId: string;
  /** The route that served it, whose count of failures in a row ends with it. */
  routeServed?: { provider: string; endpoint: string };
  /** The ledger row's id, should the item be refunded (all or part of its charge). */
  ledgerId: string;
  /** How a woken waiting item of the team is started. */
  wake: WakeTarget;
} & (
  | {
      ok: true;
      url: string;
      result: unknown;
      /** The size of its stored file. */
      bytes?: number;
      /** How its open vendor attempt ended. */
      attempt?: AttemptEnd;
      /** What the work really cost, when less than its charge is kept (the rest is refunded). */
      actualCredits?: number;
    }
  | {
      ok: false;
      error: string;
      errorKind: string | null;
      /** false keeps the charge (a cancel of work a vendor already runs). */
      refund: boolean;
      /** Leaves an item whose result file is being stored to complete. */
      spareStoring: boolean;
      /** Fails it only while no process holds its lease (the sweep's judgement, checked again). */
      leaseLapsed: boolean;
    }
);

/** What recording an outcome came to: nothing (the item had finished), or its generation now. */
export type Finished =
  | { recorded: false }
  | { recorded: true; refund: number; status: GenerationStatus; finished: boolean; webhook_url: string | null };

/**
 * Records an item's outcome once, in one call (finish_item, migrations 0036 and 0043), under its
 * team's row lock: the route's success, the item completed (the attempt's end, when its route
 * answered, and the file's size recorded whether or not it still was to complete) or failed, its
 * refund and ledger row, its generation's counts and final status, and the team's waiting items
 * started.
 */
export async function recordFinish(db: Queryable, f: FinishRecord): Promise<Finished> {
  return (await callWithPayload<Finished>(db, 'finish_item', finishItemPayload(f), f.teamId)) ?? { recorded: false };
}

/** What finish_item takes for an item's outcome (see recordFinish). */
export function finishItemPayload(f: FinishRecord): Record<string, unknown> {
  const common = {
    item_id: f.itemId,
    team_id: f.teamId,
    route_served: f.routeServed ?? null,
    ledger_id: f.ledgerId,
    wake: f.wake,
  };
  return f.ok
    ? {
        ...common,
        ok: true,
        url: f.url,
        result: f.result ?? null,
        bytes: f.bytes ?? null,
        attempt: f.attempt
          ? {
              outcome: f.attempt.outcome,
              error: f.attempt.error ?? null,
              error_kind: f.attempt.errorKind ?? null,
              cost: f.attempt.cost ?? null,
              answered_at: f.attempt.answeredAt?.toISOString() ?? null,
            }
          : null,
        actual_credits: f.actualCredits ?? null,
      }
    : {
        ...common,
        ok: false,
        error: f.error,
        error_kind: f.errorKind,
        refund: f.refund,
        spare_storing: f.spareStoring,
        lease_lapsed: f.leaseLapsed,
      };
}

/**
 * Records that an item's result file is about to be stored under its key, while the item is still
 * running; false when it has ended (cancelled, past its deadline): then nothing is to be stored.
 */
export async function markStoringResult(db: Queryable, itemId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `update generation_items set storing_result_at = coalesce(storing_result_at, now())
     where id = $1::text and status = 'PROCESSING'`,
    [itemId],
  );
  return (rowCount ?? 0) > 0;
}
