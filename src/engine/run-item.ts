import { withTransaction } from '../db/pool.ts';
import { WorkError } from '../lib/errors.ts';
import type { ProviderFile, VendorRequest } from '../providers/types.ts';
import { extensionForContentType } from '../storage/keys.ts';
import { isOwnWork, listedModelOf, modelUnavailable, simulatorMayMake } from './availability.ts';
import { resultKey } from './create.ts';
import { discardResult, executable, markStoringResult, type Outcome, recordOutcome } from './finish.ts';
import { requestMismatch } from './operation.ts';
import * as sql from './sql/index.ts';
import type { ExecutableItem, ExecutionContext, Operation, RunOptions } from './types.ts';
import { submitToVendor } from './vendor.ts';

/** Keeps the item's lease fresh while it runs (sooner after a failed renewal), until stopped. */
function holdLease(ctx: ExecutionContext, itemId: string): () => void {
  const every = Math.max(100, Math.floor(ctx.itemPolicy.leaseMs / 3));
  let timer: NodeJS.Timeout;
  // A renewal still in flight when the hold is released must not arm a timer again (after the pool
  // closed it would retry every second for ever).
  let held = true;
  const renew = () => {
    sql.renewItemLeases(ctx.pool, [itemId], ctx.itemPolicy.leaseMs).then(
      () => {
        if (held) timer = setTimeout(renew, every);
      },
      () => {
        if (held) timer = setTimeout(renew, Math.min(every, 1000));
      },
    );
  };
  timer = setTimeout(renew, every);
  return () => {
    held = false;
    clearTimeout(timer);
  };
}

/**
 * Runs one item: claim it under a lease, run its operation, copy the result into our storage,
 * and record the outcome. A retryable provider failure is counted on the item and rethrown
 * while attempts remain (the queue retries with backoff); any other failure, or the last
 * attempt, fails the item and refunds it. Runs that ended with no outcome (a crash or an
 * outage) are not provider failures: they are counted apart and fail the item only past
 * `maxInterruptions`. Recording a finished item rides out a database outage, so done work is
 * not thrown away. Workers run this from the item's job; synchronous endpoints run it in the
 * request, with no retries.
 */
export async function runItem(
  ctx: ExecutionContext,
  operations: Record<string, Operation>,
  itemId: string,
  options: RunOptions,
): Promise<void> {
  const policy = ctx.itemPolicy;
  // Within the team's cap; over it, the item waits its turn and is started when room frees.
  const claim = await withTransaction(ctx.pool, (client) =>
    sql.claimItemWithinCap(client, itemId, policy.leaseMs, policy.teamMaxConcurrentItems),
  );
  if (claim.kind !== 'claimed') return;
  const item = claim.item;
  const operation = operations[item.operation];
  const finish = (outcome: Outcome) => recordOutcome(ctx, operation, item, outcome);
  if (!operation) {
    await finish({ ok: false, error: `No executor for operation ${item.operation}` });
    return;
  }
  // The stored request is checked once, here: the operation's steps read it as its schema says (so
  // not even its failure hook is given one that does not match).
  const mismatch = requestMismatch(operation, item);
  if (mismatch) {
    await recordOutcome(ctx, undefined, item, mismatch);
    return;
  }
  const interruptions = item.attempts - 1 - item.failures;
  if (interruptions > policy.maxInterruptions) {
    await finish({
      ok: false,
      error: `Stopped after its run was interrupted ${interruptions} times (the worker running it stopped)`,
    });
    return;
  }
  // A vendor serves the item when one of its routes is configured; the simulator otherwise.
  const input = executable(item);
  const work = operation.vendor?.(ctx, input);
  const candidates = work ? ctx.providers.candidates(work.routes, work.request) : [];
  if (work && (candidates.length > 0 || item.vendor_state)) {
    const release = holdLease(ctx, item.id);
    try {
      await submitToVendor(ctx, operation, item, candidates, work, options);
    } finally {
      release();
    }
    return;
  }
  // No configured vendor serves it: the simulator does, where the operator lets it stand in for
  // the model (checked at accept too; the configuration may have changed since).
  if (!isOwnWork(operation, input, work)) {
    if (!simulatorMayMake(ctx, item.operation, input)) {
      const refusal = modelUnavailable(listedModelOf(item.operation, input), 'its credits were refunded');
      await finish({ ok: false, error: refusal.message, errorKind: 'unavailable' });
      return;
    }
    await sql.markItemSimulated(ctx.pool, item.id);
  }
  const releaseLease = holdLease(ctx, item.id);
  let file: ProviderFile;
  try {
    file = await simulatedFile(ctx, item.operation, input, work?.request, `${item.id}-${item.attempts}`);
  } catch (err) {
    releaseLease();
    const retryable = !(err instanceof WorkError) || err.retryable;
    if (retryable && options.mayRetry && item.failures + 1 < policy.maxAttempts) {
      await sql.recordItemFailure(ctx.pool, item.id);
      throw err;
    }
    await finish({
      ok: false,
      error: err instanceof Error ? err.message : String(err),
      errorKind: err instanceof WorkError ? err.kind : undefined,
    });
    return;
  }
  try {
    // Once stored, the file may be fetched (its URL can have been handed out): record that first,
    // so a cancel can no longer refund it, and store nothing for an item that has ended meanwhile.
    if (!(await markStoringResult(ctx, item.id))) return;
    const key = resultKey(item.generation_id, item.id, item.storage_token, file.extension);
    await ctx.storage.put(key, file.data, file.contentType);
    await sql.recordResultBytes(ctx.pool, item.id, file.data.length);
    if (!(await finish({ ok: true, url: ctx.storage.publicUrl(key), file }))) await discardResult(ctx, item.id, key);
  } finally {
    releaseLease();
  }
}

/**
 * The simulator's file for an item of `operation`, asked of it as of any provider (with the request
 * the operation makes for vendors, when it makes one): its submit answers at once with the file's
 * bytes; a failure is the WorkError it throws.
 */
export async function simulatedFile(
  ctx: ExecutionContext,
  operation: string,
  item: ExecutableItem,
  request: VendorRequest | undefined,
  idempotencyKey: string,
): Promise<ProviderFile> {
  const result = await ctx.simulator.submit({
    endpoint: operation,
    input: {},
    idempotencyKey,
    signal: ctx.signal,
    item,
    request,
  });
  const file = result.kind === 'done' ? result.output.files[0] : undefined;
  const extension = file && 'data' in file ? (file.extension ?? extensionForContentType(file.contentType)) : undefined;
  if (!file || !('data' in file) || result.kind !== 'done' || !extension) {
    throw new WorkError('The simulator answered no file', false, { kind: 'internal' });
  }
  // A run that says nothing of its file (images, most videos) leaves the item's result empty (NULL),
  // as before the simulator answered as a provider.
  const { metadata, actualCredits } = result.output;
  return { ...file, extension, metadata: Object.keys(metadata).length > 0 ? metadata : undefined, actualCredits };
}
