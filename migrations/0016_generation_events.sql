-- Live status (GET /api/v1/generations/{id}/events): a change that shows in a generation's status
-- record notifies the channel `generation_events` with the generation's id, delivered at commit
-- to every API process that listens. Changes nobody sees (leases, attempts) notify nothing;
-- several changes of one generation in one transaction notify once (PostgreSQL folds them).
create function notify_generation_item_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('generation_events', new.generation_id);
  return null;
end $$;

create trigger generation_items_notify after update on generation_items
  for each row
  when (old.status is distinct from new.status
        or old.progress is distinct from new.progress
        or old.queue_position is distinct from new.queue_position
        or old.url is distinct from new.url)
  execute function notify_generation_item_change();

create function notify_generation_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('generation_events', new.id);
  return null;
end $$;

create trigger generations_notify after update on generations
  for each row
  when (old.status is distinct from new.status
        or old.completed_items is distinct from new.completed_items
        or old.failed_items is distinct from new.failed_items
        or old.credits_refunded is distinct from new.credits_refunded)
  execute function notify_generation_change();
