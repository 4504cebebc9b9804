/** Accepting a generation: the charge, its row, its items' rows and their jobs or claims, in one call. */

import type { Queryable } from '../../db/pool.ts';
import type { AcceptedRoutes } from '../types.ts';
import { callWithPayload } from './batched.ts';

export interface GenerationInsert {
  id: string;
  teamId: string;
  workspaceId: string | null;
  operation: string;
  model: string | null;
  input: unknown;
  creditsCharged: number;
  totalItems: number;
  estimatedSeconds: number;
  webhookUrl: string | null;
  /** Days its result files are kept (0: kept for good). */
  retentionDays: number;
  /** Storage keys of the copies of its input media (deleted with its results). */
  inputKeys: string[];
  /**
   * The item this generation is work for, and what for (sub-work): its files then expire with that
   * item's generation, whatever `retentionDays` says.
   */
  parent?: { itemId: string; purpose: string };
  /** Its items, inserted with it. */
  items: ItemInsert[];
  /** The trace its items' jobs continue (a W3C traceparent; see migration 0035), when tracing is on. */
  traceparent?: string | null;
}

export interface ItemInsert {
  id: string;
  position: number;
  type: string;
  model: string | null;
  input: unknown;
  price: number;
  storageToken: string;
  /** The routes its model had when it was accepted (see migration 0032). */
  acceptedRoutes: AcceptedRoutes;
  /**
   * The route it is sent to once claimed at accept (ItemsStart `claim`): recorded as on its way
   * there with its attempt opened, in the same call (migration 0038).
   */
  submit?: ItemSubmit;
}

/** The route an item claimed at accept goes to (what markSubmitting records). */
export interface ItemSubmit {
  provider: string;
  endpoint: string;
  /** The simulator stands in for a vendor. */
  simulated: boolean;
  credentialId: string | null;
}

/** What becomes of the items of a generation accepted by acceptGeneration. */
export type ItemsStart =
  /** One job each (an item's `runAt` delays its job). */
  | { jobs: { task: string; maxAttempts: number }; runAt?: (position: number) => Date | null }
  /**
   * Run by the synchronous request that accepts them, in its own process: no job; each is claimed
   * while its team has room without counting (under a lease of `leaseMs`; `defaultCap` is the cap
   * of a team without one).
   */
  | { claim: { leaseMs: number; defaultCap: number } }
  /**
   * Run by the worker of the process that accepts them (migration 0039): claimed as above when the
   * team has room for all of them (not in a request: the recovery sweep queues them again should
   * the process stop), else one job each.
   */
  | { claimOrJobs: { leaseMs: number; defaultCap: number; task: string; maxAttempts: number } };

/** What accepting a generation came to. */
export type Acceptance =
  /**
   * Accepted: when, the items claimed for the request (in order; the rest are QUEUED), and the
   * attempts opened for those claimed with their route (item id → attempt id).
   */
  | { kind: 'accepted'; createdAt: Date; claimed: string[]; attempts: Record<string, string> }
  /** Nothing written: the balance (undefined for an unknown team) cannot pay for it. */
  | { kind: 'short'; balance: number | undefined };

/**
 * Accepts a generation in one call (accept_generation, migrations 0036, 0038, 0039): the charge and its ledger
 * row (`charge`, when it costs something), the generation's row and its items' rows, and their
 * jobs or claims (`start`). Nothing is written when the balance cannot pay.
 */
export async function acceptGeneration(
  db: Queryable,
  g: GenerationInsert,
  charge: { ledgerId: string; reason: string },
  start: ItemsStart,
): Promise<Acceptance> {
  const accepted =
    (await callWithPayload<{
      created_at?: string;
      claimed?: string[];
      attempts?: Record<string, string>;
      short?: number | null;
    }>(db, 'accept_generation', acceptGenerationPayload(g, charge, start), g.teamId)) ?? {};
  if (accepted.created_at === undefined) return { kind: 'short', balance: accepted.short ?? undefined };
  return {
    kind: 'accepted',
    createdAt: new Date(accepted.created_at),
    claimed: accepted.claimed ?? [],
    attempts: accepted.attempts ?? {},
  };
}

