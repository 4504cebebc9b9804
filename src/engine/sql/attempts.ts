/** Vendor attempts: an item's submit, its accepted job and how that ended; route health. */

import type { Queryable } from '../../db/pool.ts';

/** The vendor job an item holds, whatever its status (undefined: no job was accepted for it). */
export async function selectAcceptedVendorJob(
  db: Queryable,
  itemId: string,
): Promise<{ provider: string; vendor_handle: Record<string, unknown>; credential_id: string | null } | undefined> {
  const { rows } = await db.query<{
    provider: string;
    vendor_handle: Record<string, unknown>;
    credential_id: string | null;
  }>(
    `select provider, vendor_handle, credential_id from generation_items
     where id = $1::text and vendor_state = 'accepted' and provider is not null and vendor_handle is not null`,
    [itemId],
  );
  return rows[0];
}

// Vendor jobs.

/**
 * Records, before the submit call, that the item is going to `provider` and opens its attempt
 * (whose id keys the submit): a crash after this leaves 'submitting', which says the outcome is
 * unknown. `simulated`: the provider is the simulator standing in for a vendor (the item's status
 * record says so). Undefined when the item is no longer PROCESSING.
 */
export async function markSubmitting(
  db: Queryable,
  itemId: string,
  provider: string,
  endpoint: string,
  simulated: boolean,
  credentialId: string | null = null,
): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `with item as (
       update generation_items set provider = $2::text, vendor_endpoint = $3::text, vendor_state = 'submitting',
         simulated = $4::boolean, credential_id = $5::text,
         vendor_handle = null, vendor_request_id = null, vendor_webhook_at = null, updated_at = now()
       where id = $1::text and status = 'PROCESSING'
       returning id, generation_id
     )
     insert into item_attempts (item_id, generation_id, provider, endpoint, credential_id, started_at)
     select id, generation_id, $2::text, $3::text, $5::text, clock_timestamp() from item
     returning id::text`,
    [itemId, provider, endpoint, simulated, credentialId],
  );
  return rows[0]?.id;
}

/**
 * Holds the credential's lock until the caller's transaction ends: the submits that count against
 * its caps are recorded one at a time, whatever process makes them.
 */
