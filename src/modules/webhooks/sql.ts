import type { Queryable } from '../../db/pool.ts';

export interface DeliveryRow {
  id: string;
  team_id: string;
  generation_id: string;
  url: string;
  event_type: string;
  payload: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
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
       returning id, team_id, generation_id, url, event_type, payload, state, attempts
     )
     select d.*, t.webhook_secret from d join teams t on t.id = d.team_id`,
    [id, leaseMs],
  );
  return rows[0];
}

export async function recordAttempt(
  db: Queryable,
  a: { deliveryId: string; attempt: number; statusCode: number | null; error: string | null; durationMs: number },
): Promise<void> {
  await db.query(
    `insert into webhook_attempts (delivery_id, attempt, status_code, error, duration_ms)
     values ($1::text, $2::int, $3::int, $4::text, $5::int)
     on conflict (delivery_id, attempt) do nothing`,
    [a.deliveryId, a.attempt, a.statusCode, a.error, a.durationMs],
  );
}

/** Moves a delivery after an attempt: delivered, failed for good, or pending until the next try. */
export async function updateDelivery(
  db: Queryable,
  id: string,
  attempts: number,
  state: DeliveryRow['state'],
  nextAttemptAt: Date | null,
): Promise<void> {
  await db.query(
    `update webhook_deliveries set attempts = $2::int, state = $3::text, next_attempt_at = $4::timestamptz,
       lease_expires_at = null, updated_at = now()
     where id = $1::text`,
    [id, attempts, state, nextAttemptAt],
  );
}

export interface AttemptRow {
  attempt: number;
  status_code: number | null;
  error: string | null;
  created_at: Date;
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
