import { createHash } from 'node:crypto';
import type { Deps } from '../../app-types.ts';
import { ENDPOINT_PRICED, VOICE_CLONE_PRICE, VOICE_DESIGN_PRICE } from '../../catalog/endpoint-prices.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import { PRESET_VOICES, type SpokenVoice, type VoiceProfile } from '../../catalog/voices.ts';
import type { PlanDeps } from '../../engine/inputs.ts';
import { probeUserMedia } from '../../engine/media-probe.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { invalidField, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { requireInfluencer } from '../influencers/service.ts';
import type { VoiceInput } from './inputs.ts';
import { selectVoice, spokenVoice } from './sql.ts';

/** The voice behind a voice id: a preset, or a voice of the team (404 otherwise). */
export async function resolveVoice(deps: Pick<Deps, 'pool'>, teamId: string, voiceId: string): Promise<SpokenVoice> {
  const preset = PRESET_VOICES.find((p) => p.id === voiceId);
  if (preset) return { id: preset.id, profile: preset.profile, vendor: null };
  const voice = await selectVoice(deps.pool, voiceId);
  if (!voice || voice.team_id !== teamId) throw notFound('Voice', voiceId);
  return spokenVoice(voice);
}

/** The voice profile behind a voice id: a preset, or a voice of the team (404 otherwise). */
export async function resolveVoiceProfile(
  deps: Pick<Deps, 'pool'>,
  teamId: string,
  voiceId: string,
): Promise<VoiceProfile> {
  return (await resolveVoice(deps, teamId, voiceId)).profile;
}

/** Credits of a voice: cloning analyses a sample, designing builds one from a description. */
export const VOICE_CREDITS = {
  clone: VOICE_CLONE_PRICE.credits_per_voice,
  design: VOICE_DESIGN_PRICE.credits_per_voice,
} as const;
export const MAX_SAMPLE_SECONDS = 300;

export interface VoiceRequest {
  method: 'clone' | 'design';
  audio_url?: string;
  prompt?: string;
  description?: string;
  name?: string;
  influencer_id?: string;
}

/** One plan for v1 (method in the body) and the v2 clone and design endpoints. */
/** A voice's price now, by method (the operator's, else the catalog's). */
export function voicePrice(live: Deps['live'], method: 'clone' | 'design') {
  const { kind, model } = method === 'clone' ? ENDPOINT_PRICED.voiceClone : ENDPOINT_PRICED.voiceDesign;
  return live.priceOr(kind, model, method === 'clone' ? VOICE_CLONE_PRICE : VOICE_DESIGN_PRICE);
}

export async function planVoice(deps: PlanDeps, body: VoiceRequest, teamId: string): Promise<GenerationPlan> {
  if (body.method === 'clone' && !body.audio_url) throw invalidField('audio_url', "is required when method is 'clone'");
  if (body.method === 'design' && !body.prompt) throw invalidField('prompt', "is required when method is 'design'");
  if (body.method === 'clone' && body.prompt) throw invalidField('prompt', "is for method 'design'");
  if (body.method === 'design' && body.audio_url) throw invalidField('audio_url', "is for method 'clone'");
  const influencer = body.influencer_id ? await requireInfluencer(deps.pool, teamId, body.influencer_id) : undefined;
  if (body.audio_url) {
    const sample = await probeUserMedia(deps, 'audio_url', body.audio_url, 'audio');
    if (sample.durationSeconds > MAX_SAMPLE_SECONDS) {
      throw invalidField(
        'audio_url',
        `is ${Math.round(sample.durationSeconds)} s; samples may be at most ${MAX_SAMPLE_SECONDS} s`,
      );
    }
  }
  const voiceId = newId('voice');
  const type = body.method === 'clone' ? 'cloned' : 'designed';
  const name =
    body.name ??
    (body.method === 'design'
      ? (body.prompt ?? '').split(/\s+/).slice(0, 4).join(' ').slice(0, 60)
      : `${influencer?.name ?? 'Cloned'} voice`);
  return {
    operation: OperationName.voiceCreate,
    model: (body.method === 'clone' ? ENDPOINT_PRICED.voiceClone : ENDPOINT_PRICED.voiceDesign).model,
    input: {
      voice_id: voiceId,
      custom_voice_id: `sim_${createHash('sha256').update(voiceId).digest('hex').slice(0, 20)}`,
      method: body.method,
      type,
      name,
      description: body.method === 'design' ? (body.prompt ?? null) : (body.description ?? null),
      audio_url: body.audio_url ?? null,
      influencer_id: influencer?.id ?? null,
    } satisfies VoiceInput,
    items: [{ type: 'audio', price: voicePrice(deps.live, body.method).credits_per_voice }],
    estimatedSeconds: 5,
    urls: body.audio_url ? [{ field: 'audio_url', url: body.audio_url }] : [],
  };
}
