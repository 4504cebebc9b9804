/** Finishing items: the result stored, the item completed or failed, counted into its generation. */

import type { Queryable } from '../../db/pool.ts';
import type { AttemptEnd } from './attempts.ts';
import type { GenerationStatus } from './history.ts';

/**
 * Finishes a PROCESSING item as COMPLETED with its URL (and the size of its stored file, when
 * given); false when it was already finished. `attempt`: how the item's open vendor attempt ended,
 * recorded in the same statement whether or not the item was still to complete.
 */
export async function completeItem(
  db: Queryable,
  itemId: string,
  url: string,
  result: unknown,
  bytes?: number,
  attempt?: AttemptEnd,
): Promise<boolean> {
  const { rows } = await db.query<{ completed: boolean }>(
    `with item as (
       update generation_items set status = 'COMPLETED', url = $2::text, result = $3::jsonb, error = null,
         progress = 1, queue_position = null, result_bytes = coalesce($4::bigint, result_bytes), updated_at = now()
       where id = $1::text and status = 'PROCESSING'
       returning id
     ), attempt as (
       update item_attempts set finished_at = now(), outcome = $5::text, error = $6::text, error_kind = $7::text,
         cost = $8::numeric
       where $5::text is not null and item_id = $1::text and finished_at is null
     )
     select exists (select 1 from item) as completed`,
    [
      itemId,
      url,
      result === undefined ? null : JSON.stringify(result),
      bytes ?? null,
      attempt?.outcome ?? null,
      attempt?.error ?? null,
      attempt?.errorKind ?? null,
      attempt?.cost ?? null,
    ],
  );
  return rows[0]?.completed === true;
}

/**
 * Finishes an unfinished item as FAILED, once: the status guard lets only the first caller
 * through, and it gets the price to give back. `refund` false keeps the charge (a cancel of work a
 * vendor already runs); `spareStoring` leaves an item whose result is being stored to complete;
 * `leaseLapsed` fails it only while no process holds its lease (the sweep's judgement, checked again).
 */
export async function failItem(
  db: Queryable,
  itemId: string,
  error: string,
  errorKind: string | null,
  options: { refund: boolean; spareStoring: boolean; leaseLapsed?: boolean } = { refund: true, spareStoring: false },
): Promise<{ price: number; generation_id: string } | undefined> {
  const { rows } = await db.query<{ price: number; generation_id: string }>(
    `update generation_items set status = 'FAILED', error = $2::text, error_kind = $3::text, refunded = $4::boolean,
       progress = null, queue_position = null, updated_at = now()
     where id = $1::text and status in ('QUEUED', 'PROCESSING')
       and not ($5::boolean and storing_result_at is not null)
       and not ($6::boolean and coalesce(lease_expires_at >= now(), false))
     returning price, generation_id`,
    [itemId, error, errorKind, options.refund, options.spareStoring, options.leaseLapsed ?? false],
  );
  return rows[0];
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

export interface CountedGeneration {
  team_id: string;
  status: GenerationStatus;
  webhook_url: string | null;
  finished: boolean;
}

/**
 * Counts one finished item into its generation under the generation's row lock; the generation
 * becomes completed (some item completed) or failed (all failed) when its last item finishes.
 */
export async function countFinishedItem(
  db: Queryable,
  generationId: string,
  completed: boolean,
  refund: number,
): Promise<CountedGeneration> {
  const { rows } = await db.query<CountedGeneration>(
    `update generations set
       completed_items = completed_items + $2::int,
       failed_items = failed_items + $3::int,
       credits_refunded = credits_refunded + $4::bigint,
       status = case
         when completed_items + failed_items + 1 < total_items then 'processing'
         when completed_items + $2::int > 0 then 'completed'
         else 'failed' end,
       completed_at = case when completed_items + failed_items + 1 >= total_items then now() end,
       updated_at = now()
     where id = $1::text
     returning team_id, status, webhook_url, completed_at is not null as finished`,
    [generationId, completed ? 1 : 0, completed ? 0 : 1, refund],
  );
  return rows[0] as CountedGeneration;
}

// Worker liveness.

/** The size of an item's result file as stored (counted in its team's storage quota). */
export async function recordResultBytes(db: Queryable, itemId: string, bytes: number): Promise<void> {
  await db.query('update generation_items set result_bytes = $2::bigint where id = $1::text', [itemId, bytes]);
}
