-- A batch of calls of both accept_generation and finish_item in one statement, and so in one
-- transaction: what a process sends when these calls come faster than the database answers them
-- (src/db/batched-calls.ts). call_all (0041) carried calls of one function, so a process kept a
-- batch of accepts and one of settles under way at once, and the two took their team's row from
-- each other and committed one after the other; one batch of both commits once and takes the row
-- once (about +25% requests per second for one team's load on the door's floor, bench/door-floor.ts).
--
-- `p` is an array of `{"function": <name>, "payload": <its jsonb>}`, called in order, each function
-- called directly (no dynamic statement to plan per call). As call_all: the calls share one
-- subtransaction; when one raises, everything the statement did is undone and the answer is
-- `{"failed": <its index>, "error": {"code": <SQLSTATE>, "message": ...}}`, else the array of the
-- calls' answers in order. A statement that is cancelled ends the whole transaction.
--
-- call_all and call_each stay for processes of the previous release while they roll.
create function call_batch(p jsonb) returns jsonb language plpgsql as $$
declare
  v_call jsonb;
  v_answer jsonb;
  v_answers jsonb := '[]';
  v_at int := 0;
begin
  begin
    for v_call in select value from jsonb_array_elements(p) loop
      case v_call->>'function'
        when 'accept_generation' then v_answer := accept_generation(v_call->'payload');
        when 'finish_item' then v_answer := finish_item(v_call->'payload');
        else raise exception 'call_batch does not call %', v_call->>'function' using errcode = '22023';
      end case;
      v_answers := v_answers || jsonb_build_array(v_answer);
      v_at := v_at + 1;
    end loop;
  exception when others then
    return jsonb_build_object('failed', v_at, 'error', jsonb_build_object('code', sqlstate, 'message', sqlerrm));
  end;
  return v_answers;
end $$;
