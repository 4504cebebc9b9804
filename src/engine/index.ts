// The engine's public face: what the modules ask of it beyond declaring their endpoints
// (define.ts) and cancelling (cancel.ts). Modules call these and never import the engine's SQL
// (engine/sql/), so the engine may change how it stores work without touching them.
import type { Queryable } from '../db/pool.ts';
import { AppError } from '../lib/errors.ts';
import { type StatusRow, selectItemResult, selectStatus } from './sql/history.ts';

export { startWaitingItems } from './create.ts';
export { type ItemOutcome, runAndWait, runItemsHere } from './in-process.ts';
export { selectCoolingRoutes as coolingRoutes } from './sql/attempts.ts';
export { generationExists as teamHasGeneration, selectItemTraceparent as itemTraceparent } from './sql/generations.ts';
export {
  type HistoryFilter,
  type HistoryRow,
  type StatusRow,
  selectHistory as readHistory,
  selectStatus as readStatus,
  selectStatuses as readStatuses,
} from './sql/history.ts';
export { beat as markWorkersAlive, claimDeadWorkers, forget as forgetWorkers } from './sql/recovery.ts';
export { needSubWork, type SubWorkRequest, type SubWorkResult } from './sub-work.ts';
export { acceptVendorWebhook, refusedWebhook, type WebhookTarget, webhookItemOf } from './vendor-webhook.ts';

/** What the first item of a team's generation recorded (a text generation's one answer), if anything. */
export async function readFirstItemResult(
  db: Queryable,
  generationId: string,
  teamId: string,
): Promise<Record<string, unknown> | null | undefined> {
  const itemId = (await selectStatus(db, generationId, teamId))?.items[0]?.id;
  return itemId === undefined ? undefined : (await selectItemResult(db, itemId))?.result;
}

/**
 * Waits until a team's generation is completed or failed (reading its status row every 200 ms at
 * first, then every second) or `gone()` says the one waiting left, and answers its status row
 * then; undefined when `waitMs` would run out first.
 */
export async function waitForGenerationEnd(
  db: Queryable,
  id: string,
  teamId: string,
  gone: () => boolean,
  waitMs: number,
): Promise<StatusRow | undefined> {
  const deadline = Date.now() + waitMs;
  for (let step = 200; ; step = Math.min(1000, step * 1.5)) {
    const row = await selectStatus(db, id, teamId);
    if (!row) throw new AppError('internal_error', `Generation ${id} is missing`);
    if (row.status === 'completed' || row.status === 'failed' || gone()) return row;
    if (Date.now() + step > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, step));
  }
}
