-- Webhook signing secrets are stored sealed (AES-256-GCM, see src/lib/secret-box.ts). Sealing a
-- secret stored before that is not a rotation: the writer says so for its transaction
-- (genmedia.resealing), and the secret keeps its date.
create or replace function teams_webhook_secret_rotated() returns trigger language plpgsql as $$
begin
  if coalesce(current_setting('genmedia.resealing', true), '') <> 'on' then
    new.webhook_secret_created_at := now();
  end if;
  return new;
end;
$$;
