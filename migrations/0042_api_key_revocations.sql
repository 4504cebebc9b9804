-- Every process that authenticates API keys trusts a verified key for a while without asking the
-- database again (AUTH_KEY_TRUST_MS) only while it listens on `api_key_revocations`: a key revoked
-- (revoked_at set) or deleted (with its team) is announced here in the transaction that does it,
-- by whatever did it (the admin API, the console, SQL), and every listening process forgets its
-- verified keys when it hears it.
create or replace function api_keys_announce_revocation() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or old.revoked_at is distinct from new.revoked_at then
    perform pg_notify('api_key_revocations', old.id);
  end if;
  return null;
end
$$;

create trigger api_keys_announce_revocation
  after update of revoked_at or delete on api_keys
  for each row execute function api_keys_announce_revocation();
