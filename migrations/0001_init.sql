-- Teams, API keys, workspaces and the credit ledger.

create table teams (
  id text primary key,
  name text not null,
  credits bigint not null default 0 check (credits >= 0),
  webhook_secret text not null,
  created_at timestamptz not null default now()
);

create table api_keys (
  id text primary key,
  team_id text not null references teams (id),
  name text,
  prefix text not null,
  key_hash bytea not null unique,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_keys_team_id_idx on api_keys (team_id, created_at desc);

create table workspaces (
  id text primary key,
  team_id text not null references teams (id),
  name text not null,
  created_at timestamptz not null default now()
);
create index workspaces_team_id_idx on workspaces (team_id, created_at desc);

-- Append-only: every change of a team's balance is one row, written in the transaction that
-- changes teams.credits, so sum(amount) per team always equals the balance.
-- seq is taken while the team row is locked, so per team it is the order changes were applied.
create table credit_ledger (
  id text primary key,
  seq bigint generated always as identity,
  team_id text not null references teams (id),
  amount bigint not null check (amount <> 0),
  balance_after bigint not null check (balance_after >= 0),
  kind text not null check (kind in ('grant', 'correction', 'charge', 'refund', 'purchase')),
  reason text not null,
  generation_id text,
  created_at timestamptz not null default now()
);
create index credit_ledger_team_seq_idx on credit_ledger (team_id, seq desc);

create function credit_ledger_is_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'credit_ledger is append-only';
end;
$$;
create trigger credit_ledger_append_only
  before update or delete on credit_ledger
  for each row execute function credit_ledger_is_append_only();
