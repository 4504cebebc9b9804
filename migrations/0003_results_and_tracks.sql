-- What a provider reported with a result (token usage, durations, text), and music tracks.

alter table generation_items add column result jsonb;

create table music_tracks (
  id text primary key,
  team_id text not null references teams (id),
  workspace_id text references workspaces (id),
  generation_id text not null unique references generations (id),
  title text not null,
  style text not null,
  url text not null,
  status text not null default 'completed',
  duration_seconds numeric,
  created_at timestamptz not null default now()
);
create index music_tracks_team_idx on music_tracks (team_id, created_at desc);
