// Ending items that are still running. Our own stops (a deadline passed, a synchronous request's
// timeout) fail the item and refund it in full, exactly once (finishItem's status guard decides a
// race with its completion), then ask its vendor job, if one runs, to stop. A team's cancel asks
// the vendor first, and refunds by its answer (cancelItem).
import type pg from 'pg';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { CancelAnswer, PollResult, VendorHandle } from '../providers/types.ts';
import { finishItem } from './finish.ts';
import * as sql from './sql/index.ts';
import type { EngineServices, Operation } from './types.ts';
import { queuePoll, reportedOutput } from './vendor.ts';

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
  failure: { error: string; errorKind: string; leaseLapsed?: boolean },
  options: StopOptions,
): Promise<boolean> {
  const failed = await finishItem(pool, services, operations[item.operation], item, { ok: false, ...failure });
  if (!failed) return false;
  await endVendorAttempt(pool, services, item, { error: failure.error, errorKind: failure.errorKind });
  await cancelRecordedJob(pool, item.id, options);
  return true;
}

/** Closes the open vendor attempt of an item that was stopped, and counts it. */
async function endVendorAttempt(
  pool: pg.Pool,
  services: EngineServices,
  item: sql.ClaimedItem,
  failure: { error: string; errorKind: string },
): Promise<void> {
  if (!item.provider) return;
  await sql.finishAttempt(pool, item.id, { outcome: 'failed', error: failure.error, errorKind: failure.errorKind });
  services.metrics.vendorAttemptEnded({
    provider: item.provider,
    endpoint: item.vendor_endpoint ?? 'unknown',
    outcome: 'failed',
    errorKind: failure.errorKind,
  });
}

/**
 * Asks the vendor to stop the job of an item that was stopped, when one runs (best effort). Read
 * after the failure committed, not from the claimed item: a submit answered meanwhile recorded its
 * job first, and none can be recorded now (an accepted job is recorded only on a PROCESSING item).
 */
async function cancelRecordedJob(pool: pg.Pool, itemId: string, options: StopOptions): Promise<void> {
  const job = await sql.selectAcceptedVendorJob(pool, itemId);
  const provider = job ? options.providers.get(job.provider, job.credential_id) : undefined;
  if (job && provider?.cancel) {
    await provider.cancel(job.vendor_handle as VendorHandle).catch((err: unknown) => options.log?.(err as Error));
  }
}

/** What a team's cancel refunds of an item a vendor was already running (CANCEL_REFUND). */
export type CancelRefundPolicy = 'none' | 'full';

export interface CancelOptions extends StopOptions {
  refundPolicy: CancelRefundPolicy;
}

/** What a cancel did to one unfinished item. */
export type ItemCancel =
  /**
   * Failed as canceled; `refunded` its price, or 0 when a vendor was already running it (`keptBy`
   * that vendor; `stopped` whether it has a cancel it was asked with).
   */
  | { kind: 'canceled'; refunded: number; keptBy: string | null; stopped: boolean }
  /** Its result was being stored, or its vendor job had finished: it completes, and stays charged. */
  | { kind: 'completing' }
  /** It failed by itself meanwhile (refunded as any failure). */
  | { kind: 'finished' };

/** What cancelling a generation came to. */
export type CancelOutcome =
  | { kind: 'not_found' }
  /** It had already finished (completed or failed) before the cancel. */
  | { kind: 'finished' }
  /** Nothing was left to cancel: its unfinished items completed (or were completing) first. */
  | { kind: 'completed_first' }
  | { kind: 'canceled'; items: ItemCancel[]; refunded: number; message: string };

/**
 * Cancels one unfinished item for its team. Where a vendor runs it, the vendor is asked to stop
 * first and its answer decides the refund: in full while the vendor had not started it, by the
 * policy once it had (or could not say); a job the vendor had finished is left to complete. Then
 * the item fails as canceled, unless its result is being stored (a file the client may fetch is
 * never refunded) or it finished meanwhile; finishItem's status guard decides, so the refund is
 * made once and never beside a completion.
 */
