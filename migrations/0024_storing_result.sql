-- An item whose result file is being written under its storage key (the URL an endpoint may have
-- handed out when the generation was accepted, such as a 3D model's model_url): set, and
-- committed, just before the file is written. From then a team's cancel leaves the item to
-- complete: a file the client can fetch is never refunded.
alter table generation_items add column storing_result_at timestamptz;
