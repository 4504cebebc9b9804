-- A vendor credential's caps, enforced at each submit across every process: `max_in_flight` counts
-- the items at the vendor with the credential now (generation_items.credential_id, submitted and not
-- finished); `rpm` counts the submits made with it in the last window (item_attempts, one row per
-- submit, now naming its credential). Both are read under a lock of the credential taken in the
-- transaction that records the submit.
alter table item_attempts add column credential_id text;
create index item_attempts_credential_idx on item_attempts (credential_id, started_at)
  where credential_id is not null;
create index generation_items_credential_in_flight_idx on generation_items (credential_id)
  where credential_id is not null and vendor_state is not null and status = 'PROCESSING';
