-- Sign-in sessions of the web console (/console). The cookie holds a random token; only its
-- SHA-256 is stored. A team's session keeps the API key it signed in with, sealed (AES-256-GCM
-- under SECRETS_KEY, as webhook secrets are): the console calls the API in-process with it, so it
-- sees and may do exactly what that key may, and revoking the key ends the session. An
-- operator's session (signed in with the admin token) keeps no secret.
create table console_sessions (
  token_hash text primary key,
  kind text not null check (kind in ('team', 'operator')),
  team_id text references teams (id),
  key_id text references api_keys (id) on delete cascade,
  sealed_key text,
  csrf_token text not null,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null,
  check ((kind = 'team') = (team_id is not null and key_id is not null and sealed_key is not null))
);
create index console_sessions_expires_idx on console_sessions (expires_at);
