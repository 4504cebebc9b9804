-- Purchases of credits: one row per checkout opened by POST /api/v1/billing/top-up, and one row
-- per payment-provider event that paid a checkout (the replay guard of the vendor webhooks).

create table checkouts (
  id text primary key,
  team_id text not null references teams (id),
  -- The API key that opened the checkout, kept with the acknowledgements as dispute evidence.
  api_key_id text,
  plan_id text not null,
  variant_id text not null,
  -- Copied from the catalog when the checkout is opened: a later catalog change does not alter it.
  credits bigint not null check (credits > 0),
  amount bigint not null check (amount >= 0),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  provider text not null check (provider in ('builtin', 'stripe', 'lemonsqueezy')),
  -- The provider's own id of the checkout (Stripe session id, Lemon Squeezy checkout id).
  provider_ref text,
  -- Where the buyer pays (the provider's hosted page, or our own /checkout/{id}).
  checkout_url text not null,
  success_url text,
  cancel_url text,
  signature_name text,
  dispute_policy_acknowledged boolean not null,
  status text not null default 'open' check (status in ('open', 'paid', 'cancelled', 'expired')),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  paid_at timestamptz,
  cancelled_at timestamptz,
  -- The 'purchase' ledger entry written in the transaction that marked the checkout paid.
  ledger_entry_id text references credit_ledger (id),
  check ((status = 'paid') = (paid_at is not null))
);
create index checkouts_team_id_idx on checkouts (team_id, created_at desc);
create unique index checkouts_provider_ref_idx on checkouts (provider, provider_ref) where provider_ref is not null;

-- A provider event (Stripe event id, Lemon Squeezy order id) is applied at most once: the insert
-- shares the transaction that marks the checkout paid and credits the team.
create table payment_events (
  provider text not null,
  event_id text not null,
  event_type text not null,
  checkout_id text not null references checkouts (id),
  received_at timestamptz not null default now(),
  primary key (provider, event_id)
);
create index payment_events_checkout_id_idx on payment_events (checkout_id);