export async function lockCredential(db: Queryable, credentialId: string): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtextextended('vendor-credential:' || $1::text, 0))`, [credentialId]);
}

/** What counts against a credential's caps now. */
export interface CredentialLoad {
  /** Its items at the vendor (submitted, not finished). */
  inFlight: number;
  /** Its submits in the last `windowS` seconds. */
  recent: number;
  /** Milliseconds until the oldest of those leaves the window (0: none). */
  freesInMs: number;
}

/** The load of each credential of `ids` (read under their locks: lockCredential). */
export async function selectCredentialLoads(
  db: Queryable,
  ids: string[],
  windowS: number,
): Promise<Map<string, CredentialLoad>> {
  const { rows } = await db.query<{ id: string; in_flight: number; recent: number; frees_in_ms: number }>(
    `select c.id,
       (select count(*)::int from generation_items i
         where i.credential_id = c.id and i.vendor_state is not null and i.status = 'PROCESSING') as in_flight,
       w.recent,
       coalesce(ceil(greatest(0, extract(epoch from
         w.oldest + make_interval(secs => $2::float8) - clock_timestamp()) * 1000)), 0)::int as frees_in_ms
     from unnest($1::text[]) as c(id)
     cross join lateral (
       select count(*)::int as recent, min(a.started_at) as oldest from item_attempts a
       where a.credential_id = c.id and a.started_at > clock_timestamp() - make_interval(secs => $2::float8)
     ) w`,
    [ids, windowS],
  );
  return new Map(rows.map((r) => [r.id, { inFlight: r.in_flight, recent: r.recent, freesInMs: r.frees_in_ms }]));
}

/** What a vendor's webhook needs of the item its URL names. */
export interface WebhookItem {
  /** The credential its vendor job was submitted with (undefined: the vendor's default). */
  credentialId: string | undefined;
  /** Its vendor job's id, once the submit's answer is recorded. */
  vendorRequestId: string | null;
  /** Still to finish (QUEUED or PROCESSING). */
  unfinished: boolean;
}

/** The item `itemId` at `provider`, as its vendor's webhook needs it; undefined when there is none. */
export async function selectWebhookItem(
  db: Queryable,
  itemId: string,
  provider: string,
): Promise<WebhookItem | undefined> {
  const { rows } = await db.query<{
    credential_id: string | null;
    vendor_request_id: string | null;
    unfinished: boolean;
  }>(
    `select credential_id, vendor_request_id, status in ('QUEUED', 'PROCESSING') as unfinished
     from generation_items where id = $1::text and provider = $2::text`,
    [itemId, provider],
  );
  const row = rows[0];
  return (
    row && {
      credentialId: row.credential_id ?? undefined,
      vendorRequestId: row.vendor_request_id,
      unfinished: row.unfinished,
    }
  );
}

/** The attempt of an item still under way (its submit, or the vendor job it started), if any. */
export async function selectOpenAttempt(db: Queryable, itemId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `select id::text from item_attempts where item_id = $1::text and finished_at is null
     order by id desc limit 1`,
    [itemId],
  );
  return rows[0]?.id;
}

/**
 * Records the vendor's handle of an accepted job; the item is no longer held by this process (its
 * lease goes), a poll job (or the vendor's webhook) finishes it.
 */
export async function markAccepted(
  db: Queryable,
  itemId: string,
  handle: Record<string, string | number | null>,
  vendorRequestId: string,
): Promise<{ webhookArrived: boolean } | undefined> {
  const { rows } = await db.query<{ webhook_arrived: boolean }>(
    `with item as (
       update generation_items set vendor_state = 'accepted', vendor_handle = $2::jsonb, vendor_request_id = $3::text,
         vendor_accepted_at = now(), lease_expires_at = null, updated_at = now()
       where id = $1::text and status = 'PROCESSING' and vendor_state = 'submitting'
       returning id, vendor_webhook_at is not null as webhook_arrived
     ), attempt as (
       update item_attempts a set vendor_request_id = $3::text
       from item where a.item_id = item.id and a.finished_at is null
     )
     select webhook_arrived from item`,
    [itemId, JSON.stringify(handle), vendorRequestId],
  );
  return rows[0] ? { webhookArrived: rows[0].webhook_arrived } : undefined;
}

/**
 * Marks an item whose submit has not recorded the vendor's answer yet, when the vendor's webhook
 * comes first: recording the answer then polls at once. False when the item is not (or no longer)
 * waiting for that answer. Run it on its own, before looking the item up by the vendor's request
 * id: the row lock orders it with `markAccepted`, and the look-up after it sees what that wrote.
 */
export async function markEarlyWebhook(db: Queryable, itemId: string, provider: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `update generation_items set vendor_webhook_at = now()
     where id = $1::text and provider = $2::text and status = 'PROCESSING' and vendor_state = 'submitting'`,
    [itemId, provider],
  );
  return (rowCount ?? 0) > 0;
}

/** Forgets a submit that the vendor refused (nothing was accepted): the item may be submitted again. */
export async function clearVendorState(db: Queryable, itemId: string): Promise<void> {
  await db.query(
    `update generation_items set vendor_state = null, vendor_handle = null, vendor_request_id = null, updated_at = now()
     where id = $1::text and status = 'PROCESSING'`,
    [itemId],
  );
}

/** How an attempt ended. */
export interface AttemptEnd {
  outcome: 'completed' | 'failed' | 'submit_failed' | 'unknown';
  error?: string | null;
  /** The WorkError kind of a failure. */
  errorKind?: string | null;
  /** What the vendor said the work cost, when it said. */
  cost?: number | null;
  /**
   * When the route's answer with the result was in hand, before its file was copied into our
   * storage (a completion recorded by finish_item; item_attempts.answered_at, migration 0043).
   */
  answeredAt?: Date;
}

/** Closes the item's open attempt with its outcome. */
export async function finishAttempt(db: Queryable, itemId: string, end: AttemptEnd): Promise<void> {
  await db.query(
    `update item_attempts set finished_at = now(), outcome = $2::text, error = $3::text, error_kind = $4::text,
       cost = $5::numeric
     where item_id = $1::text and finished_at is null`,
    [itemId, end.outcome, end.error ?? null, end.errorKind ?? null, end.cost ?? null],
  );
}

/** What a vendor says of a job still running. */
export async function updateVendorProgress(
  db: Queryable,
  itemId: string,
  progress: number | null,
  queuePosition: number | null,
): Promise<void> {
  await db.query(
    `update generation_items set progress = $2::real, queue_position = $3::int
     where id = $1::text and status = 'PROCESSING'`,
    [itemId, progress, queuePosition],
  );
}

/** Records the handle a vendor job goes on under (it moved on to another task of the vendor's). */
export async function replaceVendorHandle(
  db: Queryable,
  itemId: string,
  handle: Record<string, string | number | null>,
): Promise<void> {
  await db.query(
    `update generation_items set vendor_handle = $2::jsonb, updated_at = now()
     where id = $1::text and status = 'PROCESSING' and vendor_state = 'accepted'`,
    [itemId, JSON.stringify(handle)],
  );
}

/** The item a vendor's job id belongs to. */
export async function selectItemByVendorRequest(
  db: Queryable,
  provider: string,
  vendorRequestId: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `select id from generation_items
     where provider = $1::text and vendor_request_id = $2::text and status in ('QUEUED', 'PROCESSING')`,
    [provider, vendorRequestId],
  );
  return rows[0]?.id;
}

// Route health: the circuit breaker of every (provider, endpoint), shared by the processes.

// Route health: the circuit breaker of every (provider, endpoint), shared by the processes.

/** The routes cooling down now, as 'provider endpoint' keys with when each is usable again. */
export async function selectCoolingRoutes(db: Queryable): Promise<Map<string, Date>> {
  const { rows } = await db.query<{ provider: string; endpoint: string; cooling_until: Date }>(
    'select provider, endpoint, cooling_until from route_health where cooling_until > now()',
  );
  return new Map(rows.map((r) => [`${r.provider} ${r.endpoint}`, r.cooling_until]));
}

/**
 * Counts a failure of a route towards its breaker: after `after` failures in a row it cools for
 * `seconds` (and the count starts again). Answers whether the route is cooling now.
 */
export async function recordRouteFailure(
  db: Queryable,
  provider: string,
  endpoint: string,
  after: number,
  seconds: number,
): Promise<boolean> {
  const { rows } = await db.query<{ cooling: boolean }>(
    `insert into route_health as h (provider, endpoint, consecutive_failures, cooling_until)
     values ($1::text, $2::text,
       case when 1 >= $3::int then 0 else 1 end,
       case when 1 >= $3::int then now() + make_interval(secs => $4::float8) end)
     on conflict (provider, endpoint) do update set
       consecutive_failures = case when h.consecutive_failures + 1 >= $3::int then 0
                                   else h.consecutive_failures + 1 end,
       cooling_until = case when h.consecutive_failures + 1 >= $3::int
                            then now() + make_interval(secs => $4::float8) else h.cooling_until end,
       updated_at = now()
     returning coalesce(h.cooling_until > now(), false) as cooling`,
    [provider, endpoint, after, seconds],
  );
  return rows[0]?.cooling ?? false;
}

/** A success closes the route's count of failures in a row (written only when there was one). */
export async function recordRouteSuccess(db: Queryable, provider: string, endpoint: string): Promise<void> {
  await db.query(
    `update route_health set consecutive_failures = 0, updated_at = now()
     where provider = $1::text and endpoint = $2::text and consecutive_failures > 0`,
    [provider, endpoint],
  );
}

// ---- Retention (engine/retention.ts).
