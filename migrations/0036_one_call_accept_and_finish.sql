-- Accepting a generation and finishing an item, each in one call to the database. Both take the
-- team's row lock (a charge, a claim and a finish all move the team's counts or balance); done as
-- one function call, the lock is held for the call alone, not across the round trips between a
-- client's statements, so the requests of one busy team no longer queue behind each other's
-- network waits. The service calls them alone when nothing else is to be written (autocommit),
-- or inside its own transaction with what is (an Idempotency-Key's record, an operation's hooks,
-- a webhook).

-- A balance change and its ledger row (the only way credits move). The row lock of the update
-- serialises one team's changes, and `>= 0` is checked under it: no row back when the balance
-- would go below zero (or the team does not exist).
create function apply_credit_change(
  p_id text, p_team_id text, p_amount bigint, p_kind text, p_reason text, p_generation_id text
) returns setof credit_ledger language sql as $$
  with updated as (
    update teams set credits = credits + p_amount
    where id = p_team_id and credits + p_amount >= 0
    returning credits
  )
  insert into credit_ledger (id, team_id, amount, balance_after, kind, reason, generation_id)
  select p_id, p_team_id, p_amount, updated.credits, p_kind, p_reason, p_generation_id from updated
  returning *
$$;

-- The waiting items of a team that now have room (the oldest, as many as its cap allows beside its
-- running items), marked woken and started: a job queued for each (p_task, p_max_attempts), or,
-- for an item a synchronous request runs itself, that request told (NOTIFY p_channel at commit).
-- Items woken before and not yet started keep their place and are not woken twice.
create function start_waiting_items(
  p_team_id text, p_default_cap int, p_task text, p_max_attempts int, p_channel text
) returns void language plpgsql as $$
declare
  woken record;
begin
  for woken in
    with room as (
      select greatest(0, coalesce(t.max_concurrent_items, p_default_cap) - t.running_items) as n
      from teams t where t.id = p_team_id
    ), heads as (
      select w.item_id, w.woken_at from team_waits w
      where w.team_id = p_team_id
      order by w.generation_created_at, w.generation_id, w.position
      limit (select n from room)
    )
    update team_waits w set woken_at = now()
    from heads, generation_items i
    where w.item_id = heads.item_id and heads.woken_at is null and i.id = w.item_id
    returning w.item_id, i.in_request
  loop
    if woken.in_request then
      perform pg_notify(p_channel, woken.item_id);
    else
      perform graphile_worker.add_job(p_task, json_build_object('item_id', woken.item_id),
        max_attempts => p_max_attempts);
    end if;
  end loop;
end $$;

-- An item inserted as PROCESSING (claimed by the request that accepts it, see accept_generation)
-- counts as running from the start: the count of 0017 with that case added.
create or replace function count_team_items() returns trigger language plpgsql as $$
declare
  running_delta integer := 0;
  queued_delta integer := 0;
begin
  if tg_op = 'INSERT' then
    if new.status = 'QUEUED' then queued_delta := 1; end if;
    if new.status = 'PROCESSING' then running_delta := 1; end if;
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

