import { withTransaction } from '../db/pool.ts';
import { WorkError } from '../lib/errors.ts';
import type { PickedRoute } from '../providers/registry.ts';
import type { Provider } from '../providers/types.ts';
import { isOwnWork, listedModelOf, modelUnavailable, simulatorMayMake, vendorWork } from './availability.ts';
import { resultKey } from './create.ts';
import { discardResult, executable, markStoringResult, type Outcome, recordOutcome } from './finish.ts';
import { requestMismatch } from './operation.ts';
import * as sql from './sql/index.ts';
import type { ExecutionContext, LocalFile, NextStep, Operation, RunOptions, VendorWork } from './types.ts';
import { chooseRoute, submitIsCapped, submitToVendor } from './vendor.ts';

/** Keeps the item's lease fresh while it runs (sooner after a failed renewal), until stopped. */
export function holdLease(ctx: ExecutionContext, itemId: string): () => void {
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
 * Claims an item within its team's cap; over it, the item waits its turn and is started when room
 * frees. The usual case (room without counting) is one statement; the rest a transaction that counts.
 */
export async function claimWithinTeamCap(ctx: ExecutionContext, itemId: string): Promise<sql.CappedClaim> {
  const { leaseMs, teamMaxConcurrentItems } = ctx.itemPolicy;
  return (
    (await sql.claimItemWithRoom(ctx.pool, itemId, leaseMs, teamMaxConcurrentItems)) ??
    (await withTransaction(ctx.pool, (client) =>
      sql.claimItemWithinCap(client, itemId, leaseMs, teamMaxConcurrentItems),
    ))
  );
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
  const claim = await claimWithinTeamCap(ctx, itemId);
  if (claim.kind !== 'claimed') return;
  await runClaimed(ctx, operations, claim.item, options);
}

/**
 * Runs an item claimed under a lease (runItem): the lease is kept while the vendor is asked,
 * except for a request running the item itself (`options.here`), which keeps it for the whole
 * call and is answered the next step a worker's run would queue as a job.
 */
export async function runClaimed(
  ctx: ExecutionContext,
  operations: Record<string, Operation>,
  item: sql.ClaimedItem,
  options: RunOptions,
): Promise<NextStep | undefined> {
  const policy = ctx.itemPolicy;
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
  const { local, work, candidates } = itemRoutes(ctx, operation, item);
  if (local) {
    await runLocal(ctx, operation, item, work, options);
    return;
  }
  if (!work || (candidates.length === 0 && !item.vendor_state)) {
    const refusal = modelUnavailable(listedModelOf(item.operation, executable(item)), 'its credits were refunded');
    await finish({ ok: false, error: refusal.message, errorKind: 'unavailable' });
    return;
  }
  const release = options.here ? undefined : holdLease(ctx, item.id);
  try {
    return await submitToVendor(ctx, operation, item, candidates, work, options);
  } finally {
    release?.();
  }
}

/**
 * What makes an item now. A configured vendor's routes serve it; without one, the service's own
 * work is made here (`local`), and a vendor's model is stood in for by the simulator's route where
 * the operator lets it (checked at accept too; the configuration may have changed since). A job
 * already sent on a route is followed there whatever the configuration says now.
 */
function itemRoutes(
  ctx: ExecutionContext,
  operation: Operation,
  item: sql.ClaimedItem,
): { local: boolean; work: VendorWork | undefined; candidates: PickedRoute[] } {
  const input = executable(item);
  const work = vendorWork(ctx, item.operation, operation, input);
  const vendors = work ? ctx.providers.candidates(work.routes, work.request) : [];
  if (vendors.length === 0 && !item.vendor_state && isOwnWork(operation, input, work)) {
    return { local: true, work, candidates: [] };
  }
  const candidates =
    vendors.length > 0 || !simulatorMayMake(ctx, item.operation, input)
      ? vendors
      : [simulatorRoute(ctx.simulator, item.operation)];
  return { local: false, work, candidates };
}

/** The route an item claimed at accept is recorded as on its way to (see routeAtAccept). */
export interface RouteAtAccept {
  picked: PickedRoute;
  submit: sql.ItemSubmit;
}

/**
 * The route an item claimed at accept will be sent to, chosen before it is accepted so that its
 * acceptance records the submit too (one call to the database less), as runClaimed would choose
 * it: a vendor's route of its model (or the simulator's, standing in), not cooling down. Only where
 * the item would be sent at once: nothing is made before sending (`prepare`), and no credential of
 * the route's vendor has caps (those are counted under their locks as the item is sent). Otherwise
 * undefined, and the item is sent as any other.
 */
export async function routeAtAccept(
  ctx: ExecutionContext,
  operations: Record<string, Operation>,
  item: sql.ClaimedItem,
): Promise<RouteAtAccept | undefined> {
  const operation = operations[item.operation];
  if (!operation || operation.prepare) return undefined;
  const { local, work, candidates } = itemRoutes(ctx, operation, item);
  if (local || !work || candidates.length === 0) return undefined;
  const choice = await chooseRoute(ctx, item, candidates);
  if (choice.kind !== 'route' || submitIsCapped(ctx, choice.picked)) return undefined;
  const { provider, route, credentialId } = choice.picked;
  return {
    picked: choice.picked,
    submit: {
      provider: provider.id,
      endpoint: route.endpoint,
      simulated: provider.id === ctx.simulator.id,
      credentialId: credentialId ?? null,
    },
  };
}

/**
 * The simulator's route for items of `operation`: its endpoint is the operation, and it reads the
 * request in the service's own terms (the submit's `request`), so its mapping sends nothing else.
 */
function simulatorRoute(simulator: Provider, operation: string): PickedRoute {
  return {
    route: { provider: simulator.id, endpoint: operation },
    provider: simulator,
    map: () => ({}),
    trustedOrigins: [],
  };
}

/**
 * The service's own work (the operation's `local` step): made here, stored, and the item
 * completed with it. A failure the step calls retryable is tried again by the item's job while
 * attempts remain; any other fails the item and refunds it.
 */
async function runLocal(
  ctx: ExecutionContext,
  operation: Operation,
  item: sql.ClaimedItem,
  work: VendorWork | undefined,
  options: RunOptions,
): Promise<void> {
  const finish = (outcome: Outcome) => recordOutcome(ctx, operation, item, outcome);
  const make = operation.local;
  if (!make) return;
  const releaseLease = options.here ? () => undefined : holdLease(ctx, item.id);
  let file: LocalFile;
  try {
    file = await make.call(operation, ctx, executable(item), work);
  } catch (err) {
    releaseLease();
    const retryable = !(err instanceof WorkError) || err.retryable;
    if (retryable && options.mayRetry && item.failures + 1 < ctx.itemPolicy.maxAttempts) {
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
    // Once stored, a file whose URL was handed out at accept may be fetched: recorded first.
    if (!(await markStoringResult(ctx, operation, item.id))) return;
    const key = resultKey(item.generation_id, item.id, item.storage_token, file.extension);
    await ctx.storage.put(key, file.data, file.contentType);
    const metadata = file.metadata && Object.keys(file.metadata).length > 0 ? file.metadata : undefined;
    const url = ctx.storage.publicUrl(key);
    if (!(await finish({ ok: true, url, file: { ...file, metadata }, bytes: file.data.length }))) {
      await discardResult(ctx, item.id, key);
    }
  } finally {
    releaseLease();
  }
}
