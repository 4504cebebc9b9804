import type { Queryable } from '../../db/pool.ts';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

/**
 * A redelivery the team asked for (see migration 0014): 'next' pulls the next scheduled attempt of
 * a pending delivery forward, 'extra' is one more attempt of a finished delivery (not retried),
 * 'requested' waits for the attempt under way to be recorded.
 */
export type Redelivery = 'requested' | 'next' | 'extra';

export type AttemptTrigger = 'schedule' | 'redelivery';

export interface DeliveryRow {
  id: string;
  team_id: string;
  generation_id: string;
  url: string;
  event_type: string;
  payload: string;
  state: DeliveryState;
  attempts: number;
  redelivery: Redelivery | null;
  webhook_secret: string;
}

/** One delivery per generation and event; a second insert for the same pair does nothing. */
export async function insertDelivery(
  db: Queryable,
  d: { id: string; teamId: string; generationId: string; url: string; eventType: string; payload: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `insert into webhook_deliveries (id, team_id, generation_id, url, event_type, payload, next_attempt_at)
     values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, now())
     on conflict (generation_id, event_type) do nothing`,
    [d.id, d.teamId, d.generationId, d.url, d.eventType, d.payload],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Takes a pending delivery for one attempt under a lease of `leaseMs` (the recovery sweep leaves
 * it alone meanwhile), with its team's current signing secret.
 */
export async function leasePendingDelivery(
  db: Queryable,
  id: string,
  leaseMs: number,
): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `with d as (
       update webhook_deliveries set lease_expires_at = now() + make_interval(secs => $2::float8 / 1000)
       where id = $1::text and state = 'pending'
       returning id, team_id, generation_id, url, event_type, payload, state, attempts, redelivery
     )
     select d.*, t.webhook_secret from d join teams t on t.id = d.team_id`,
    [id, leaseMs],
  );
  return rows[0];
}

export async function recordAttempt(
  db: Queryable,
  a: {
    deliveryId: string;
    attempt: number;
    statusCode: number | null;
    error: string | null;
    durationMs: number;
    trigger: AttemptTrigger;
    nextAttemptAt: Date | null;
  },
): Promise<void> {
  await db.query(
    `insert into webhook_attempts (delivery_id, attempt, status_code, error, duration_ms, trigger, next_attempt_at)
     values ($1::text, $2::int, $3::int, $4::text, $5::int, $6::text, $7::timestamptz)
     on conflict (delivery_id, attempt) do nothing`,
    [a.deliveryId, a.attempt, a.statusCode, a.error, a.durationMs, a.trigger, a.nextAttemptAt],
  );
}

/**
 * Moves a delivery after an attempt: delivered, failed for good, or pending until `nextAttemptAt`.
 * A redelivery asked for while the attempt was under way ('requested') overrides that: the
 * delivery is due again at once, as 'next' when its schedule goes on, else as 'extra'. Answers
 * where the delivery stands now, and whether that override happened.
 */
export async function finishAttempt(
  db: Queryable,
  id: string,
  attempts: number,
  state: DeliveryState,
  nextAttemptAt: Date | null,
): Promise<{ state: DeliveryState; next_attempt_at: Date | null; redelivered: boolean }> {
  const { rows } = await db.query<{ state: DeliveryState; next_attempt_at: Date | null; redelivered: boolean }>(
    `with before as (
       select id, coalesce(redelivery = 'requested', false) as redelivered
       from webhook_deliveries where id = $1::text for update
     )
     update webhook_deliveries d set
       attempts = $2::int,
       state = case when before.redelivered then 'pending' else $3::text end,
       next_attempt_at = case when before.redelivered then now() else $4::timestamptz end,
       redelivery = case when not before.redelivered then null
                         when $3::text = 'pending' then 'next' else 'extra' end,
       lease_expires_at = null, updated_at = now()
     from before
     where d.id = before.id
     returning d.state, d.next_attempt_at, before.redelivered`,
    [id, attempts, state, nextAttemptAt],
  );
  return rows[0] ?? { state, next_attempt_at: nextAttemptAt, redelivered: false };
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  trigger: AttemptTrigger;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: Date;
  next_attempt_at: Date | null;
}

