import type pg from 'pg';
import { type Queryable, withTransaction } from '../db/pool.ts';
import { insufficientCredits, notFound } from '../lib/errors.ts';
import { newId, pooledRandomBytes } from '../lib/ids.ts';
import { currentTraceparent, inSpan } from '../lib/tracing.ts';
import type { Storage } from '../storage/types.ts';
import { acceptedRoutesOf, plannedItems } from './availability.ts';
import type { RouteAtAccept } from './run-item.ts';
import * as sql from './sql/generations.ts';
import { type CappedClaim, type ClaimedItem, startWaitingItems as startWaiting, type WakeTarget } from './sql/items.ts';
import type { CreatedGeneration, EngineServices, GenerationPlan, RouteReserved } from './types.ts';

/** The route of an item claimed at accept, chosen before it is accepted (run-item.ts, routeAtAccept). */
export type RouteOfItem = (item: ClaimedItem) => Promise<RouteAtAccept | undefined>;

/** The storage key of an item's result (known when the item is created; random and stable). */
export function resultKey(generationId: string, itemId: string, storageToken: string, extension: string): string {
  return `${generationId}/${itemId}-${storageToken}.${extension}`;
}

/** The job that runs one item. */
export const ITEM_TASK = 'generation_item';
/** The job that asks a vendor where an item's job stands (and finishes the item when it is done). */
export const VENDOR_POLL_TASK = 'vendor_poll';
/**
 * Attempts of an item's job. Provider failures are counted on the item itself (ITEM_MAX_ATTEMPTS);
 * the job's own attempts also absorb runs lost to crashes and outages, and a job that runs out
 * of them is found and queued again by the recovery sweep.
 */
export const ITEM_JOB_MAX_ATTEMPTS = 25;

/** The channel that tells a synchronous request its item, waiting for room in its team's cap, has it now. */
export const ITEM_ROOM_CHANNEL = 'item_room';

/**
 * Starts, in the caller's transaction, the team's waiting items that now have room in its cap
 * (running items finished, or the cap grew): a job queued for each, or, for an item a synchronous
 * request runs itself, that request told (NOTIFY at commit). `defaultCap` is the cap of a team
 * without one.
 */
export async function startWaitingItems(db: Queryable, teamId: string, defaultCap: number): Promise<void> {
  await startWaiting(db, teamId, wakeTarget(defaultCap));
}

/** How this service starts a woken waiting item (finish_item and start_waiting_items take it). */
export function wakeTarget(defaultCap: number): WakeTarget {
  return { default_cap: defaultCap, task: ITEM_TASK, max_attempts: ITEM_JOB_MAX_ATTEMPTS, channel: ITEM_ROOM_CHANNEL };
}

export interface CreateInput {
  /** The generation's id, when chosen before (its input copies are stored under it). */
  id?: string;
  /** The storage keys of the copies of its input media (deleted with its results). */
  inputKeys?: string[];
  teamId: string;
  workspaceId: string | null;
  plan: GenerationPlan;
  /** Days its result files are kept (0: kept for good). */
  retentionDays: number;
  /** Delays the jobs of the items the request runs itself (a safety net should the process die). */
  jobsRunAt?: (position: number) => Date | null;
  /**
   * Its items are claimed in the call that accepts them (under a lease of `leaseMs`, within the
   * team's cap, `defaultCap` for a team without one of its own), with no job, to be run in this
   * process (answered as `claims`): `by: 'request'`, every item run by the synchronous request
   * that accepts it (without room, they are claimed by the request afterwards, counting);
   * `by: 'worker'`, by this process's worker, when the team has room for all of them (else they are
   * queued as jobs as usual). `route` chooses the route of each: an item claimed at accept is then
   * recorded as on its way there, its attempt opened, in the same call (answered as `sendTo`).
   */
  claimAtAccept?: { by: 'request' | 'worker'; leaseMs: number; defaultCap: number; route?: RouteOfItem };
  /** Runs last inside the transaction (e.g. to store the response under the Idempotency-Key). */
  finish?: (client: Queryable, created: CreatedGeneration) => Promise<void>;
  /** The item this generation is work for, and what for (see sub-work.ts). */
  parent?: { itemId: string; purpose: string };
}

