-- Failover and the circuit breaker. A route (a provider's endpoint) that keeps failing with
-- `unavailable`, `auth` or `quota` cools down for a while and the next route serves meanwhile;
-- the state is here so every process sees it.
create table route_health (
  provider text not null,
  endpoint text not null,
  -- Failures in a row that count towards the breaker (reset by a success or when it opens).
  consecutive_failures integer not null default 0,
  cooling_until timestamptz,
  updated_at timestamptz not null default now(),
  primary key (provider, endpoint)
);

-- An item that moved to another route remembers the routes it left ('provider endpoint'), and
-- counts failures on its current route apart from all its provider failures (`failures`).
-- error_kind: the ProviderError kind of a FAILED item's last failure, when a provider said it.
-- vendor_accepted_at: when the vendor accepted the job it runs now (polls back off with its age).
alter table generation_items
  add column vendor_accepted_at timestamptz,
  add column skipped_routes text[] not null default '{}',
  add column route_failures integer not null default 0,
  add column error_kind text;

alter table item_attempts add column error_kind text;
create index item_attempts_provider_idx on item_attempts (provider, started_at);
