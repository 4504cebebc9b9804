-- When a completed attempt's route answered with its result (the output in hand), before its file
-- was copied into our storage and the item settled: item_attempts.answered_at, recorded by
-- finish_item with the attempt's end (p->'attempt'->>'answered_at', the worker's clock). From
-- started_at to answered_at is the route's time; from answered_at to finished_at the copy and the
-- settle. Null for attempts that failed and for those recorded before this migration. The rest is
-- 0036's finish_item unchanged.
alter table item_attempts add column answered_at timestamptz;

-- Records an item's outcome once, with what follows from it: under the team's row lock (taken
-- first, as a claim takes it), the route's success (p->'route_served': {provider, endpoint}), the
-- item completed (with its URL, result, file size and its open vendor attempt's end) or failed
-- (once; `refund` false keeps the charge, `spare_storing` leaves an item whose result file is
-- being stored, `lease_lapsed` fails it only while no process holds its lease), the refund (the
-- unused part of a completed item's charge, `actual_credits`, or a failed item's price) with its
-- ledger row (`ledger_id`), the generation's counts and final status, and the team's waiting
-- items started (p->'wake': {default_cap, task, max_attempts, channel}). Answers {recorded: false}
-- when the item had finished already (nothing changes but the attempt's end and the file's size),
-- else {recorded: true, refund, status, finished, webhook_url}.
create or replace function finish_item(p jsonb) returns jsonb language plpgsql as $$
declare
  v_item_id text := p->>'item_id';
  v_team_id text := p->>'team_id';
  v_ok boolean := (p->>'ok')::boolean;
  v_attempt jsonb := p->'attempt';
  v_actual numeric := (p->>'actual_credits')::numeric;
  v_price bigint;
  v_gen_id text;
  v_refund bigint := 0;
  v_counted record;
begin
  perform 1 from teams t where t.id = v_team_id for update;
  if p->'route_served' is not null then
    update route_health h set consecutive_failures = 0, updated_at = now()
    where h.provider = p->'route_served'->>'provider' and h.endpoint = p->'route_served'->>'endpoint'
      and h.consecutive_failures > 0;
  end if;
  if v_ok then
    -- The attempt ends and the file is counted whether or not the item was still to complete.
    if v_attempt is not null then
      update item_attempts a set finished_at = now(), outcome = v_attempt->>'outcome', error = v_attempt->>'error',
        error_kind = v_attempt->>'error_kind', cost = (v_attempt->>'cost')::numeric,
        answered_at = (v_attempt->>'answered_at')::timestamptz
      where a.item_id = v_item_id and a.finished_at is null;
    end if;
    update generation_items i set status = 'COMPLETED', url = p->>'url', result = p->'result', error = null,
      progress = 1, queue_position = null, result_bytes = coalesce((p->>'bytes')::bigint, i.result_bytes),
      updated_at = now()
    where i.id = v_item_id and i.status = 'PROCESSING'
    returning i.price, i.generation_id into v_price, v_gen_id;
    if not found then
      if p->>'bytes' is not null then
        update generation_items i set result_bytes = (p->>'bytes')::bigint where i.id = v_item_id;
      end if;
      return jsonb_build_object('recorded', false);
    end if;
    if v_actual is not null and v_actual < v_price then
      v_refund := v_price - greatest(0, ceil(v_actual))::bigint;
    end if;
  else
    update generation_items i set status = 'FAILED', error = p->>'error', error_kind = p->>'error_kind',
      refunded = (p->>'refund')::boolean, progress = null, queue_position = null, updated_at = now()
    where i.id = v_item_id and i.status in ('QUEUED', 'PROCESSING')
      and not ((p->>'spare_storing')::boolean and i.storing_result_at is not null)
      and not ((p->>'lease_lapsed')::boolean and coalesce(i.lease_expires_at >= now(), false))
    returning i.price, i.generation_id into v_price, v_gen_id;
    if not found then
      return jsonb_build_object('recorded', false);
    end if;
    if (p->>'refund')::boolean then v_refund := v_price; end if;
  end if;
  if v_refund > 0 then
    perform 1 from apply_credit_change(p->>'ledger_id', v_team_id, v_refund, 'refund',
      case when v_ok then 'Unused part of the charge for item ' else 'Refund of failed item ' end || v_item_id,
      v_gen_id);
  end if;
  update generations g set
    completed_items = g.completed_items + case when v_ok then 1 else 0 end,
    failed_items = g.failed_items + case when v_ok then 0 else 1 end,
    credits_refunded = g.credits_refunded + v_refund,
    status = case
      when g.completed_items + g.failed_items + 1 < g.total_items then 'processing'
      when g.completed_items + case when v_ok then 1 else 0 end > 0 then 'completed'
      else 'failed' end,
    completed_at = case when g.completed_items + g.failed_items + 1 >= g.total_items then now() end,
    updated_at = now()
  where g.id = v_gen_id
  returning g.status, g.webhook_url, g.completed_at is not null as finished into v_counted;
  -- Room for the team's next waiting items (its cap counts running items).
  perform start_waiting_items(v_team_id, (p->'wake'->>'default_cap')::int, p->'wake'->>'task',
    (p->'wake'->>'max_attempts')::int, p->'wake'->>'channel');
  return jsonb_build_object('recorded', true, 'refund', v_refund, 'status', v_counted.status,
    'finished', v_counted.finished, 'webhook_url', v_counted.webhook_url);
end $$;
