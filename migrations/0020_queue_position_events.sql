-- Live status for work waiting behind its team's cap: a waiting item's queue_position is counted from
-- team_waits, so it changes when an item ahead starts or finishes, without any write to its own
-- rows. A wait that begins notifies its generation; a wait that ends notifies the generations
-- waiting behind it (the nearest 1000: their places moved up), so their streams send the new place.
create function notify_team_wait_change() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform pg_notify('generation_events', new.generation_id);
    return null;
  end if;
  perform pg_notify('generation_events', behind.generation_id)
  from (select w.generation_id from team_waits w
        where w.team_id = old.team_id
          and (w.generation_created_at, w.generation_id, w.position)
              > (old.generation_created_at, old.generation_id, old.position)
        order by w.generation_created_at, w.generation_id, w.position
        limit 1000) behind;
  return null;
end $$;

create trigger team_waits_notify after insert or delete on team_waits
  for each row execute function notify_team_wait_change();
