-- A team's history (GET /api/v1/generations) pages newest first by (created_at, id): the index
-- that serves it replaces the one on (team_id, created_at); a status filter (the failed ones, the
-- running ones) has its own, so a rare status is found without reading the whole history.
create index generations_team_history_idx on generations (team_id, created_at desc, id desc);
create index generations_team_status_idx on generations (team_id, status, created_at desc, id desc);
drop index generations_team_idx;
