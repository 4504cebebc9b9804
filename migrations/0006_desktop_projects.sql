-- Desktop projects: versioned snapshots pushed by the desktop app, and the media uploaded for them.

-- One row per (team, client-chosen desktop project id). latest_version is bumped by
-- `insert ... on conflict do update`, which holds the row lock until the push commits, so
-- concurrent pushes to one project get consecutive versions. A row created by a media upload
-- before the first push has latest_version 0 and no versions.
create table desktop_projects (
  id text primary key,
  team_id text not null references teams (id),
  client_id text not null check (client_id ~ '^[A-Za-z0-9_.:-]{1,128}$'),
  workspace_id text references workspaces (id),
  name text,
  latest_version integer not null default 0 check (latest_version >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (team_id, client_id)
);
create index desktop_projects_team_idx on desktop_projects (team_id, updated_at desc);

-- Snapshots are immutable. The payload is kept as `json` (not jsonb) so that it reads back with
-- the key order and number spelling it was pushed with; nothing queries inside it.
create table desktop_project_versions (
  project_id text not null references desktop_projects (id),
  version integer not null check (version >= 1),
  payload json not null,
  size_bytes integer not null check (size_bytes >= 0),
  created_at timestamptz not null default now(),
  primary key (project_id, version)
);

-- Every accepted upload (the file lives in storage under storage_key).
create table desktop_project_media (
  id text primary key,
  project_id text not null references desktop_projects (id),
  storage_key text not null unique,
  content_type text not null,
  kind text not null check (kind in ('image', 'video', 'audio')),
  size_bytes bigint not null check (size_bytes > 0),
  width integer,
  height integer,
  duration_seconds double precision,
  created_at timestamptz not null default now()
);
create index desktop_project_media_project_idx on desktop_project_media (project_id, created_at desc);
