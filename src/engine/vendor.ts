// Items served by a real vendor: submitted once, recorded with the vendor's handle, and finished
// by poll jobs (or at once when the vendor's webhook says the job is done), without holding a
// worker while the vendor works. The result files are streamed from the vendor into our storage.
import { extname } from 'node:path';
import { type Queryable, withTransaction } from '../db/pool.ts';
import { FetchFailedError, safeFetchStream, UnsafeUrlError } from '../lib/safe-fetch.ts';
import type { PickedRoute } from '../providers/registry.ts';
import { type OutputFile, ProviderError, type ProviderOutput, type VendorHandle } from '../providers/types.ts';
import { extensionForContentType } from '../storage/keys.ts';
import { ITEM_JOB_MAX_ATTEMPTS, ITEM_TASK, resultKey, VENDOR_POLL_TASK } from './create.ts';
import { executable, type Outcome, recordOutcome } from './finish.ts';
import * as sql from './sql.ts';
import type { ExecutionContext, Operation, VendorWork } from './types.ts';

/** Attempts of one poll job (network errors on the way to the vendor are retried by the queue). */
export const VENDOR_POLL_MAX_ATTEMPTS = 25;
// The longest pause between two polls, whatever the vendor suggests.
const MAX_POLL_DELAY_MS = 60_000;
// A vendor's result file: its size cap and how long copying it may take.
const RESULT_MAX_BYTES = 4 * 1024 * 1024 * 1024;
const RESULT_COPY_TIMEOUT_MS = 30 * 60_000;

/** Queues a poll of an item's vendor job after `delayMs`, replacing one already waiting. */
export async function queuePoll(db: Queryable, itemId: string, delayMs: number): Promise<void> {
  await sql.addJob(
    db,
    VENDOR_POLL_TASK,
    { item_id: itemId },
    {
      maxAttempts: VENDOR_POLL_MAX_ATTEMPTS,
      runAt: new Date(Date.now() + Math.min(Math.max(0, delayMs), MAX_POLL_DELAY_MS)),
      jobKey: `vendor_poll:${itemId}`,
    },
  );
}