export async function selectDeliveriesOfGeneration(
  db: Queryable,
  generationId: string,
): Promise<Array<{ id: string; state: string; attempts: number; url: string }>> {
  const { rows } = await db.query<{ id: string; state: string; attempts: number; url: string }>(
    'select id, state, attempts, url from webhook_deliveries where generation_id = $1::text',
    [generationId],
  );
  return rows;
}

// ---- the team's own view: deliveries, redelivery, signing secret ----------------------------------

/** A delivery as the team sees it, with the exact key of its place in the list. */
export interface TeamDeliveryRow {
  id: string;
  generation_id: string;
  event_type: string;
  url: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
  cursor_at: string;
}

const TEAM_DELIVERY_COLUMNS = `d.id, d.generation_id, d.event_type, d.url, d.state, d.attempts, d.next_attempt_at,
  d.created_at, d.updated_at, to_char(d.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at`;

export interface DeliveryFilter {
  state?: DeliveryState;
  generationId?: string;
  /** Created strictly after this time, to the millisecond as deliveries show it. */
  createdAfter?: string;
  createdBefore?: string;
  /** Strictly older than this (created_at, id): the last delivery of the page before. */
  olderThan?: { createdAt: string; id: string };
}

/**
 * One page of a team's deliveries, newest first by (created_at, id): a range of the
 * (team_id, created_at, id) index, or of (team_id, state, created_at, id) with a status filter;
 * with a generation, the (generation_id, event_type) index.
 */
export async function selectTeamDeliveries(
  db: Queryable,
  teamId: string,
  filter: DeliveryFilter,
  limit: number,
): Promise<TeamDeliveryRow[]> {
  const args: unknown[] = [teamId];
  const arg = (value: unknown, cast: string) => {
    args.push(value);
    return `$${args.length}::${cast}`;
  };
  const where = ['d.team_id = $1::text'];
  if (filter.state) where.push(`d.state = ${arg(filter.state, 'text')}`);
  if (filter.generationId) where.push(`d.generation_id = ${arg(filter.generationId, 'text')}`);
  if (filter.createdAfter) {
    where.push(`d.created_at >= ${arg(filter.createdAfter, 'timestamptz')} + interval '1 millisecond'`);
  }
  if (filter.createdBefore) where.push(`d.created_at < ${arg(filter.createdBefore, 'timestamptz')}`);
  if (filter.olderThan) {
    where.push(
      `(d.created_at, d.id) < (${arg(filter.olderThan.createdAt, 'timestamptz')}, ${arg(filter.olderThan.id, 'text')})`,
    );
  }
  const { rows } = await db.query<TeamDeliveryRow>(
    `select ${TEAM_DELIVERY_COLUMNS}
     from webhook_deliveries d
     where ${where.join(' and ')}
     order by d.created_at desc, d.id desc
     limit ${arg(limit, 'int')}`,
    args,
  );
  return rows;
}

/** One delivery of the team, with the body it sends; none when it is another team's. */
export async function selectTeamDelivery(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<(TeamDeliveryRow & { payload: string }) | undefined> {
  const { rows } = await db.query<TeamDeliveryRow & { payload: string }>(
    `select ${TEAM_DELIVERY_COLUMNS}, d.payload
     from webhook_deliveries d
     where d.id = $1::text and d.team_id = $2::text`,
    [id, teamId],
  );
  return rows[0];
}

/**
 * The latest `perDelivery` attempts of each delivery, oldest first within a delivery: one
 * statement for a whole page, by the (delivery_id, attempt) primary key.
 */
export async function selectAttempts(db: Queryable, deliveryIds: string[], perDelivery: number): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const { rows } = await db.query<AttemptRow>(
    `select a.delivery_id, a.attempt, a.trigger, a.status_code, a.error, a.duration_ms, a.created_at, a.next_attempt_at
     from unnest($1::text[]) as d(id)
     cross join lateral (
       select * from webhook_attempts w where w.delivery_id = d.id order by w.attempt desc limit $2::int
     ) a
     order by a.delivery_id, a.attempt`,
    [deliveryIds, perDelivery],
  );
  return rows;
}

