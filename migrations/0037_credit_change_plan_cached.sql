-- apply_credit_change as PL/pgSQL: a SQL function's statements are planned again on every call,
-- a PL/pgSQL function's once per connection. Same arguments, same answer, same rule: the row
-- lock of the update serialises one team's changes, and `>= 0` is checked under it (no row back
-- when the balance would go below zero, or the team does not exist).
create or replace function apply_credit_change(
  p_id text, p_team_id text, p_amount bigint, p_kind text, p_reason text, p_generation_id text
) returns setof credit_ledger language plpgsql as $$
declare
  v_credits bigint;
begin
  update teams set credits = credits + p_amount
  where id = p_team_id and credits + p_amount >= 0
  returning credits into v_credits;
  if not found then
    return;
  end if;
  return query
    insert into credit_ledger (id, team_id, amount, balance_after, kind, reason, generation_id)
    values (p_id, p_team_id, p_amount, v_credits, p_kind, p_reason, p_generation_id)
    returning *;
end $$;
