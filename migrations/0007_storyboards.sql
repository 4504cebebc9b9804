-- Storyboard projects: scenes -> shots -> frames -> image versions, video versions per shot, and
-- project-level assets (outfits, locations, custom elements). A project is written whole, in one
-- transaction, by the admin import; the team reads it through the public API.
--
-- Positions are 1-based and unique per parent; versions are 1-based, oldest first, and at most one
-- version per frame (image) or shot (video) is selected. "Current" means the selected version,
-- else the highest one.

create table storyboard_projects (
  id text primary key,
  team_id text not null references teams (id),
  workspace_id text references workspaces (id),
  name text not null,
  description text,
  aspect_ratio text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- The team's list, newest first (the workspace filter narrows the same scan).
create index storyboard_projects_team_idx on storyboard_projects (team_id, created_at desc, id desc);

create table storyboard_scenes (
  id text primary key,
  project_id text not null references storyboard_projects (id) on delete cascade,
  position integer not null check (position >= 1),
  title text not null,
  description text,
  constraint storyboard_scenes_position_key unique (project_id, position)
);

create table storyboard_shots (
  id text primary key,
  scene_id text not null references storyboard_scenes (id) on delete cascade,
  position integer not null check (position >= 1),
  description text,
  duration_seconds double precision check (duration_seconds > 0),
  camera text,
  constraint storyboard_shots_position_key unique (scene_id, position)
);

create table storyboard_frames (
  id text primary key,
  shot_id text not null references storyboard_shots (id) on delete cascade,
  position integer not null check (position >= 1),
  constraint storyboard_frames_position_key unique (shot_id, position)
);

create table storyboard_frame_images (
  frame_id text not null references storyboard_frames (id) on delete cascade,
  version integer not null check (version >= 1),
  url text not null,
  prompt text,
  selected boolean not null default false,
  created_at timestamptz not null default now(),
  primary key (frame_id, version)
);
create unique index storyboard_frame_images_one_selected on storyboard_frame_images (frame_id) where selected;

create table storyboard_shot_videos (
  shot_id text not null references storyboard_shots (id) on delete cascade,
  version integer not null check (version >= 1),
  url text not null,
  duration_seconds double precision check (duration_seconds > 0),
  prompt text,
  selected boolean not null default false,
  created_at timestamptz not null default now(),
  primary key (shot_id, version)
);
create unique index storyboard_shot_videos_one_selected on storyboard_shot_videos (shot_id) where selected;

-- Outfits, locations and custom elements share one shape; names identify them within a project.
create table storyboard_assets (
  id text primary key,
  project_id text not null references storyboard_projects (id) on delete cascade,
  kind text not null check (kind in ('outfit', 'location', 'element')),
  position integer not null check (position >= 1),
  name text not null,
  description text,
  image_urls jsonb not null default '[]' check (jsonb_typeof(image_urls) = 'array'),
  constraint storyboard_assets_position_key unique (project_id, kind, position),
  constraint storyboard_assets_name_key unique (project_id, kind, name)
);