-- Accepts a generation: charges its price (p->'charge': {id, reason}, when it costs something),
-- inserts it and its items, and then either queues one job per item (p->'jobs': {task,
-- max_attempts}; an item's `run_at` delays its job) or, for a synchronous request that runs its
-- items itself (p->'claim': {lease_ms, default_cap}), inserts them claimed (PROCESSING, under a
-- lease, the generation processing) when its team has room for all of them without counting
-- (its running and queued items and these under its cap), else QUEUED under a lease as well, for
-- the request to claim afterwards, counting. Answers {created_at, claimed: [item ids]}, or {short: balance} (null for
-- an unknown team) with nothing written when the balance cannot pay. Whoever asks whether the
-- generation was accepted waits for this call's transaction (the advisory lock of the
-- generation's id, as wasAccepted takes it).
create function accept_generation(p jsonb) returns jsonb language plpgsql as $$
declare
  v_gen jsonb := p->'generation';
  v_gen_id text := v_gen->>'id';
  v_team_id text := v_gen->>'team_id';
  v_charge bigint := (v_gen->>'credits_charged')::bigint;
  v_claim boolean := false;
  v_created_at timestamptz;
begin
  perform pg_advisory_xact_lock(hashtextextended('generation:' || v_gen_id, 0));
  if v_charge > 0 then
    perform 1 from apply_credit_change(p->'charge'->>'id', v_team_id, -v_charge, 'charge', p->'charge'->>'reason',
                                       v_gen_id);
    if not found then
      return jsonb_build_object('short', (select t.credits from teams t where t.id = v_team_id));
    end if;
  end if;
  if p->'claim' is not null then
    -- The team's row is locked here (by the charge, or now) until the end: claims are ordered by it.
    select t.running_items + t.queued_items + jsonb_array_length(p->'items')
             <= coalesce(t.max_concurrent_items, (p->'claim'->>'default_cap')::int)
      into v_claim from teams t where t.id = v_team_id for update;
    v_claim := coalesce(v_claim, false);
  end if;
  -- The items' foreign key to the generation is checked at the end of the statement, when both are in.
  with generation as (
    insert into generations
      (id, team_id, workspace_id, operation, model, input, credits_charged, total_items, estimated_seconds,
       webhook_url, expires_at, input_keys, parent_item_id, purpose, status)
    values (v_gen_id, v_team_id, v_gen->>'workspace_id', v_gen->>'operation', v_gen->>'model', v_gen->'input',
            v_charge, (v_gen->>'total_items')::int, (v_gen->>'estimated_seconds')::numeric, v_gen->>'webhook_url',
            case
              when v_gen->>'parent_item_id' is not null then
                (select pg.expires_at from generation_items pi join generations pg on pg.id = pi.generation_id
                 where pi.id = v_gen->>'parent_item_id')
              when (v_gen->>'retention_days')::int > 0 then
                now() + make_interval(days => (v_gen->>'retention_days')::int)
            end,
            array(select jsonb_array_elements_text(coalesce(v_gen->'input_keys', '[]'))),
            v_gen->>'parent_item_id', v_gen->>'purpose',
            case when v_claim then 'processing' else 'queued' end)
    returning created_at
  ), items as (
    insert into generation_items
      (id, generation_id, position, type, model, input, price, storage_token, accepted_routes, in_request,
       traceparent, status, attempts, started_at, lease_expires_at)
    select x.id, v_gen_id, x.position, x.type, x.model, x.input, x.price, x.storage_token, x.accepted_routes,
           p->'claim' is not null, v_gen->>'traceparent',
           case when v_claim then 'PROCESSING' else 'QUEUED' end,
           case when v_claim then 1 else 0 end,
           case when v_claim then now() end,
           -- Unclaimed, the request claims it right after (counting): the lease keeps the recovery
           -- sweep from taking it for an item whose request has gone meanwhile.
           case when p->'claim' is not null
             then now() + make_interval(secs => (p->'claim'->>'lease_ms')::float8 / 1000) end
    from jsonb_to_recordset(p->'items')
      as x(id text, position int, type text, model text, input jsonb, price bigint, storage_token text,
           accepted_routes jsonb)
  )
  select created_at into v_created_at from generation;

  if p->'claim' is null then
    perform graphile_worker.add_job(p->'jobs'->>'task', json_build_object('item_id', x.id),
              max_attempts => (p->'jobs'->>'max_attempts')::int, run_at => x.run_at)
    from jsonb_to_recordset(p->'items') as x(id text, position int, run_at timestamptz)
    order by x.position;
  end if;
  return jsonb_build_object('created_at', v_created_at, 'claimed',
    case when v_claim then (select jsonb_agg(x->'id') from jsonb_array_elements(p->'items') as x) else '[]' end);
end $$;

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
create function finish_item(p jsonb) returns jsonb language plpgsql as $$
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
        error_kind = v_attempt->>'error_kind', cost = (v_attempt->>'cost')::numeric
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
