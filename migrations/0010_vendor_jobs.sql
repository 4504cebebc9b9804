-- Vendor jobs: an item a vendor accepted records the vendor, the endpoint and the vendor's handle,
-- and its job ends; completion comes by the vendor's webhook or by poll jobs. Every attempt at a
-- vendor is recorded.

-- vendor_state: 'submitting' is written (and committed) before the submit call, 'accepted' with
-- the handle after it; a crash in between leaves 'submitting', an outcome we cannot know.
alter table generation_items
  add column provider text,
  add column vendor_endpoint text,
  add column vendor_state text check (vendor_state in ('submitting', 'accepted')),
  add column vendor_handle jsonb,
  add column vendor_request_id text,
  add column progress real,
  add column queue_position integer;
create unique index generation_items_vendor_request_idx on generation_items (provider, vendor_request_id)
  where vendor_request_id is not null;

create table item_attempts (
  id bigint generated always as identity primary key,
  item_id text not null references generation_items (id),
  generation_id text not null references generations (id),
  provider text not null,
  endpoint text not null,
  vendor_request_id text,
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  outcome text check (outcome in ('completed', 'failed', 'submit_failed', 'unknown')),
  error text,
  cost numeric
);
create index item_attempts_generation_idx on item_attempts (generation_id, started_at);
create index item_attempts_open_idx on item_attempts (item_id) where finished_at is null;
