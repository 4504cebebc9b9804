-- Per-team concurrency: a team runs at most its cap of items at once (teams.max_concurrent_items,
-- or TEAM_MAX_CONCURRENT_ITEMS when null). teams.running_items counts its PROCESSING items and
-- teams.queued_items its QUEUED ones, kept by triggers in the transaction that writes or moves an
-- item: while running + queued fit under the cap, a claim needs no other look. An item that finds
-- no room waits in team_waits and is started when room frees, oldest first (the order the team's
-- history shows: its generation's created_at and id, then its position).
alter table teams add column max_concurrent_items integer check (max_concurrent_items > 0);
alter table teams add column running_items integer not null default 0;
alter table teams add column queued_items integer not null default 0;

update teams t set
  running_items = (
    select count(*) from generation_items i join generations g on g.id = i.generation_id
    where g.team_id = t.id and i.status = 'PROCESSING'),
  queued_items = (
    select count(*) from generation_items i join generations g on g.id = i.generation_id
    where g.team_id = t.id and i.status = 'QUEUED');

create table team_waits (
  item_id text primary key references generation_items (id) on delete cascade,
  team_id text not null references teams (id),
  generation_created_at timestamptz not null,
  generation_id text not null,
  position integer not null,
  woken_at timestamptz
);
create index team_waits_order_idx on team_waits (team_id, generation_created_at, generation_id, position);

create function count_team_items() returns trigger language plpgsql as $$
declare
  running_delta integer := 0;
  queued_delta integer := 0;
begin
  if tg_op = 'INSERT' then
    if new.status = 'QUEUED' then queued_delta := 1; end if;
  else
    if new.status = 'PROCESSING' and old.status <> 'PROCESSING' then running_delta := 1; end if;
    if old.status = 'PROCESSING' and new.status <> 'PROCESSING' then running_delta := -1; end if;
    if new.status = 'QUEUED' and old.status <> 'QUEUED' then queued_delta := 1; end if;
    if old.status = 'QUEUED' and new.status <> 'QUEUED' then queued_delta := -1; end if;
    -- A finished item waits for nothing any more.
    if new.status in ('COMPLETED', 'FAILED') then
      delete from team_waits where item_id = new.id;
    end if;
  end if;
  if running_delta <> 0 or queued_delta <> 0 then
    update teams t set running_items = greatest(0, t.running_items + running_delta),
                       queued_items = greatest(0, t.queued_items + queued_delta)
    from generations g where g.id = new.generation_id and t.id = g.team_id;
  end if;
  return null;
end $$;

create trigger generation_items_count_insert after insert on generation_items
  for each row execute function count_team_items();
create trigger generation_items_count_update after update of status on generation_items
  for each row when (old.status is distinct from new.status)
  execute function count_team_items();

-- When an item first started: its deadline counts from then (the time it waited for room is the
-- team's, not the item's).
alter table generation_items add column started_at timestamptz;
