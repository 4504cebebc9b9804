-- Generations and their items, idempotency keys, webhook deliveries, worker liveness.

create table generations (
  id text primary key,
  team_id text not null references teams (id),
  workspace_id text references workspaces (id),
  operation text not null,
  model text,
  status text not null default 'queued' check (status in ('queued', 'processing', 'completed', 'failed')),
  input jsonb not null,
  -- What the request was charged when accepted, and what failed items gave back.
  credits_charged bigint not null check (credits_charged >= 0),
  credits_refunded bigint not null default 0 check (credits_refunded >= 0 and credits_refunded <= credits_charged),
  total_items integer not null check (total_items > 0),
  completed_items integer not null default 0,
  failed_items integer not null default 0,
  estimated_seconds numeric not null default 0,
  webhook_url text,
  result jsonb,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz,
  check (completed_items + failed_items <= total_items)
);
create index generations_team_idx on generations (team_id, created_at desc);

create table generation_items (
  id text primary key,
  generation_id text not null references generations (id),
  position integer not null,
  type text not null,
  model text,
  status text not null default 'QUEUED' check (status in ('QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED')),
  input jsonb not null default '{}',
  -- Credits this item costs; given back once if it fails (refunded flips in that transaction).
  price bigint not null check (price >= 0),
  refunded boolean not null default false,
  storage_token text not null,
  url text,
  error text,
  attempts integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (generation_id, position)
);

create table idempotency_keys (
  team_id text not null references teams (id),
  key text not null,
  request_hash text not null,
  state text not null check (state in ('in_flight', 'done')),
  response_status integer,
  response_body text,
  created_at timestamptz not null default now(),
  primary key (team_id, key)
);
create index idempotency_keys_created_idx on idempotency_keys (created_at);

create table webhook_deliveries (
  id text primary key,
  team_id text not null references teams (id),
  generation_id text not null references generations (id),
  url text not null,
  event_type text not null,
  payload text not null,
  state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (generation_id, event_type)
);

create table webhook_attempts (
  delivery_id text not null references webhook_deliveries (id),
  attempt integer not null,
  status_code integer,
  error text,
  duration_ms integer not null,
  created_at timestamptz not null default now(),
  primary key (delivery_id, attempt)
);

-- Worker processes announce themselves; the jobs of one that stops beating are released.
create table worker_heartbeats (
  worker_id text primary key,
  heartbeat_at timestamptz not null default now()
);
