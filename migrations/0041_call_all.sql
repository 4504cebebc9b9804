-- Several calls of accept_generation or finish_item in one statement, and so in one transaction,
-- as call_each (0040) makes them, but without a savepoint per call. A savepoint is a
-- subtransaction with its own transaction id: when the calls of one batch each lock or update
-- their team's row, PostgreSQL records every one of those ids on the row (a multixact that grows
-- with the batch, read again at each change of the row), and that cost about a quarter of the
-- database's time per request under load. Here the calls share one subtransaction: when one of
-- them raises, everything the statement did is undone and the answer says which call failed and
-- why, `{"failed": <its index>, "error": {"code": <SQLSTATE>, "message": ...}}`; the caller fails
-- that call and sends the others again (src/db/batched-calls.ts). Else the answer is the array of
-- the calls' answers, in order. A statement that is cancelled (statement_timeout) ends the whole
-- transaction: then none of them counts, as for one call.
--
-- call_each stays for processes of the previous release while they roll.
create or replace function call_all(p_function text, p jsonb) returns jsonb language plpgsql as $$
declare
  v_call jsonb;
  v_answer jsonb;
  v_answers jsonb := '[]';
  v_at int := 0;
begin
  if p_function not in ('accept_generation', 'finish_item') then
    raise exception 'call_all does not call %', p_function using errcode = '22023';
  end if;
  begin
    for v_call in select value from jsonb_array_elements(p) loop
      execute format('select %I($1)', p_function) into v_answer using v_call;
      v_answers := v_answers || jsonb_build_array(v_answer);
      v_at := v_at + 1;
    end loop;
  exception when others then
    return jsonb_build_object('failed', v_at, 'error', jsonb_build_object('code', sqlstate, 'message', sqlerrm));
  end;
  return v_answers;
end $$;
