// Items served by a real vendor: submitted once, recorded with the vendor's handle, and finished
// by poll jobs (or at once when the vendor's webhook says the job is done), without holding a
// worker while the vendor works. The result files are streamed from the vendor into our storage.

import { type Queryable, withTransaction } from '../db/pool.ts';
import { addJob } from '../db/sql.ts';
import { WorkError } from '../lib/errors.ts';
import { contentTypeForFileName } from '../lib/media-types.ts';
import { FetchFailedError, safeFetchStream, UnsafeUrlError } from '../lib/safe-fetch.ts';
import { macMatches, type SecretBox } from '../lib/secret-box.ts';
import { pickWeighted } from '../providers/credentials.ts';
import { countsTowardsBreaker, decide, redact } from '../providers/policy.ts';
import { type PickedRoute, routeKey } from '../providers/registry.ts';
import type { OutputFile, PollResult, Provider, ProviderOutput, VendorHandle } from '../providers/types.ts';
import { extensionForContentType } from '../storage/keys.ts';
import { vendorWork } from './availability.ts';
import { coolingRoutes, forgetCoolingRoutes } from './cooling-routes.ts';
import { ITEM_JOB_MAX_ATTEMPTS, ITEM_TASK, resultKey, VENDOR_POLL_TASK } from './create.ts';
import { discardResult, executable, markStoringResult, type Outcome, recordOutcome } from './finish.ts';
import { signInputUrls } from './inputs.ts';
import * as sql from './sql/index.ts';
import { keptText } from './text-results.ts';
import type { ExecutionContext, NextStep, Operation, RunOptions, VendorWork } from './types.ts';
import { storageCopy, vendorCall } from './vendor-spans.ts';

/** Attempts of one poll job (network errors on the way to the vendor are retried by the queue). */
export const VENDOR_POLL_MAX_ATTEMPTS = 25;
// The longest pause between two polls, whatever the vendor suggests or the settings say.
const MAX_POLL_DELAY_MS = 10 * 60_000;
// Polls back off with the job's age: the next comes after this share of the time it has run.
const POLL_BACKOFF_SHARE = 0.1;

/**
 * When to poll a vendor job next: what the vendor suggests, but never sooner than the settings'
 * minimum or a tenth of the job's age (so a long job is asked about less and less often), and
 * never later than their maximum.
 */
export function nextPollDelay(
  suggestedMs: number,
  acceptedAt: Date | null,
  poll: { minMs: number; maxMs: number },
  now = Date.now(),
): number {
  const age = acceptedAt ? Math.max(0, now - acceptedAt.getTime()) : 0;
  return Math.min(poll.maxMs, Math.max(suggestedMs, poll.minMs, age * POLL_BACKOFF_SHARE));
}
// A vendor's result file: its size cap and how long copying it may take.
const RESULT_MAX_BYTES = 4 * 1024 * 1024 * 1024;
const RESULT_COPY_TIMEOUT_MS = 30 * 60_000;
/** The most a vendor's file converted in memory (speech) may be. */
const CONVERTED_MAX_BYTES = 64 * 1024 * 1024;

/** The query parameters of a vendor webhook URL: the item it serves, and the credential bound to it. */
export const WEBHOOK_ITEM_PARAM = 'item';
export const WEBHOOK_CREDENTIAL_PARAM = 'sig';

/**
 * The credential of one item's vendor webhooks: an HMAC of the provider and the item id under a
 * key only the service holds. It is given to the vendor in the webhook URL with the item id, and a
 * webhook is believed only for the item it was made for, whatever job its body names.
 */
export function itemWebhookCredential(secrets: Pick<SecretBox, 'mac'>, providerId: string, itemId: string): string {
  return secrets.mac(`vendor-webhook:${providerId}`, itemId);
}

/** Whether `credential` is the one made for the item's webhooks at this provider. */
export function isItemWebhookCredential(
  secrets: Pick<SecretBox, 'mac'>,
  providerId: string,
  itemId: string,
  credential: string,
): boolean {
  return macMatches(itemWebhookCredential(secrets, providerId, itemId), credential);
}

/**
 * The webhook URL a vendor is given for one item, when the vendor sends webhooks we can verify and
 * can reach us: it names the item (so a webhook that arrives before the vendor's answer to the
 * submit has been recorded still finds it) with the item's credential.
 */
function webhookUrlFor(
  ctx: ExecutionContext,
  provider: Provider,
  itemId: string,
  options?: RunOptions,
): string | undefined {
  // A request running the item itself polls the job while it waits: a webhook would go to a worker.
  if (options?.here) return undefined;
  return provider.verifyWebhook ? ctx.vendorWebhookUrl(provider.id, itemId) : undefined;
}

/**
 * The least pause before polling a vendor job: polls are the safety net when the vendor was asked
 * for a webhook (at most `maxMs` apart, so ten thousand jobs in flight do not keep a worker busy
 * asking), and the way to the result otherwise (`minMs`).
 */
function firstPollDelay(ctx: ExecutionContext, provider: Provider, options?: RunOptions): number {
  return webhookUrlFor(ctx, provider, '', options) ? ctx.poll.maxMs : ctx.poll.minMs;
}