async function cancelItem(
  pool: pg.Pool,
  services: EngineServices,
  operations: Record<string, Operation>,
  item: sql.ClaimedItem,
  options: CancelOptions,
): Promise<ItemCancel> {
  if (item.storing_result_at) return { kind: 'completing' };
  // Queued, or made by the simulator: no vendor charges for it.
  let vendorRuns = false;
  let asked = false;
  const provider = item.provider ? options.providers.get(item.provider, item.credential_id) : undefined;
  if (item.vendor_state === 'submitting' && provider) {
    // A submit not yet answered. A vendor with a cancel has its job cancelled as soon as the submit
    // answers, before it runs (send). One without runs what it was sent and charges for it: a
    // synchronous vendor (an OpenAI-compatible server, ElevenLabs), whose submit is the work, or a
    // queue with no cancel (Meshy, Suno). The policy decides then, as for a running job.
    vendorRuns = !provider.cancel;
  }
  if (item.vendor_state === 'accepted' && item.provider && item.vendor_handle) {
    let answer: CancelAnswer = 'running';
    if (provider?.cancel) {
      asked = true;
      try {
        answer = await provider.cancel(item.vendor_handle as VendorHandle);
      } catch (err) {
        // No answer: the job may run on, and be charged.
        options.log?.(err as Error);
      }
    }
    if (answer === 'finished' && provider) {
      // It ended at the vendor first. With a result, the item completes from it (the poll queued
      // now carries it, so the vendor is not asked again); without one it fails here, refunded like
      // any failure, rather than be tried again after the cancel.
      let ended: PollResult | undefined;
      try {
        ended = await provider.poll(item.vendor_handle as VendorHandle);
      } catch (err) {
        options.log?.(err as Error);
      }
      if (ended?.kind === 'done') {
        await queuePoll(pool, item.id, 0, reportedOutput(ended.output));
        return { kind: 'completing' };
      }
      // A failure was not charged. An end that cannot be read now (the poll failed, or still says
      // it runs) is cancelled as work the vendor ran, under the policy: no later poll may then
      // submit it again or send it to another vendor after the team cancelled it.
      answer = ended?.kind === 'failed' ? 'not_started' : 'running';
    }
    vendorRuns = answer === 'running';
  }
  const refund = !vendorRuns || options.refundPolicy === 'full';
  const error = refund
    ? 'canceled'
    : `canceled: not refunded, ${item.provider} had already started the work, which it charges for (CANCEL_REFUND=none)`;
  const failed = await finishItem(pool, services, operations[item.operation], item, {
    ok: false,
    error,
    errorKind: 'canceled',
    refund,
    spareStoring: true,
  });
  if (!failed) {
    const now = await sql.selectItemResult(pool, item.id);
    return now?.status === 'FAILED' ? { kind: 'finished' } : { kind: 'completing' };
  }
  await endVendorAttempt(pool, services, item, { error, errorKind: 'canceled' });
  if (!asked) await cancelRecordedJob(pool, item.id, options);
  return {
    kind: 'canceled',
    refunded: refund ? item.price : 0,
    keptBy: refund ? null : item.provider,
    stopped: asked || Boolean(provider?.cancel),
  };
}

/** What a cancel's answer says of it, plainly. */
function describeCancel(items: ItemCancel[], refunded: number, policy: CancelRefundPolicy): string {
  const canceled = items.filter((i) => i.kind === 'canceled');
  const kept = canceled.filter((i) => i.keptBy !== null);
  const completing = items.filter((i) => i.kind === 'completing').length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const parts = [`Cancelled ${plural(canceled.length, 'item')}; ${plural(refunded, 'credit')} refunded.`];
  if (kept.length > 0) {
    const vendors = [...new Set(kept.map((i) => i.keptBy))].join(', ');
    const stop = kept.every((i) => i.kind === 'canceled' && i.stopped)
      ? 'it was asked to stop'
      : 'a vendor with no cancel runs it to its end';
    parts.push(
      `${plural(kept.length, 'item')} ${kept.length === 1 ? 'was' : 'were'} not refunded: ${vendors} had already ` +
        `started the work, which it charges for (CANCEL_REFUND=${policy}); ${stop}.`,
    );
  }
  if (completing > 0) {
    parts.push(
      `${plural(completing, 'item')} had completed first and ${completing === 1 ? 'keeps its' : 'keep their'} ` +
        'result and charge.',
    );
  }
  return parts.join(' ');
}

/**
 * Cancels a team's generation: every item not yet finished fails with the error `canceled`,
 * refunded once by what its vendor did (cancelItem); an item that completes meanwhile, or whose
 * result is being stored, keeps its outcome (and its charge).
 */
export async function cancelGeneration(
  pool: pg.Pool,
  services: EngineServices,
  operations: Record<string, Operation>,
  generationId: string,
  teamId: string,
  options: CancelOptions,
): Promise<CancelOutcome> {
  const ids = await sql.selectUnfinishedItemIds(pool, generationId, teamId);
  if (ids === undefined) return { kind: 'not_found' };
  const items: ItemCancel[] = [];
  for (const id of ids) {
    const item = await sql.selectUnfinishedItem(pool, id);
    items.push(item ? await cancelItem(pool, services, operations, item, options) : { kind: 'finished' });
  }
  // What its items asked to have made first (their speech) is not wanted any more: stopped, and its
  // vendor job cancelled where the vendor can (it had no price of its own to refund).
  const subWork = await sql.selectUnfinishedSubWorkItemIds(pool, generationId);
  await stopItems(pool, services, operations, subWork, { error: 'canceled', errorKind: 'canceled' }, options);
  if (!items.some((i) => i.kind === 'canceled')) {
    return items.some((i) => i.kind === 'completing') ? { kind: 'completed_first' } : { kind: 'finished' };
  }
  const refunded = items.reduce((sum, i) => sum + (i.kind === 'canceled' ? i.refunded : 0), 0);
  return { kind: 'canceled', items, refunded, message: describeCancel(items, refunded, options.refundPolicy) };
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
