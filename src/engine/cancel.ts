// Ending items that are still running: a deadline passed (the recovery sweep) or the team cancelled
// the generation. The item fails and is refunded exactly once (finishItem's status guard decides
// a race with its completion), then its vendor job, if one runs, is asked to stop.
import type pg from 'pg';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { VendorHandle } from '../providers/types.ts';
import { finishItem } from './finish.ts';
import * as sql from './sql.ts';
import type { EngineServices, Operation } from './types.ts';

export interface StopOptions {
  /** The configured vendors: a stopped item's vendor job is cancelled there (best effort). */
  providers: Pick<ProviderRegistry, 'get'>;
  /** Told of a vendor job that could not be cancelled. */
  log?: (err: Error) => void;
}

/**
 * Fails an unfinished item with `error` (refunded once) and cancels its vendor job where the vendor
 * can; false when the item had finished first (nothing changes then).
 */
export async function stopItem(
  pool: pg.Pool,
  services: EngineServices,
  operations: Record<string, Operation>,
  item: sql.ClaimedItem,
  failure: { error: string; errorKind: string },
  options: StopOptions,
): Promise<boolean> {
  const failed = await finishItem(pool, services, operations[item.operation], item, { ok: false, ...failure });
  if (!failed) return false;
  if (item.provider) {
    await sql.finishAttempt(pool, item.id, { outcome: 'failed', error: failure.error, errorKind: failure.errorKind });
    services.metrics.vendorAttemptEnded({
      provider: item.provider,
      endpoint: item.vendor_endpoint ?? 'unknown',
      outcome: 'failed',
      errorKind: failure.errorKind,
    });
  }
  // The vendor may still be working on it (and charging for it): ask it to stop. Read after the
  // failure committed, not from `item`: a submit answered meanwhile recorded its job first, and
  // none can be recorded now (an accepted job is recorded only on a PROCESSING item).
  const job = await sql.selectAcceptedVendorJob(pool, item.id);
  const provider = job ? options.providers.get(job.provider) : undefined;
  if (job && provider?.cancel) {
    await provider.cancel(job.vendor_handle as VendorHandle).catch((err: unknown) => options.log?.(err as Error));
  }
  return true;
}

/** What cancelling a generation came to. */
export type CancelOutcome =
  | { kind: 'not_found' }
  /** It had already finished (completed or failed) before the cancel took effect. */
  | { kind: 'finished' }
  | { kind: 'canceled'; items: number };

/**
 * Cancels a team's generation: every item not yet finished fails with the error `canceled` and is
 * refunded once; an item that finishes meanwhile keeps its outcome (and its charge).
 */
export async function cancelGeneration(
  pool: pg.Pool,
  services: EngineServices,
  operations: Record<string, Operation>,
  generationId: string,
  teamId: string,
  options: StopOptions,
): Promise<CancelOutcome> {
  const ids = await sql.selectUnfinishedItemIds(pool, generationId, teamId);
  if (ids === undefined) return { kind: 'not_found' };
  const stopped = await stopItems(
    pool,
    services,
    operations,
    ids,
    { error: 'canceled', errorKind: 'canceled' },
    options,
  );
  return stopped > 0 ? { kind: 'canceled', items: stopped } : { kind: 'finished' };
}

/**
 * Stops every item of `itemIds` that has not finished (see stopItem); answers how many it
 * stopped (items that finished first are left as they ended).
 */
export async function stopItems(
  pool: pg.Pool,
  services: EngineServices,
  operations: Record<string, Operation>,
  itemIds: string[],
  failure: { error: string; errorKind: string },
  options: StopOptions,
): Promise<number> {
  let stopped = 0;
  for (const id of itemIds) {
    const item = await sql.selectUnfinishedItem(pool, id);
    if (item && (await stopItem(pool, services, operations, item, failure, options))) stopped += 1;
  }
  return stopped;
}
