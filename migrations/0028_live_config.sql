-- Live configuration: what an operator changes through the admin API without a restart, over the
-- shipped catalog (which stays the base layer). A model's price and availability, aliases, and a
-- team's price multiplier and model rules. Each change is written with an admin_audit row and a
-- NOTIFY on `live_config` in the same transaction; every process reloads on it.
create table model_overrides (
  kind text not null,
  model text not null,
  -- The catalog's price object for the kind; null: the catalog's price.
  price jsonb,
  -- false: refused as unavailable; null: as the catalog and the configured vendors say.
  available boolean,
  updated_at timestamptz not null default now(),
  primary key (kind, model)
);

create table model_aliases (
  alias text primary key,
  kind text not null,
  model text not null,
  created_at timestamptz not null default now()
);

alter table teams
  add column price_multiplier numeric not null default 1 check (price_multiplier > 0),
  add column allowed_models text[] not null default '{}',
  add column denied_models text[] not null default '{}';

create table admin_audit (
  id text primary key,
  at timestamptz not null default now(),
  actor text not null,
  action text not null,
  target text not null,
  before jsonb,
  after jsonb
);

create index admin_audit_newest on admin_audit (at desc, id desc);
