-- Retention: a generation's result files are kept until expires_at (MEDIA_RETENTION_DAYS after it
-- was accepted; null keeps them), then deleted from storage and the generation marked purged_at:
-- its URLs answer 410. The records stay (the history, the ledger); operational rows (idempotency
-- keys, webhook deliveries and attempts, dead queue jobs) are deleted after their own age.
alter table generations add column expires_at timestamptz;
alter table generations add column purged_at timestamptz;
create index generations_expiry_idx on generations (expires_at) where expires_at is not null and purged_at is null;
create index webhook_deliveries_finished_idx on webhook_deliveries (updated_at) where state <> 'pending';
