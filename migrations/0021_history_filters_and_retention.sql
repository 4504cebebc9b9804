-- The history's other filters get indexes of their own, each ordered as the history pages (newest
-- first by created_at, id), so a rare model, kind, operation or workspace is found without walking
-- the team's whole history. The kind (an operation's family: `video` of `video.lipsync`) is kept
-- as a column, so its filter is an equality the index serves in order.
alter table generations add column kind text generated always as (split_part(operation, '.', 1)) stored;
create index generations_team_kind_idx on generations (team_id, kind, created_at desc, id desc);
create index generations_team_operation_idx on generations (team_id, operation, created_at desc, id desc);
create index generations_team_model_idx on generations (team_id, model, created_at desc, id desc)
  where model is not null;
create index generations_team_workspace_idx on generations (team_id, workspace_id, created_at desc, id desc)
  where workspace_id is not null;

-- Retention deletes the vendor attempts of long-finished work by age.
create index item_attempts_started_idx on item_attempts (started_at);
