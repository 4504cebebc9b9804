-- accept_generation locks its team's row (FOR UPDATE) first, right after the generation's own
-- lock, as finish_item does. Before, a charged accept first changed the row (a lock that lets other
-- transactions take a key-share lock on it: the check of a foreign key to the team, as a free
-- accept's insert of its generation makes) and only then, for a claim or a settle later in the
-- same transaction (a batch, migration 0044), asked for FOR UPDATE, which waits for such a
-- key-share lock. A free accept of the same team holding one and then changing the team's row
-- itself (its queued item counted) waited in turn: a deadlock, one of the two aborted after
-- deadlock_timeout. Locked first, the key-share lock waits for the whole transaction instead. The
-- generation's own lock stays first (a transaction that asks whether an in-doubt accept committed
-- takes it and nothing else). The rest is 0039's function unchanged.
create or replace function accept_generation(p jsonb) returns jsonb language plpgsql as $$
declare
  v_gen jsonb := p->'generation';
  v_gen_id text := v_gen->>'id';
  v_team_id text := v_gen->>'team_id';
  v_charge bigint := (v_gen->>'credits_charged')::bigint;
  v_claim boolean := false;
  -- Run by the synchronous request that accepts it (else by this process's worker, or a job).
  v_in_request boolean := p->'claim' is not null and coalesce((p->'claim'->>'in_request')::boolean, true);
  v_created_at timestamptz;
  v_attempts jsonb := '{}';
begin
  perform pg_advisory_xact_lock(hashtextextended('generation:' || v_gen_id, 0));
  -- The team's row, locked before anything else of the team is touched (as finish_item does).
  perform 1 from teams t where t.id = v_team_id for update;
  if v_charge > 0 then
    perform 1 from apply_credit_change(p->'charge'->>'id', v_team_id, -v_charge, 'charge', p->'charge'->>'reason',
                                       v_gen_id);
    if not found then
      return jsonb_build_object('short', (select t.credits from teams t where t.id = v_team_id));
    end if;
  end if;
  if p->'claim' is not null then
    -- The team's row is locked (since the start) until the end: claims are ordered by it.
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
       traceparent, status, attempts, started_at, lease_expires_at,
       provider, vendor_endpoint, vendor_state, simulated, credential_id)
    select x.id, v_gen_id, x.position, x.type, x.model, x.input, x.price, x.storage_token, x.accepted_routes,
           v_in_request, v_gen->>'traceparent',
           case when v_claim then 'PROCESSING' else 'QUEUED' end,
           case when v_claim then 1 else 0 end,
           case when v_claim then now() end,
           -- Unclaimed, the request claims it right after (counting): the lease keeps the recovery
           -- sweep from taking it for an item whose request has gone meanwhile.
           case when v_claim or v_in_request
             then now() + make_interval(secs => (p->'claim'->>'lease_ms')::float8 / 1000) end,
           -- Claimed with its route chosen: on its way to the route, as markSubmitting records it.
           case when v_claim then x.submit->>'provider' end,
           case when v_claim then x.submit->>'endpoint' end,
           case when v_claim and x.submit is not null then 'submitting' end,
           v_claim and coalesce((x.submit->>'simulated')::boolean, false),
           case when v_claim then x.submit->>'credential_id' end
    from jsonb_to_recordset(p->'items')
      as x(id text, position int, type text, model text, input jsonb, price bigint, storage_token text,
           accepted_routes jsonb, submit jsonb)
  )
  select created_at into v_created_at from generation;

  -- The attempts of the items claimed with their route (their ids key the submits).
  if v_claim then
    with opened as (
      insert into item_attempts (item_id, generation_id, provider, endpoint, credential_id, started_at)
      select x.id, v_gen_id, x.submit->>'provider', x.submit->>'endpoint', x.submit->>'credential_id',
             clock_timestamp()
      from jsonb_to_recordset(p->'items') as x(id text, submit jsonb)
      where x.submit is not null
      returning item_id, id
    )
    select coalesce(jsonb_object_agg(item_id, id::text), '{}') into v_attempts from opened;
  end if;
  if not v_claim and not v_in_request then
    perform graphile_worker.add_job(p->'jobs'->>'task', json_build_object('item_id', x.id),
              max_attempts => (p->'jobs'->>'max_attempts')::int, run_at => x.run_at)
    from jsonb_to_recordset(p->'items') as x(id text, position int, run_at timestamptz)
    order by x.position;
  end if;
  return jsonb_build_object('created_at', v_created_at, 'claimed',
    case when v_claim then (select jsonb_agg(x->'id') from jsonb_array_elements(p->'items') as x) else '[]' end,
    'attempts', v_attempts);
end $$;