// The largest verified webhook result carried to the poll job (as JSON); a larger one is read
// from the vendor instead.
const REPORTED_OUTPUT_MAX_CHARS = 64 * 1024;

/**
 * What a verified webhook says a job made, when it can ride along in a poll job: URLs only (inline
 * bytes are read from the vendor), small enough for a job's payload.
 */
export function reportedOutput(output: ProviderOutput): ProviderOutput | undefined {
  if (output.files.some((file) => 'data' in file)) return undefined;
  return JSON.stringify(output).length <= REPORTED_OUTPUT_MAX_CHARS ? output : undefined;
}

/**
 * Queues a poll of an item's vendor job after `delayMs`, replacing one already waiting. `reported`
 * is the job's result as the vendor's verified webhook gave it: the poll then uses it instead of
 * asking the vendor again.
 */
export async function queuePoll(
  db: Queryable,
  itemId: string,
  delayMs: number,
  reported?: ProviderOutput,
): Promise<void> {
  await addJob(db, VENDOR_POLL_TASK, reported ? { item_id: itemId, reported } : { item_id: itemId }, {
    maxAttempts: VENDOR_POLL_MAX_ATTEMPTS,
    runAt: new Date(Date.now() + Math.min(Math.max(0, delayMs), MAX_POLL_DELAY_MS)),
    jobKey: `vendor_poll:${itemId}`,
  });
}

/**
 * Removes the poll waiting for an item's vendor job once the item has finished (its webhook's
 * result was recorded without that poll): nothing is left for it to look at.
 */
export async function removePollOfFinishedItem(db: Queryable, itemId: string): Promise<void> {
  await db.query(
    `select graphile_worker.remove_job('vendor_poll:' || i.id) from generation_items i
     where i.id = $1::text and i.status in ('COMPLETED', 'FAILED')`,
    [itemId],
  );
}