/** What accept_generation takes for a generation (see acceptGeneration). */
export function acceptGenerationPayload(
  g: GenerationInsert,
  charge: { ledgerId: string; reason: string },
  start: ItemsStart,
): Record<string, unknown> {
  return {
    generation: {
      id: g.id,
      team_id: g.teamId,
      workspace_id: g.workspaceId,
      operation: g.operation,
      model: g.model,
      input: g.input,
      credits_charged: g.creditsCharged,
      total_items: g.totalItems,
      estimated_seconds: g.estimatedSeconds,
      webhook_url: g.webhookUrl,
      retention_days: g.retentionDays,
      input_keys: g.inputKeys,
      parent_item_id: g.parent?.itemId ?? null,
      purpose: g.parent?.purpose ?? null,
      traceparent: g.traceparent ?? null,
    },
    charge: { id: charge.ledgerId, reason: charge.reason },
    items: g.items.map((i) => ({
      id: i.id,
      position: i.position,
      type: i.type,
      model: i.model,
      input: i.input,
      price: i.price,
      storage_token: i.storageToken,
      accepted_routes: i.acceptedRoutes,
      run_at: 'jobs' in start ? (start.runAt?.(i.position) ?? null) : null,
      submit: i.submit
        ? {
            provider: i.submit.provider,
            endpoint: i.submit.endpoint,
            simulated: i.submit.simulated,
            credential_id: i.submit.credentialId,
          }
        : null,
    })),
    ...('jobs' in start
      ? { jobs: { task: start.jobs.task, max_attempts: start.jobs.maxAttempts } }
      : 'claim' in start
        ? { claim: { lease_ms: start.claim.leaseMs, default_cap: start.claim.defaultCap } }
        : {
            claim: {
              lease_ms: start.claimOrJobs.leaseMs,
              default_cap: start.claimOrJobs.defaultCap,
              in_request: false,
            },
            jobs: { task: start.claimOrJobs.task, max_attempts: start.claimOrJobs.maxAttempts },
          }),
  };
}

/**
 * A job for each item of the generation inserted claimed for a worker (PROCESSING, not run in a
 * request) that has no job yet.
 */
export async function queueClaimedItemsOf(
  db: Queryable,
  generationId: string,
  task: string,
  maxAttempts: number,
): Promise<void> {
  await db.query(
    `select graphile_worker.add_job($2::text, json_build_object('item_id', i.id), max_attempts => $3::int)
     from generation_items i
     where i.generation_id = $1::text and i.status = 'PROCESSING' and not i.in_request
       and not exists (
         select 1 from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
         where t.identifier = $2::text and j.payload->>'item_id' = i.id)`,
    [generationId, task, maxAttempts],
  );
}

/** The trace an item's jobs continue, when it was accepted with tracing on. */
export async function selectItemTraceparent(db: Queryable, itemId: string): Promise<string | null> {
  const { rows } = await db.query<{ traceparent: string | null }>(
    'select traceparent from generation_items where id = $1',
    [itemId],
  );
  return rows[0]?.traceparent ?? null;
}

/** A team's generation as accepted, with its items' storage tokens (to finish it after a crash). */
export async function selectAcceptedGeneration(
  db: Queryable,
  id: string,
  teamId: string,
): Promise<
  | {
      credits_charged: number;
      estimated_seconds: number;
      created_at: Date;
      items: Array<{ id: string; storage_token: string }>;
    }
  | undefined
> {
  const { rows } = await db.query<{
    credits_charged: number;
    estimated_seconds: number;
    created_at: Date;
    items: Array<{ id: string; storage_token: string }>;
  }>(
    `select g.credits_charged, g.estimated_seconds::float8 as estimated_seconds, g.created_at,
            (select json_agg(json_build_object('id', i.id, 'storage_token', i.storage_token) order by i.position)
             from generation_items i where i.generation_id = g.id) as items
     from generations g where g.id = $1::text and g.team_id = $2::text`,
    [id, teamId],
  );
  return rows[0];
}

/**
 * Holds, until the end of the caller's transaction, the lock the transaction accepting generation
 * `id` takes first: whoever else takes it waits until that transaction has committed or rolled back.
 */
export async function lockGenerationId(db: Queryable, id: string): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtextextended('generation:' || $1::text, 0))`, [id]);
}

/** Whether the team has a generation with this id (one primary-key probe). */
export async function generationExists(db: Queryable, id: string, teamId: string): Promise<boolean> {
  const { rowCount } = await db.query('select 1 from generations where id = $1::text and team_id = $2::text', [
    id,
    teamId,
  ]);
  return (rowCount ?? 0) > 0;
}

/** Sub-work of an item for a purpose, as the item that needs it reads it: its one item's outcome. */
export interface SubWorkRow {
  generation_id: string;
  item_id: string;
  status: 'QUEUED' | 'PROCESSING' | 'COMPLETED' | 'FAILED';
  url: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
}

/** The sub-work made for item `itemId` under `purpose`, if there is some. */
export async function selectSubWork(db: Queryable, itemId: string, purpose: string): Promise<SubWorkRow | undefined> {
  const { rows } = await db.query<SubWorkRow>(
    `select g.id as generation_id, i.id as item_id, i.status, i.url, i.result, i.error
     from generations g join generation_items i on i.generation_id = g.id
     where g.parent_item_id = $1::text and g.purpose = $2::text
     order by i.position limit 1`,
    [itemId, purpose],
  );
  return rows[0];
}
