-- The team's own views: its ledger and usage (GET /api/v1/billing/ledger, /usage), its webhook
-- deliveries with their attempts, redelivery, and its signing secret (/api/v1/webhooks/...).

-- The ledger pages newest first by (created_at, id), and usage sums a time range. The included
-- columns let usage read the index alone: the ledger is append-only, so its pages stay
-- all-visible once vacuumed.
create index credit_ledger_team_created_idx on credit_ledger (team_id, created_at desc, id desc)
  include (amount, kind, generation_id);

-- Deliveries page newest first by (created_at, id); a status filter (the failed ones) has its own
-- index so that a rare status is found without reading every delivery of the team.
create index webhook_deliveries_team_created_idx on webhook_deliveries (team_id, created_at desc, id desc);
create index webhook_deliveries_team_state_idx on webhook_deliveries (team_id, state, created_at desc, id desc);

-- A redelivery asked for by the team:
--   'next'      the delivery was pending: its next attempt is made now, and the schedule goes on;
--   'extra'     the delivery had finished (delivered or failed): one more attempt, not retried;
--   'requested' asked while an attempt was under way: when that attempt is recorded, it becomes
--               'next' (the schedule goes on) or 'extra' (that attempt finished the delivery).
alter table webhook_deliveries
  add column redelivery text check (redelivery in ('requested', 'next', 'extra'));

-- What made an attempt, and when the attempt after it was scheduled (null: none was).
alter table webhook_attempts
  add column trigger text not null default 'schedule' check (trigger in ('schedule', 'redelivery')),
  add column next_attempt_at timestamptz;

-- When the team's current signing secret was made: at team creation, then at every rotation
-- (by the admin API or the team itself), kept by a trigger so that every writer of the secret
-- keeps it.
alter table teams add column webhook_secret_created_at timestamptz;
update teams set webhook_secret_created_at = created_at;
alter table teams
  alter column webhook_secret_created_at set default now(),
  alter column webhook_secret_created_at set not null;

create function teams_webhook_secret_rotated() returns trigger language plpgsql as $$
begin
  new.webhook_secret_created_at := now();
  return new;
end;
$$;
create trigger teams_webhook_secret_rotated
  before update of webhook_secret on teams
  for each row when (old.webhook_secret is distinct from new.webhook_secret)
  execute function teams_webhook_secret_rotated();