/**
 * Locks a delivery of the team for a redelivery: its state, the redelivery already asked for,
 * and whether an attempt holds it right now (its lease runs).
 */
export async function lockTeamDelivery(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<{ state: DeliveryState; redelivery: Redelivery | null; attempt_under_way: boolean } | undefined> {
  const { rows } = await db.query<{ state: DeliveryState; redelivery: Redelivery | null; attempt_under_way: boolean }>(
    `select state, redelivery, coalesce(state = 'pending' and lease_expires_at > now(), false) as attempt_under_way
     from webhook_deliveries
     where id = $1::text and team_id = $2::text
     for update`,
    [id, teamId],
  );
  return rows[0];
}

/** Marks a redelivery for the attempt under way to take up when it is recorded. */
export async function requestRedeliveryAfterAttempt(db: Queryable, id: string): Promise<void> {
  await db.query("update webhook_deliveries set redelivery = 'requested', updated_at = now() where id = $1::text", [
    id,
  ]);
}

/** Makes a delivery due now as a redelivery ('next' or 'extra'). */
export async function scheduleRedelivery(db: Queryable, id: string, redelivery: 'next' | 'extra'): Promise<void> {
  await db.query(
    `update webhook_deliveries set state = 'pending', redelivery = $2::text, next_attempt_at = now(), updated_at = now()
     where id = $1::text`,
    [id, redelivery],
  );
}

/** Deletes the queued (not running) jobs of a delivery's attempts, before one is queued for now. */
export async function deleteQueuedAttempts(db: Queryable, task: string, deliveryId: string): Promise<void> {
  await db.query(
    `delete from graphile_worker._private_jobs j using graphile_worker._private_tasks t
     where t.id = j.task_id and t.identifier = $1::text and j.locked_at is null
       and j.payload->>'delivery_id' = $2::text`,
    [task, deliveryId],
  );
}

export interface SigningSecretRow {
  webhook_secret: string;
  webhook_secret_created_at: Date;
}

export async function selectSigningSecret(db: Queryable, teamId: string): Promise<SigningSecretRow | undefined> {
  const { rows } = await db.query<SigningSecretRow>(
    'select webhook_secret, webhook_secret_created_at from teams where id = $1::text',
    [teamId],
  );
  return rows[0];
}

/** Teams whose signing secret was stored before secrets were sealed. */
export async function selectUnsealedSecrets(db: Queryable): Promise<Array<{ id: string; webhook_secret: string }>> {
  const { rows } = await db.query<{ id: string; webhook_secret: string }>(
    `select id, webhook_secret from teams where webhook_secret not like 'enc:v1:%'`,
  );
  return rows;
}

/**
 * Stores a team's secret sealed, if it is still the plain value read. Run it in a transaction:
 * it marks the transaction as resealing, so the secret keeps its date (migration 0019).
 */
export async function resealSecret(db: Queryable, teamId: string, plain: string, sealed: string): Promise<boolean> {
  await db.query(`select set_config('genmedia.resealing', 'on', true)`);
  const { rowCount } = await db.query(
    'update teams set webhook_secret = $3::text where id = $1::text and webhook_secret = $2::text',
    [teamId, plain, sealed],
  );
  return (rowCount ?? 0) > 0;
}

/** Replaces the team's signing secret (the trigger of migration 0014 dates it). */
export async function replaceSigningSecret(
  db: Queryable,
  teamId: string,
  secret: string,
): Promise<SigningSecretRow | undefined> {
  const { rows } = await db.query<SigningSecretRow>(
    `update teams set webhook_secret = $2::text where id = $1::text
     returning webhook_secret, webhook_secret_created_at`,
    [teamId, secret],
  );
  return rows[0];
}
