-- Several calls of accept_generation or finish_item in one statement, and so in one transaction:
-- what a process sends when these calls come faster than the database answers them (see
-- src/db/batched-calls.ts). Each call runs in its own savepoint, so that one that fails is undone
-- alone and the others still count; the answer is an array with, in order, `{"ok": <its answer>}`
-- or `{"error": {"code": <SQLSTATE>, "message": ...}}` per call. A statement that is cancelled
-- (statement_timeout) ends the whole transaction: then none of them counts, as for one call.
create or replace function call_each(p_function text, p jsonb) returns jsonb language plpgsql as $$
declare
  v_call jsonb;
  v_answer jsonb;
  v_answers jsonb := '[]';
begin
  if p_function not in ('accept_generation', 'finish_item') then
    raise exception 'call_each does not call %', p_function using errcode = '22023';
  end if;
  for v_call in select value from jsonb_array_elements(p) loop
    begin
      execute format('select %I($1)', p_function) into v_answer using v_call;
      v_answers := v_answers || jsonb_build_array(jsonb_build_object('ok', v_answer));
    exception when others then
      v_answers := v_answers || jsonb_build_array(
        jsonb_build_object('error', jsonb_build_object('code', sqlstate, 'message', sqlerrm)));
    end;
  end loop;
  return v_answers;
end $$;