function created(
  storage: Storage,
  id: string,
  items: Array<{ id: string; storageToken: string }>,
  g: { creditsCharged: number; estimatedSeconds: number; createdAt: Date },
): CreatedGeneration {
  return {
    id,
    status: 'queued',
    itemIds: items.map((i) => i.id),
    resultUrl: (position, extension) => {
      const item = items[position];
      return item ? storage.publicUrl(resultKey(id, item.id, item.storageToken, extension)) : '';
    },
    ...g,
  };
}

/**
 * A generation accepted earlier, as createGeneration returned it (a synchronous request finishing
 * the generation its crashed first attempt created); undefined when the team has no such one.
 */
export async function loadAcceptedGeneration(
  pool: pg.Pool,
  storage: Storage,
  id: string,
  teamId: string,
): Promise<CreatedGeneration | undefined> {
  const row = await sql.selectAcceptedGeneration(pool, id, teamId);
  if (!row) return undefined;
  return created(
    storage,
    id,
    row.items.map((i) => ({ id: i.id, storageToken: i.storage_token })),
    { creditsCharged: row.credits_charged, estimatedSeconds: row.estimated_seconds, createdAt: row.created_at },
  );
}

/**
 * Whether the team's generation `id` was accepted: committed by a createGeneration whose outcome its
 * caller did not learn (the connection died or timed out with COMMIT under way). Waits for that
 * transaction to end first.
 */
export async function wasAccepted(pool: pg.Pool, id: string, teamId: string): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    await sql.lockGenerationId(client, id);
    return sql.generationExists(client, id, teamId);
  });
}

/**
 * Queues a job for each item of a generation that accept_generation inserted claimed for this
 * process's worker (running, not in a request, with no job), when the request that accepted it
 * could not learn so (its COMMIT's answer was lost) and so never handed them to the worker.
 */
export async function queueItemsClaimedAtAccept(db: Queryable, generationId: string): Promise<void> {
  await sql.queueClaimedItemsOf(db, generationId, ITEM_TASK, ITEM_JOB_MAX_ATTEMPTS);
}

/** An item accept_generation inserted claimed, as a claim reads it back (its inputs as stored, JSON). */
function claimedAtAccept(g: sql.GenerationInsert, item: sql.ItemInsert): ClaimedItem {
  const stored = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? null)) as T;
  return {
    id: item.id,
    generation_id: g.id,
    position: item.position,
    type: item.type,
    model: item.model,
    input: stored(item.input) as Record<string, unknown>,
    storage_token: item.storageToken,
    attempts: 1,
    failures: 0,
    price: item.price,
    provider: null,
    vendor_endpoint: null,
    vendor_state: null,
    vendor_handle: null,
    vendor_accepted_at: null,
    credential_id: null,
    accepted_routes: stored(item.acceptedRoutes),
    skipped_routes: [],
    route_failures: 0,
    storing_result_at: null,
    team_id: g.teamId,
    workspace_id: g.workspaceId,
    operation: g.operation,
    generation_input: stored(g.input) as Record<string, unknown>,
    webhook_url: g.webhookUrl,
  };
}

/** An accepted generation, and the claims of its items claimed at accept (and the routes recorded). */
export type Created = CreatedGeneration & {
  claims?: Array<CappedClaim | undefined>;
  /** The routes the claimed items were recorded as on their way to, in order. */
  sendTo?: Array<RouteReserved | undefined>;
};

/**
 * Accepts a generation in one call to the database (with the caller's `finish`, in one
 * transaction): charges the full price (402 and nothing written when the balance is short), writes
 * the generation and its items (each with the routes its model has now), queues one job per item
 * (or claims them to run in this process: `claimAtAccept`; the claims answered are undefined for
 * the others), and runs `finish`. Either all of it happens or none.
 */

