-- A voice made at a speech vendor (ElevenLabs) is spoken there: `provider` names the vendor whose
-- voice `custom_voice_id` is. Null: the service's own voice, spoken from its profile.
alter table voices add column provider text;
