-- Several credentials per vendor: keys the operator adds through the admin API beside the one a
-- vendor's environment variable sets. The secret is stored sealed (as webhook signing secrets are);
-- its last four characters are kept apart to name it. Each change is an admin_audit row and a
-- NOTIFY on `live_config` in the same transaction; every process reloads on it.
create table vendor_credentials (
  id text primary key,
  provider text not null,
  name text not null,
  secret text not null,
  secret_last4 text not null,
  base_url text,
  weight integer not null default 1 check (weight >= 0),
  rpm integer check (rpm > 0),
  max_in_flight integer check (max_in_flight > 0),
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  unique (provider, name)
);

-- The health of a credential (an API one by its id, an environment one as `env:<provider>`): no row
-- is active. Disabled (the vendor refused the key, or its quota or balance ran out) until the
-- operator enables it again; cooling (repeated unavailability) until `cooling_until`, then checked.
create table credential_health (
  credential_id text primary key,
  provider text not null,
  state text not null check (state in ('cooling', 'disabled')),
  reason text,
  cooling_until timestamptz,
  updated_at timestamptz not null default now()
);

-- The credential an item's vendor job was submitted with: its polls, cancel and webhooks use it.
alter table generation_items add column credential_id text;