function failure(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Sends a claimed item to its vendor. A job the vendor already accepted (the item was queued
 * again after a crash) is never submitted again: it is polled. A submit whose outcome is unknown
 * (a crash between the call and recording its answer) cannot be found again at a vendor without
 * idempotency keys: the item is failed and refunded. Returns once the vendor has the job; a
 * retryable refusal is rethrown (the queue retries while attempts remain).
 */
export async function submitToVendor(
  ctx: ExecutionContext,
  operation: Operation,
  item: sql.ClaimedItem,
  picked: PickedRoute,
  work: VendorWork,
  options: { mayRetry: boolean },
): Promise<void> {
  if (item.vendor_state === 'accepted') {
    await queuePoll(ctx.pool, item.id, 0);
    return;
  }
  if (item.vendor_state === 'submitting') {
    await withTransaction(ctx.pool, (client) => sql.finishAttempt(client, item.id, 'unknown', 'lost in a crash'));
    await finish(ctx, operation, item, {
      ok: false,
      error: `The job sent to ${item.provider} could not be confirmed after the worker stopped; it was not charged`,
    });
    return;
  }
  const { provider, route } = picked;
  if (!(await sql.markSubmitting(ctx.pool, item.id, provider.id, route.endpoint))) return;
  let result: Awaited<ReturnType<typeof provider.submit>>;
  try {
    result = await provider.submit({
      endpoint: route.endpoint,
      input: picked.map(work.request),
      idempotencyKey: item.id,
      webhookUrl: ctx.vendorWebhookUrl(provider.id),
      signal: ctx.signal,
    });
  } catch (err) {
    // Refused (or unreachable): nothing was accepted, so the item may be sent again.
    await sql.finishAttempt(ctx.pool, item.id, 'submit_failed', failure(err));
    await sql.clearVendorState(ctx.pool, item.id);
    await failOrRetry(ctx, operation, item, err, options.mayRetry);
    return;
  }
  if (result.kind === 'done') {
    await completeFromOutput(ctx, operation, item, work, result.output);
    return;
  }
  await withTransaction(ctx.pool, async (client) => {
    if (await sql.markAccepted(client, item.id, result.handle, result.vendorRequestId)) {
      await queuePoll(client, item.id, 1000);
    }
  });
}

/**
 * One poll of an item's vendor job: still running (progress recorded, the next poll queued), done
 * (the result copied in and the item completed) or failed (retried or refunded by the policy).
 */
export async function pollVendor(
  ctx: ExecutionContext,
  operations: Record<string, Operation>,
  itemId: string,
): Promise<void> {
  const item = await sql.selectUnfinishedItem(ctx.pool, itemId);
  if (item?.vendor_state !== 'accepted' || !item.vendor_handle || !item.provider) return;
  const operation = operations[item.operation];
  const provider = ctx.providers.get(item.provider);
  if (!operation?.vendor || !provider) {
    await finish(ctx, operation, item, { ok: false, error: `Provider ${item.provider} is no longer configured` });
    return;
  }
  const work = operation.vendor(ctx, executable(item));
  const result = await provider.poll(item.vendor_handle as VendorHandle, ctx.signal);
  if (result.kind === 'pending') {
    await withTransaction(ctx.pool, async (client) => {
      await sql.updateVendorProgress(client, item.id, result.progress ?? null, result.queuePosition ?? null);
      await queuePoll(client, item.id, result.pollAfterMs);
    });
    return;
  }
  if (result.kind === 'failed') {
    await sql.finishAttempt(ctx.pool, item.id, 'failed', result.error.message);
    await sql.clearVendorState(ctx.pool, item.id);
    await failOrRetry(ctx, operation, item, result.error, true);
    return;
  }
  await completeFromOutput(ctx, operation, item, work, result.output);
}

/** Copies the vendor's first file into our storage and completes the item. */
async function completeFromOutput(
  ctx: ExecutionContext,
  operation: Operation,
  item: sql.ClaimedItem,
  work: VendorWork,
  output: ProviderOutput,
): Promise<void> {
  const file = output.files[0];
  if (!file) throw new ProviderError('The vendor answered no file', false);
  let stored: { url: string; contentType: string; extension: string; width?: number; height?: number };
  try {
    stored = await copyResult(ctx, item, file, work.expects, ctx.trustedOriginsOf(item.provider ?? ''));
  } catch (err) {
    // A copy that failed is tried again from the same vendor result (a poll), never by a new job.
    if ((err instanceof FetchFailedError && err.retryable) || !(err instanceof Error)) throw err;
    await sql.finishAttempt(ctx.pool, item.id, 'failed', failure(err));
    await finish(ctx, operation, item, { ok: false, error: `The vendor's result could not be used: ${failure(err)}` });
    return;
  }
  await sql.finishAttempt(ctx.pool, item.id, 'completed', null);
  await finish(ctx, operation, item, {
    ok: true,
    url: stored.url,
    file: {
      contentType: stored.contentType,
      extension: stored.extension,
      width: stored.width,
      height: stored.height,
      metadata: output.metadata,
    },
  });
}

/**
 * Streams one vendor file into our storage: under the outbound policy (the vendor's own origins
 * are trusted), of the media type the operation produces, within the size cap.
 */
async function copyResult(
  ctx: ExecutionContext,
  item: sql.ClaimedItem,
  file: OutputFile,
  expects: VendorWork['expects'],
  trustedOrigins: string[],
): Promise<{ url: string; contentType: string; extension: string; width?: number; height?: number }> {
  if ('data' in file) throw new ProviderError('Inline vendor results are not supported yet', false);
  let origin: string | undefined;
  try {
    origin = new URL(file.url).origin;
  } catch {
    throw new UnsafeUrlError(file.url, 'the vendor gave an invalid URL');
  }
  const fetched = await safeFetchStream(file.url, {
    allowPrivate: ctx.allowPrivateUrls || trustedOrigins.includes(origin),
    timeoutMs: RESULT_COPY_TIMEOUT_MS,
    maxBytes: RESULT_MAX_BYTES,
  });
  const contentType = fetched.contentType || (file.contentType ?? '').toLowerCase();
  const extension = extensionForContentType(contentType) ?? extname(new URL(file.url).pathname).slice(1);
  if (!contentType.startsWith(`${expects}/`) || !extension) {
    fetched.body.destroy();
    throw new ProviderError(`The vendor's result is ${contentType || 'of no type'}, not ${expects}`, false, {
      kind: 'internal',
    });
  }
  const key = resultKey(item.generation_id, item.id, item.storage_token, extension);
  await ctx.storage.putStream(key, fetched.body, contentType);
  return { url: ctx.storage.publicUrl(key), contentType, extension, width: file.width, height: file.height };
}

/** Retries a retryable failure while provider attempts remain (rethrowing for the queue), or fails the item. */
async function failOrRetry(
  ctx: ExecutionContext,
  operation: Operation,
  item: sql.ClaimedItem,
  err: unknown,
  mayRetry: boolean,
): Promise<void> {
  const retryable = err instanceof ProviderError ? err.retryable : true;
  if (retryable && mayRetry && item.failures + 1 < ctx.itemPolicy.maxAttempts) {
    await sql.recordItemFailure(ctx.pool, item.id);
    // A fresh item job submits again, after the vendor's Retry-After when it gave one.
    const delay = err instanceof ProviderError ? (err.retryAfterMs ?? 0) : 0;
    await sql.addJob(
      ctx.pool,
      ITEM_TASK,
      { item_id: item.id },
      { maxAttempts: ITEM_JOB_MAX_ATTEMPTS, runAt: new Date(Date.now() + delay) },
    );
    return;
  }
  await finish(ctx, operation, item, { ok: false, error: failure(err) });
}

function finish(ctx: ExecutionContext, operation: Operation | undefined, item: sql.ClaimedItem, outcome: Outcome) {
  return recordOutcome(ctx, operation, item, outcome);
}
