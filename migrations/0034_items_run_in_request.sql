-- Items a synchronous request runs itself, in the API process that took it: no job is queued for
-- them, and their lease is kept by that process while the call lasts. When the process dies
-- mid-call (the lease lapses), the recovery sweep fails and refunds them instead of queueing them
-- again: nobody waits for their answer any more.
alter table generation_items add column in_request boolean not null default false;
