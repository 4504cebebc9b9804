-- Trained characters and voices.

create table influencers (
  id text primary key,
  team_id text not null references teams (id),
  workspace_id text references workspaces (id),
  name text not null,
  age integer not null check (age >= 18),
  image_urls jsonb not null,
  face_image text not null,
  best_full_image text not null,
  analysis jsonb not null default '{}',
  training_status text not null default 'training' check (training_status in ('training', 'completed', 'failed')),
  generation_id text references generations (id),
  created_at timestamptz not null default now(),
  unique (team_id, name)
);
create index influencers_team_idx on influencers (team_id, created_at desc);

create table voices (
  id text primary key,
  team_id text not null references teams (id),
  workspace_id text references workspaces (id),
  name text not null,
  description text,
  type text not null check (type in ('cloned', 'designed')),
  audio_url text not null,
  custom_voice_id text not null,
  influencer_id text references influencers (id),
  profile jsonb not null,
  generation_id text references generations (id),
  created_at timestamptz not null default now()
);
create index voices_team_idx on voices (team_id, created_at desc);
create index voices_influencer_idx on voices (influencer_id, created_at desc);