function failure(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The route an item takes now, among its configured routes. */
type RouteChoice =
  | { kind: 'route'; picked: PickedRoute }
  /** Every route left is cooling down: try again when the first is usable. */
  | { kind: 'wait'; until: Date }
  /** The item has left every configured route. */
  | { kind: 'exhausted' };

/**
 * Picks among the routes an item may take now (`usable`, in the model's order): the lowest tier
 * first (a route without one: its place in the list), and within it at random by weight (1 when
 * unset). A route that failed the item is no longer among them (failover), so the next attempt goes
 * to another route of the same tier while one is left, then to the next tier.
 */
export function pickRoute<T extends { route: { tier?: number; weight?: number } }>(
  usable: readonly T[],
  random: () => number = Math.random,
): T | undefined {
  const tierOf = (c: T, position: number) => c.route.tier ?? position;
  const tiers = usable.map(tierOf);
  const lowest = Math.min(...tiers);
  const tier = usable.filter((_, i) => tiers[i] === lowest);
  if (tier.length <= 1) return tier[0];
  const weights = tier.map((c) => (c.route.weight !== undefined && c.route.weight > 0 ? c.route.weight : 1));
  let left = random() * weights.reduce((sum, w) => sum + w, 0);
  for (const [i, candidate] of tier.entries()) {
    left -= weights[i] as number;
    if (left < 0) return candidate;
  }
  return tier[tier.length - 1];
}

/**
 * The route an item takes among the configured routes it has not left (failover) and that are not
 * cooling down (the circuit breaker, read from the database so every process sees it; see
 * coolingRoutes): the tiers and weights of `pickRoute`. Disabled routes never reach here (`vendorWork`).
 */
export async function chooseRoute(
  ctx: ExecutionContext,
  item: sql.ClaimedItem,
  candidates: PickedRoute[],
): Promise<RouteChoice> {
  const usable = candidates.filter(
    (c) => c.route.enabled !== false && !item.skipped_routes.includes(routeKey(c.route)),
  );
  if (usable.length === 0) return { kind: 'exhausted' };
  const tracked = usable.filter((c) => tracksHealth(ctx, c.provider.id));
  if (tracked.length === 0) return { kind: 'route', picked: pickRoute(usable) as PickedRoute };
  const cooling = await coolingRoutes(ctx.pool);
  // The place in the list stands for the tier of a route without one, before the cooling are left out.
  const placed = usable.map((c, position) => ({ ...c, route: { ...c.route, tier: c.route.tier ?? position } }));
  const ready = pickRoute(placed.filter((c) => !cooling.has(routeKey(c.route))));
  if (ready) return { kind: 'route', picked: usable[placed.indexOf(ready)] as PickedRoute };
  const until = Math.min(...usable.map((c) => cooling.get(routeKey(c.route))?.getTime() ?? Date.now()));
  return { kind: 'wait', until: new Date(until) };
}

/**
 * Sends a claimed item to a vendor: the first usable route of `candidates` (the configured routes
 * of its model). A job the vendor already accepted (the item was queued again after a crash) is
 * never submitted again: it is polled. A submit whose outcome is unknown (a crash between the
 * call and recording its answer) cannot be found again at a vendor without idempotency keys: the
 * item is failed and refunded. Returns once the vendor has the job; failures go to the policy.
 */
export async function submitToVendor(
  ctx: ExecutionContext,
  operation: Operation,
  item: sql.ClaimedItem,
  candidates: PickedRoute[],
  work: VendorWork,
  options: RunOptions,
): Promise<NextStep | undefined> {
  if (item.vendor_state === 'accepted') {
    if (options.here) return { kind: 'poll', at: Date.now() };
    await queuePoll(ctx.pool, item.id, 0);
    return;
  }
  // A crash left a submit unconfirmed: a vendor that answers a repeated key with the first job is
  // simply asked again; any other cannot be asked without risking a second job.
  const again =
    item.vendor_state === 'submitting'
      ? candidates.find(
          (c) =>
            c.provider.idempotentSubmit && c.provider.id === item.provider && c.route.endpoint === item.vendor_endpoint,
        )
      : undefined;
  const openAttempt = again ? await sql.selectOpenAttempt(ctx.pool, item.id) : undefined;
  if (item.vendor_state === 'submitting' && (!again || openAttempt === undefined)) {
    await endAttempt(ctx, item.id, item, { outcome: 'unknown', error: 'lost in a crash' });
    await finish(ctx, operation, item, {
      ok: false,
      error: `The job sent to ${item.provider} could not be confirmed after the worker stopped; it was not charged`,
    });
    return;
  }
  // Recorded as on its way to a route when it was accepted: sent there now.
  if (options.sendTo) {
    return send(ctx, operation, item, candidates, work, options.sendTo.picked, options.sendTo.attemptId, options);
  }
  if (operation.prepare) {
    // What we make ourselves is made before anything is sent: its failure is ours, not the vendor's.
    try {
      work = await operation.prepare(ctx, executable(item), work);
    } catch (err) {
      if (err instanceof WorkError && err.retryable && err.retryAfterMs !== undefined) {
        // Not ready yet (what it needs is still being made): wait, without counting a run.
        return deferUntil(ctx, item.id, new Date(Date.now() + err.retryAfterMs), options);
      }
      if (!(err instanceof WorkError) || err.retryable) throw err;
      await finish(ctx, operation, item, { ok: false, error: err.message, errorKind: err.kind });
      return;
    }
  }
  if (again && openAttempt !== undefined) {
    return send(ctx, operation, item, candidates, work, again, openAttempt, options);
  }
  const choice = await chooseRoute(ctx, item, candidates);
  if (choice.kind === 'exhausted') {
    await finish(ctx, operation, item, { ok: false, error: 'Every configured route of this model failed it' });
    return;
  }
  if (choice.kind === 'wait') return deferUntil(ctx, item.id, choice.until, options);
  const reserved = await reserveSubmit(ctx, item, choice.picked);
  if (reserved.kind === 'ended') return;
  if (reserved.kind === 'wait') return deferUntil(ctx, item.id, reserved.until, options);
  return send(ctx, operation, item, candidates, work, reserved.picked, reserved.attemptId, options);
}

/** What recording a submit found: the attempt opened (with the credential it goes with), or why not. */
type Reserved =
  | { kind: 'submit'; picked: PickedRoute; attemptId: string }
  /** Every credential of the vendor is at a cap: the item waits until `until`. */
  | { kind: 'wait'; until: Date }
  /** The item is no longer PROCESSING. */
  | { kind: 'ended' };

/**
 * Records the submit of an item on its picked route (its attempt opened, the item 'submitting'),
 * within its vendor credentials' caps, counted in PostgreSQL so they hold across processes: the
 * items at the vendor with a credential (`max_in_flight`) and its submits in the last window
 * (`rpm`), read and recorded under the credentials' locks in one transaction. A credential at a cap
 * is passed over for another active one of its vendor with room (by weight); with none, the item
 * waits (its claim taken back, its job queued again: after CREDENTIAL_CAP_RETRY_MS for an in-flight
 * cap, when the oldest submit leaves the window for `rpm`), never failed nor charged again.
 */
async function reserveSubmit(ctx: ExecutionContext, item: sql.ClaimedItem, picked: PickedRoute): Promise<Reserved> {
  const mark = async (db: Queryable, chosen: PickedRoute): Promise<Reserved> => {
    const { provider, route } = chosen;
    const simulated = provider.id === ctx.simulator.id;
    const attemptId = await sql.markSubmitting(
      db,
      item.id,
      provider.id,
      route.endpoint,
      simulated,
      chosen.credentialId,
    );
    return attemptId === undefined ? { kind: 'ended' } : { kind: 'submit', picked: chosen, attemptId };
  };
  const vendor = picked.route.provider;
  const { active, capped } = credentialsOf(ctx, picked);
  if (!capped.some((c) => c.id === picked.credentialId)) return mark(ctx.pool, picked);
  const { rpmWindowS, retryMs } = ctx.credentialCaps;
  const outcome = await withTransaction(ctx.pool, async (client) => {
    // Always in the same order, so two submits never wait for each other's locks.
    const ids = capped.map((c) => c.id).sort();
    for (const id of ids) await sql.lockCredential(client, id);
    const loads = await sql.selectCredentialLoads(client, ids, rpmWindowS);
    const full = new Map<string, { cap: 'max_in_flight' | 'rpm'; freesInMs: number }>();
    for (const c of capped) {
      const load = loads.get(c.id);
      if (!load) continue;
      if (c.maxInFlight !== null && load.inFlight >= c.maxInFlight) {
        full.set(c.id, { cap: 'max_in_flight', freesInMs: retryMs });
      } else if (c.rpm !== null && load.recent >= c.rpm) {
        full.set(c.id, { cap: 'rpm', freesInMs: Math.max(load.freesInMs, 50) });
      }
    }
    const mine = full.get(picked.credentialId as string);
    if (!mine) return { reserved: await mark(client, picked) };
    const other = pickWeighted(active.filter((c) => !full.has(c.id)));
    const instead = other && ctx.providers.withCredential(picked, other.id);
    if (instead) return { reserved: await mark(client, instead), cap: mine.cap, outcome: 'skipped' as const };
    // The first of the vendor's credentials to have room again (a little later for each waiting
    // item, so they do not all come back at once).
    const soonest = Math.min(...[...full.values()].map((f) => f.freesInMs));
    const until = new Date(Date.now() + soonest + Math.floor(Math.random() * Math.min(250, soonest)));
    return { reserved: { kind: 'wait', until } as Reserved, cap: mine.cap, outcome: 'deferred' as const };
  });
  if (outcome.cap) {
    ctx.services.metrics.credentialCapped({ provider: vendor, cap: outcome.cap, outcome: outcome.outcome });
  }
  return outcome.reserved;
}

/** The active credentials of a picked route's vendor (none without a credential), and those with caps. */
function credentialsOf(ctx: ExecutionContext, picked: PickedRoute) {
  const active = picked.credentialId
    ? ctx.providers.credentials(picked.route.provider).filter((c) => c.state === 'active')
    : [];
  return { active, capped: active.filter((c) => c.rpm !== null || c.maxInFlight !== null) };
}

/** Whether a submit on the picked route is counted against its credential's caps (reserveSubmit). */
export function submitIsCapped(ctx: ExecutionContext, picked: PickedRoute): boolean {
  return credentialsOf(ctx, picked).capped.some((c) => c.id === picked.credentialId);
}

/**
 * Takes back the claim of an item that cannot run yet, and queues its job for `until` (a request
 * running it itself tries again then).
 */
async function deferUntil(
  ctx: ExecutionContext,
  itemId: string,
  until: Date,
  options: RunOptions,
): Promise<NextStep | undefined> {
  return tryAgain(ctx, itemId, options, until.getTime(), (db) => sql.deferItem(db, itemId));
}

/**
 * The item's next run at `at`, after `record` (in one transaction with its job): a job for a
 * worker's run, the next step for a request running it itself.
 */
async function tryAgain(
  ctx: ExecutionContext,
  itemId: string,
  options: RunOptions,
  at: number,
  record: (db: Queryable) => Promise<void>,
): Promise<NextStep | undefined> {
  if (options.here) {
    // The request keeps the item's lease meanwhile (recording lets it go): the sweep must not take
    // an item whose request is waiting to try again for one whose process died.
    await withTransaction(ctx.pool, async (client) => {
      await record(client);
      await sql.renewItemLeases(client, [itemId], ctx.itemPolicy.leaseMs);
    });
    return { kind: 'again', at };
  }
  await withTransaction(ctx.pool, async (client) => {
    await record(client);
    await addJob(client, ITEM_TASK, itemJob(itemId, options.waitUntil), {
      maxAttempts: ITEM_JOB_MAX_ATTEMPTS,
      runAt: new Date(at),
    });
  });
  return undefined;
}

/**
 * One submit of an item's attempt (`attemptId`, recorded as submitting) to its route, and what
 * follows from the answer: the handle recorded (or the output completed at once), or the failure
 * to the policy. The idempotency key is the attempt's: the same when a crash has it sent again.
 */
async function send(
  ctx: ExecutionContext,
  operation: Operation,
  item: sql.ClaimedItem,
  candidates: PickedRoute[],
  work: VendorWork,
  picked: PickedRoute,
  attemptId: string,
  options: RunOptions,
): Promise<NextStep | undefined> {
  const { provider, route } = picked;
  const sentTo = { provider: provider.id, vendor_endpoint: route.endpoint };
  let result: Awaited<ReturnType<typeof provider.submit>>;
  try {
    const traced = { provider: provider.id, endpoint: route.endpoint, credentialId: picked.credentialId };
    result = await vendorCall(ctx, 'submit', item, traced, () =>
      provider.submit({
        endpoint: route.endpoint,
        // Our copies of the user's input media, at URLs the vendor may read for a while.
        input: picked.map(signInputUrls(work.request, ctx.storage, ctx.mediaSigner)),
        idempotencyKey: `${item.id}-${attemptId}`,
        webhookUrl: webhookUrlFor(ctx, provider, item.id, options),
        signal: ctx.signal,
        ...(ctx.stream ? { stream: ctx.stream } : {}),
        // What a provider that makes the work itself (the simulator) reads instead of `input`.
        item: executable(item),
        request: work.request,
      }),
    );
  } catch (err) {
    const error = asWorkError(err);
    const message = redact(error.message, ctx.providers.secrets());
    if (error.maybeAccepted && provider.idempotentSubmit && options.mayRetry) {
      if (item.failures + 1 < ctx.itemPolicy.maxAttempts) {
        // Still submitting, with the same attempt: the next run asks again with the same key.
        await withTransaction(ctx.pool, async (client) => {
          await sql.recordItemFailure(client, item.id);
          await addJob(client, ITEM_TASK, itemJob(item.id, options.waitUntil), {
            maxAttempts: ITEM_JOB_MAX_ATTEMPTS,
            runAt: new Date(Date.now() + (error.retryAfterMs ?? 1000)),
          });
        });
        return;
      }
    }
    if (error.maybeAccepted) {
      // The vendor may have the job though we never heard: sending it again could run it twice.
      await endAttempt(ctx, item.id, sentTo, { outcome: 'unknown', error: message, errorKind: error.kind });
      await finish(ctx, operation, item, {
        ok: false,
        error: `The job sent to ${provider.id} could not be confirmed (${message}); it was not charged`,
        errorKind: error.kind,
        provider: provider.id,
      });
      return;
    }
    // Refused (or never sent): nothing was accepted, so the item may be sent again.
    await endAttempt(ctx, item.id, sentTo, { outcome: 'submit_failed', error: message, errorKind: error.kind });
    await sql.clearVendorState(ctx.pool, item.id);
    const refused = await refusedCredential(ctx, item, picked.credentialId, error, options);
    if (refused) return refused.next;
    return failOrRetry(ctx, operation, item, route, candidates, error, { accepted: false, ...options });
  }
  if (picked.credentialId) ctx.providers.credentialServed(picked.credentialId);
  // The route answered: its count of failures in a row ends.
  const tracked = tracksHealth(ctx, provider.id);
  const routeServed = (db: Queryable) => sql.recordRouteSuccess(db, provider.id, route.endpoint);
  if (result.kind === 'done') {
    if (options.here) {
      // A request that has its answer settles in one call, the route's success with it.
      await completeFromOutput(ctx, operation, item, work, result.output, sentTo, {
        routeServed: tracked ? { provider: provider.id, endpoint: route.endpoint } : undefined,
      });
      return;
    }
    // On a connection of its own while the answer is recorded (neither waits for the other).
    await Promise.all([
      tracked ? routeServed(ctx.pool) : null,
      completeFromOutput(ctx, operation, item, work, result.output, sentTo),
    ]);
    return;
  }
  if (options.here) {
    if (tracked) await routeServed(ctx.pool);
    // The request polls the job itself while it waits, and keeps the item's lease meanwhile
    // (recording the job lets it go: a worker's poll job would stand for the item instead).
    const polled = await withTransaction(ctx.pool, async (client) => {
      if (!(await sql.markAccepted(client, item.id, result.handle, result.vendorRequestId))) return false;
      await sql.renewItemLeases(client, [item.id], ctx.itemPolicy.leaseMs);
      return true;
    });
    if (polled) return { kind: 'poll', at: Date.now() + firstPollDelay(ctx, provider, options) };
  }
  const [, accepted] = options.here
    ? [null, undefined]
    : await Promise.all([
        tracked ? routeServed(ctx.pool) : null,
        withTransaction(ctx.pool, async (client) => {
          const accepted = await sql.markAccepted(client, item.id, result.handle, result.vendorRequestId);
          if (accepted) await queuePoll(client, item.id, accepted.webhookArrived ? 0 : firstPollDelay(ctx, provider));
          return accepted;
        }),
      ]);
  if (!accepted && !(await sql.selectUnfinishedItem(ctx.pool, item.id))) {
    // The item ended while its submit was under way (cancelled, or past its deadline): the job
    // the vendor just took is not wanted.
    await provider.cancel?.(result.handle).catch(() => undefined);
  }
}

/**
 * One poll of an item's vendor job: still running (progress recorded, the next poll queued), done
 * (the result copied in and the item completed) or failed (retried or refunded by the policy).
 */
export async function pollVendor(
  ctx: ExecutionContext,
  operations: Record<string, Operation>,
  itemId: string,
  reported?: ProviderOutput,
  options: RunOptions = { mayRetry: true },
): Promise<NextStep | undefined> {
  const item = await sql.selectUnfinishedItem(ctx.pool, itemId);
  if (item?.vendor_state !== 'accepted' || !item.vendor_handle || !item.provider) return;
  const operation = operations[item.operation];
  const provider = ctx.providers.get(item.provider, item.credential_id);
  if (!operation?.vendor || !provider) {
    await finish(ctx, operation, item, { ok: false, error: `Provider ${item.provider} is no longer configured` });
    return;
  }
  const work = vendorWork(ctx, item.operation, operation, executable(item));
  if (!work) {
    await finish(ctx, operation, item, {
      ok: false,
      error: `Operation ${item.operation} is no longer served by vendors`,
    });
    return;
  }
  const result: PollResult = reported
    ? { kind: 'done', output: reported }
    : await vendorCall(
        ctx,
        'poll',
        item,
        { provider: item.provider, endpoint: item.vendor_endpoint ?? '', credentialId: item.credential_id },
        () => provider.poll(item.vendor_handle as VendorHandle, ctx.signal),
      );
  if (result.kind === 'pending') {
    const after = Math.max(
      firstPollDelay(ctx, provider, options),
      nextPollDelay(result.pollAfterMs, item.vendor_accepted_at, ctx.poll),
    );
    if (options.here) {
      await sql.updateVendorProgress(ctx.pool, item.id, result.progress ?? null, result.queuePosition ?? null);
      if (result.handle) await sql.replaceVendorHandle(ctx.pool, item.id, result.handle);
      return { kind: 'poll', at: Date.now() + after };
    }
    await withTransaction(ctx.pool, async (client) => {
      await sql.updateVendorProgress(client, item.id, result.progress ?? null, result.queuePosition ?? null);
      if (result.handle) await sql.replaceVendorHandle(client, item.id, result.handle);
      await queuePoll(client, item.id, after);
    });
    return;
  }
  if (result.kind === 'failed') {
    const route = { provider: item.provider, endpoint: item.vendor_endpoint ?? '' };
    await endAttempt(ctx, item.id, item, {
      outcome: 'failed',
      error: redact(result.error.message, ctx.providers.secrets()),
      errorKind: result.error.kind,
    });
    await sql.clearVendorState(ctx.pool, item.id);
    // A worker's poll may retry; a request polling its own item's job waits only within its deadline.
    const situation = options.here ? { accepted: true, ...options } : { accepted: true, mayRetry: true };
    const refused = await refusedCredential(ctx, item, item.credential_id, result.error, situation);
    if (refused) return refused.next;
    const candidates = ctx.providers.candidates(work.routes, work.request);
    return failOrRetry(ctx, operation, item, route, candidates, result.error, situation);
  }
  await completeFromOutput(ctx, operation, item, work, result.output, item, options.here ? {} : undefined);
}

/**
 * Copies the vendor's first file into our storage and completes the item. An item run in its
 * request (`here`) is settled in one call: the attempt's end, the result's size and the route's
 * success (`here.routeServed`) go with its outcome. Its file is marked as being stored first only
 * where the operation handed out its URL at accept (resultUrlsAtAccept) and the item is not run in
 * its request: other URLs reach the client with the completion only, so a cancel meanwhile refunds
 * the item and the file goes. The attempt's end records when the output was in hand (answered_at).
 */
async function completeFromOutput(
  ctx: ExecutionContext,
  operation: Operation,
  item: sql.ClaimedItem,
  work: VendorWork,
  output: ProviderOutput,
  servedBy: AttemptRoute,
  here?: { routeServed?: { provider: string; endpoint: string } },
): Promise<void> {
  const provider = servedBy.provider ?? undefined;
  const file = output.files[0];
  if (!file) {
    const error = 'The vendor answered no file';
    await endAttempt(ctx, item.id, servedBy, { outcome: 'failed', error, errorKind: 'internal' });
    await finish(ctx, operation, item, { ok: false, error, errorKind: 'internal', provider });
    return;
  }
  const answeredAt = new Date();
  // Once stored, a file whose URL was handed out at accept may be fetched: recorded first.
  if (!here && !(await markStoringResult(ctx, operation, item.id))) return;
  let stored: StoredResult | undefined;
  let metadata = output.metadata;
  try {
    const convert = operation.convertFile;
    stored = await storageCopy(item, provider, () =>
      copyResult(
        ctx,
        item,
        file,
        work.expects,
        // The vendor that answered (on a first attempt the claimed item does not name it yet).
        ctx.trustedOriginsOf(provider ?? ''),
        convert &&
          (async (bytes) => {
            const converted = await convert(ctx, executable(item), bytes, output.metadata);
            metadata = { ...metadata, ...converted.metadata };
            return converted;
          }),
      ),
    );
    if (operation.finishFile) {
      metadata = { ...metadata, ...(await operation.finishFile(ctx, executable(item), stored.key)) };
    }
  } catch (err) {
    // A copy that failed is tried again from the same vendor result (a poll), never by a new job.
    if ((err instanceof FetchFailedError && err.retryable) || !(err instanceof Error)) throw err;
    const error = `The vendor's result could not be used: ${failure(err)}`;
    await endAttempt(ctx, item.id, servedBy, { outcome: 'failed', error, errorKind: 'internal' });
    await finish(ctx, operation, item, { ok: false, error, errorKind: 'internal', provider });
    // A file stored before finishing it failed may be fetched at a URL handed out: the item was
    // refunded, so the file goes.
    if (stored) await discardResult(ctx, item.id, stored.key);
    return;
  }
  const settled = operation.settle?.(executable(item), output, item.price);
  // The attempt's end and the file's size are recorded in the transaction that completes the item.
  const attempt: sql.AttemptEnd = { outcome: 'completed', cost: attemptCost(ctx, servedBy, output), answeredAt };
  const completed = await finish(ctx, operation, item, {
    ok: true,
    provider,
    url: stored.url,
    bytes: stored.bytes,
    attempt,
    routeServed: here?.routeServed,
    file: {
      contentType: stored.contentType,
      extension: stored.extension,
      width: stored.width,
      height: stored.height,
      metadata: nonEmpty({ ...metadata, ...settled?.metadata, ...keptText(stored.kept, metadata) }),
      actualCredits: settled?.actualCredits,
    },
  });
  countAttempt(ctx, servedBy, attempt);
  if (!completed) await discardResult(ctx, item.id, stored.key);
}

/**
 * What a completed attempt cost in US dollars: what the vendor's answer says (the adapter turns it
 * into dollars), else the operator's unit price of the route, else unknown (null, never 0).
 */
function attemptCost(ctx: ExecutionContext, route: AttemptRoute, output: ProviderOutput): number | null {
  if (output.vendorCost !== undefined) return output.vendorCost;
  return ctx.vendorUnitPricesUsd[`${route.provider ?? ''} ${route.vendor_endpoint ?? ''}`] ?? null;
}

/** What a result says of its file, or nothing (an empty result is recorded as none). */
function nonEmpty(metadata: Record<string, unknown>): Record<string, unknown> | undefined {
  return Object.keys(metadata).length > 0 ? metadata : undefined;
}

/** A vendor's file once it is in our storage. */
interface StoredResult {
  key: string;
  url: string;
  /** Its size as stored. */
  bytes: number;
  /** The text of a text result kept in its item's record instead of a file (see text-results.ts). */
  kept?: string;
  contentType: string;
  extension: string;
  width?: number;
  height?: number;
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
  convert?: (file: { data: Buffer; contentType: string }) => Promise<{ data: Buffer; contentType: string }>,
): Promise<StoredResult> {
  const store = async (data: Buffer, type: string): Promise<StoredResult> => {
    const contentType = type.toLowerCase();
    const extension = extensionForContentType(contentType);
    if (!contentType.startsWith(`${expects}/`) || !extension) throw wrongType(contentType, expects);
    const key = resultKey(item.generation_id, item.id, item.storage_token, extension);
    // Text is kept in its item's record (the database has it durably with the completion), and
    // our media route serves it at the key's URL: no file is written for it.
    const kept = expects === 'text' && extension === 'txt' ? data.toString('utf8') : undefined;
    if (kept === undefined) await ctx.storage.put(key, data, contentType);
    return {
      key,
      url: kept === undefined ? ctx.storage.publicUrl(key) : ctx.recordUrl(key),
      ...(kept === undefined ? {} : { kept }),
      bytes: data.length,
      contentType,
      extension,
      width: file.width,
      height: file.height,
    };
  };
  const converted = async (data: Buffer, contentType: string) => {
    if (!convert) return store(data, contentType);
    if (!contentType.toLowerCase().startsWith(`${expects}/`)) throw wrongType(contentType, expects);
    const made = await convert({ data, contentType });
    return store(made.data, made.contentType);
  };
  if ('data' in file) return converted(file.data, file.contentType);
  let origin: string | undefined;
  try {
    origin = new URL(file.url).origin;
  } catch {
    throw new UnsafeUrlError(file.url, 'the vendor gave an invalid URL');
  }
  const trusted = trustedOrigins.includes(origin);
  const fetched = await safeFetchStream(file.url, {
    allowPrivate: ctx.allowPrivateUrls || trusted,
    // The headers a vendor's file needs go to the vendor's own origin only.
    headers: trusted ? file.headers : undefined,
    timeoutMs: RESULT_COPY_TIMEOUT_MS,
    maxBytes: convert ? CONVERTED_MAX_BYTES : RESULT_MAX_BYTES,
  });
  const contentType = resultType(fetched.contentType, file);
  const extension = contentType ? extensionForContentType(contentType) : undefined;
  if (!contentType?.startsWith(`${expects}/`) || (!extension && !convert)) {
    fetched.body.destroy();
    throw wrongType(contentType, expects);
  }
  if (convert) {
    const chunks: Buffer[] = [];
    for await (const chunk of fetched.body) chunks.push(chunk as Buffer);
    return converted(Buffer.concat(chunks), contentType);
  }
  const key = resultKey(item.generation_id, item.id, item.storage_token, extension as string);
  const { size } = await ctx.storage.putStream(key, fetched.body, contentType);
  return {
    key,
    url: ctx.storage.publicUrl(key),
    bytes: size,
    contentType,
    extension: extension as string,
    width: file.width,
    height: file.height,
  };
}

// What servers say of a file whose type they do not know.
const GENERIC_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/binary']);

/**
 * A vendor file's media type: what its server said, unless that is generic (a CDN serving a .glb
 * as application/octet-stream): then what the vendor said of it, then its file name's extension.
 */
function resultType(served: string, file: { url: string; contentType?: string; fileName?: string }) {
  const known = (type: string | undefined) => {
    const essence = (type ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    return GENERIC_TYPES.has(essence) ? undefined : essence;
  };
  return (
    known(served) ??
    known(file.contentType) ??
    contentTypeForFileName(file.fileName ?? '') ??
    contentTypeForFileName(new URL(file.url).pathname)
  );
}

function wrongType(contentType: string | undefined, expects: VendorWork['expects']): WorkError {
  return new WorkError(`The vendor's result is ${contentType || 'of no type'}, not ${expects}`, false, {
    kind: 'internal',
  });
}

function asWorkError(err: unknown): WorkError {
  return err instanceof WorkError ? err : new WorkError(failure(err), true);
}

/**
 * Acts on a vendor failure as the policy decides: the same route again (a fresh item job, after
 * the vendor's Retry-After), the next route, or the end (failed and refunded once). Failures of
 * kinds that mean the route is unwell count towards its circuit breaker.
 */
async function failOrRetry(
  ctx: ExecutionContext,
  operation: Operation,
  item: sql.ClaimedItem,
  route: { provider: string | null; endpoint: string },
  candidates: PickedRoute[],
  error: WorkError,
  situation: { accepted: boolean } & RunOptions,
): Promise<NextStep | undefined> {
  const provider = route.provider ?? '';
  const current = routeKey({ provider, endpoint: route.endpoint });
  const routeCooling =
    countsTowardsBreaker(error) && tracksHealth(ctx, provider)
      ? await sql.recordRouteFailure(
          ctx.pool,
          provider,
          route.endpoint,
          ctx.routeCooldown.after,
          ctx.routeCooldown.seconds,
        )
      : false;
  if (routeCooling) forgetCoolingRoutes();
  const alternative = candidates.some((c) => {
    const key = routeKey(c.route);
    return key !== current && !item.skipped_routes.includes(key);
  });
  const decision = decide(error, {
    accepted: situation.accepted,
    routeFailures: item.route_failures,
    maxAttempts: ctx.itemPolicy.maxAttempts,
    alternative,
    routeCooling,
    mayRetry: situation.mayRetry,
    waitLeftMs: situation.waitUntil === undefined ? undefined : situation.waitUntil - Date.now(),
  });
  if (decision.action === 'fail') {
    const message = redact(error.message, ctx.providers.secrets());
    await finish(ctx, operation, item, {
      ok: false,
      error: message,
      errorKind: error.kind,
      provider: provider || undefined,
    });
    return;
  }
  const delay = decision.action === 'retry' ? decision.delayMs : 0;
  const leaving = decision.action === 'failover' ? current : undefined;
  return tryAgain(ctx, item.id, situation, Date.now() + delay, (db) => sql.recordItemFailure(db, item.id, leaving));
}

/**
 * A credential the vendor refused (its key: 401/403, or its quota or balance) is disabled, one
 * unavailable a few times in a row cools down; when the vendor has another active credential the
 * item is sent again at once with one of those, without counting a failure (the input is not at
 * fault): answers the request's next step then. Undefined: the policy decides as for any failure.
 */
async function refusedCredential(
  ctx: ExecutionContext,
  item: sql.ClaimedItem,
  credentialId: string | null | undefined,
  error: WorkError,
  options: RunOptions & { accepted?: boolean },
): Promise<{ next: NextStep | undefined } | undefined> {
  if (!credentialId) return undefined;
  const reason = `${error.kind}: ${redact(error.message, ctx.providers.secrets())}`.slice(0, 500);
  if (!(await ctx.providers.credentialFailed(credentialId, error.kind, reason))) return undefined;
  // A claim that ran nothing is taken back; a poll holds none.
  const next = await tryAgain(ctx, item.id, options, Date.now(), async (db) => {
    if (!options.accepted) await sql.deferItem(db, item.id);
  });
  return { next };
}

/** The payload of an item's next job: the deadline of a synchronous request waiting for it rides along. */
function itemJob(itemId: string, waitUntil: number | undefined): Record<string, unknown> {
  return waitUntil === undefined ? { item_id: itemId } : { item_id: itemId, wait_until: waitUntil };
}

function finish(ctx: ExecutionContext, operation: Operation | undefined, item: sql.ClaimedItem, outcome: Outcome) {
  return recordOutcome(ctx, operation, item, outcome);
}

/** The route an attempt went to, as the item's row names it. */
type AttemptRoute = { provider: string | null; vendor_endpoint: string | null };

/**
 * Whether a provider's routes have a health (the circuit breaker, route successes, the vendor
 * attempt counts): every vendor's do; the simulator's, the service standing in, do not.
 */
function tracksHealth(ctx: ExecutionContext, providerId: string): boolean {
  return providerId !== ctx.simulator.id;
}

/** Closes the item's open attempt with how it ended, and counts it (a vendor's). */
async function endAttempt(ctx: ExecutionContext, itemId: string, route: AttemptRoute, end: sql.AttemptEnd) {
  await sql.finishAttempt(ctx.pool, itemId, end);
  countAttempt(ctx, route, end);
}

/** Counts an ended attempt in the metrics (a vendor's: the simulator's are not counted). */
function countAttempt(ctx: ExecutionContext, route: AttemptRoute, end: sql.AttemptEnd): void {
  if (!tracksHealth(ctx, route.provider ?? '')) return;
  ctx.services.metrics.vendorAttemptEnded({
    provider: route.provider ?? 'unknown',
    endpoint: route.vendor_endpoint ?? 'unknown',
    outcome: end.outcome,
    errorKind: end.errorKind,
  });
}
