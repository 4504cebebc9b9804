import type { Deps } from '../../app-types.ts';
import { PRESET_VOICES } from '../../catalog/voices.ts';
import { notFound } from '../../lib/errors.ts';
import { selectVoice } from './sql.ts';

/** The voice profile behind a voice id: a preset, or a voice of the team (404 otherwise). */
export async function resolveVoiceProfile(
  deps: Pick<Deps, 'pool'>,
  teamId: string,
  voiceId: string,
): Promise<Record<string, unknown>> {
  const preset = PRESET_VOICES.find((p) => p.id === voiceId);
  if (preset) return preset.profile as unknown as Record<string, unknown>;
  const voice = await selectVoice(deps.pool, voiceId);
  if (!voice || voice.team_id !== teamId) throw notFound('Voice', voiceId);
  return voice.profile;
}