export async function createGeneration(
  pool: pg.Pool,
  storage: Storage,
  services: EngineServices,
  input: CreateInput,
): Promise<Created> {
  const { plan } = input;
  const id = input.id ?? newId('gen');
  // Each item keeps the routes its model has now: a later change of them applies to later requests.
  const planned = plannedItems(plan, input.teamId);
  const items = plan.items.map((item, position) => ({
    id: newId('item'),
    position,
    type: item.type,
    model: item.model ?? plan.model,
    input: item.input ?? {},
    price: item.price,
    storageToken: pooledRandomBytes(16).toString('hex'),
    acceptedRoutes: acceptedRoutesOf(services.live, plan.operation, planned[position] as (typeof planned)[number]),
  }));
  const total = items.reduce((sum, item) => sum + item.price, 0);
  const insert: sql.GenerationInsert = {
    id,
    teamId: input.teamId,
    workspaceId: input.workspaceId,
    operation: plan.operation,
    model: plan.model,
    input: plan.input,
    creditsCharged: total,
    totalItems: items.length,
    estimatedSeconds: plan.estimatedSeconds,
    webhookUrl: plan.webhookUrl ?? null,
    retentionDays: input.retentionDays,
    inputKeys: input.inputKeys ?? [],
    parent: input.parent,
    items,
  };
  const charge = { ledgerId: newId('led'), reason: plan.model ? `${plan.operation} (${plan.model})` : plan.operation };
  const claiming = input.claimAtAccept;
  const start: sql.ItemsStart = !claiming
    ? { jobs: { task: ITEM_TASK, maxAttempts: ITEM_JOB_MAX_ATTEMPTS }, runAt: input.jobsRunAt }
    : claiming.by === 'request'
      ? { claim: { leaseMs: claiming.leaseMs, defaultCap: claiming.defaultCap } }
      : {
          claimOrJobs: {
            leaseMs: claiming.leaseMs,
            defaultCap: claiming.defaultCap,
            task: ITEM_TASK,
            maxAttempts: ITEM_JOB_MAX_ATTEMPTS,
          },
        };
  // The items as they are claimed at accept, and the routes they go to.
  const claimedItems = claiming ? items.map((item) => claimedAtAccept(insert, item)) : [];
  const route = claiming?.route;
  const routes = route ? await Promise.all(claimedItems.map((item) => route(item))) : [];
  const withRoutes: sql.GenerationInsert =
    routes.length > 0
      ? { ...insert, items: items.map((item, position) => ({ ...item, submit: routes[position]?.submit })) }
      : insert;

  const accept = async (db: Queryable): Promise<Created> => {
    // The items' jobs continue the accept span (this runs inside it).
    const traceparent = currentTraceparent() ?? null;
    const acceptance = await sql.acceptGeneration(db, { ...withRoutes, traceparent }, charge, start);
    if (acceptance.kind === 'short') {
      if (acceptance.balance === undefined) throw notFound('Team', input.teamId);
      throw insufficientCredits(total, acceptance.balance);
    }
    const accepted = created(storage, id, items, {
      creditsCharged: total,
      estimatedSeconds: plan.estimatedSeconds,
      createdAt: acceptance.createdAt,
    });
    await input.finish?.(db, accepted);
    if (!claiming) return accepted;
    // The items claimed at accept, as a claim reads them back. A synchronous request's others wait
    // for room, claimed by the request afterwards (counting); an asynchronous request's have jobs.
    const claimed = new Set(acceptance.claimed);
    const claims = items.map((item, position): CappedClaim | undefined =>
      claimed.has(item.id) ? { kind: 'claimed', item: claimedItems[position] as ClaimedItem } : undefined,
    );
    const sendTo = items.map((item, position): RouteReserved | undefined => {
      const attemptId = acceptance.attempts[item.id];
      const picked = routes[position]?.picked;
      return attemptId !== undefined && picked ? { picked, attemptId } : undefined;
    });
    return { ...accepted, claims, sendTo };
  };
  // The accept span: its context is stored with the items, and their jobs continue it.
  const attributes = {
    'genmedia.generation.id': id,
    'genmedia.team.id': input.teamId,
    'genmedia.operation': plan.operation,
    'genmedia.items': items.length,
    ...(plan.model ? { 'gen_ai.request.model': plan.model } : {}),
  };
  const generation = await inSpan('accept generation', { attributes }, () =>
    input.finish ? withTransaction(pool, accept) : accept(pool),
  );
  services.metrics.generationAccepted({ operation: plan.operation, model: plan.model });
  return generation;
}
