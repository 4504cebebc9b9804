-- Nothing paid for is left unfinished: item leases and provider-failure counts for the recovery
-- sweep, delivery leases for crash-safe webhooks, and process liveness for idempotency claims.

-- A running item holds a lease that its process renews; an unfinished item whose lease has run
-- out and that has no runnable job is taken up again (or failed and refunded) by the sweep.
-- `failures` counts failed provider attempts only: claims that ended otherwise (a crash, an
-- outage) are `attempts - failures`, and are bounded separately.
alter table generation_items
  add column failures integer not null default 0,
  add column lease_expires_at timestamptz;
create index generation_items_unfinished_idx on generation_items (created_at)
  where status in ('QUEUED', 'PROCESSING');

-- A delivery attempt in progress holds a lease: a delivery still pending after its lease and
-- its due time, with no runnable job, is queued again.
alter table webhook_deliveries add column lease_expires_at timestamptz;
create index webhook_deliveries_pending_idx on webhook_deliveries (next_attempt_at) where state = 'pending';

-- Every API and worker process beats here; an Idempotency-Key claim belongs to the process that
-- took it, and is released as soon as that process stops beating.
create table service_instances (
  id text primary key,
  role text not null,
  started_at timestamptz not null default now(),
  heartbeat_at timestamptz not null default now()
);
-- A synchronous request records the generation it created under its claim, so that a retry that
-- takes over the claim of a process that died finishes that generation instead of paying again.
alter table idempotency_keys add column owner text, add column generation_id text;
create index idempotency_keys_in_flight_idx on idempotency_keys (owner) where state = 'in_flight';
