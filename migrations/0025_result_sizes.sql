-- The size of each result file as stored, so that a team's storage quota (TEAM_STORAGE_QUOTA_MB)
-- counts what its generations hold. Null for results stored before sizes were recorded.
alter table generation_items add column result_bytes bigint check (result_bytes >= 0);
