-- A model's vendor routes as the operator set them without a restart, in place of the catalog's.
-- The whole ordered list of the model, each entry {provider, endpoint, mapping, tier, weight,
-- enabled}; no row: the catalog's routes. Written with an admin_audit row and a NOTIFY on
-- `live_config` in the same transaction, as the rest of the live configuration.
create table model_routes (
  kind text not null,
  model text not null,
  routes jsonb not null,
  updated_at timestamptz not null default now(),
  primary key (kind, model)
);
