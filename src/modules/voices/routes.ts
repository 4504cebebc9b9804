import { createHash } from 'node:crypto';
import { type Static, Type } from 'typebox';
import type { App, Deps } from '../../app-types.ts';
import { defineGenerationEndpoint } from '../../engine/define.ts';
import { probeUserMedia } from '../../engine/media-probe.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { invalidField, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { requireInfluencer } from '../influencers/service.ts';
import {
  VoiceCloneBody,
  VoiceCreated,
  VoiceDesignBody,
  VoiceDetail,
  VoiceGenerateBody,
  VoiceListed,
} from './schemas.ts';
import { selectVoice, selectVoicesOfTeam, type VoiceRow } from './sql.ts';

/** Credits of a voice: cloning analyses a sample, designing builds one from a description. */
export const VOICE_CREDITS = { clone: 100, design: 50 } as const;
const MAX_SAMPLE_SECONDS = 300;

const tags = ['Voices'];

function listed(row: VoiceRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    audio_url: row.audio_url,
    influencer_id: row.influencer_id,
    influencer_name: row.influencer_name,
    created_at: row.created_at.toISOString(),
  };
}

interface VoiceRequest {
  method: 'clone' | 'design';
  audio_url?: string;
  prompt?: string;
  description?: string;
  name?: string;
  influencer_id?: string;
}

/** One plan for v1 (method in the body) and the v2 clone and design endpoints. */
async function planVoice(deps: Deps, body: VoiceRequest, teamId: string): Promise<GenerationPlan> {
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
    operation: 'voice.create',
    model: body.method === 'clone' ? 'voice-clone-v1' : 'voice-design-v1',
    input: {
      voice_id: voiceId,
      custom_voice_id: `sim_${createHash('sha256').update(voiceId).digest('hex').slice(0, 20)}`,
      method: body.method,
      type,
      name,
      description: body.method === 'design' ? (body.prompt ?? null) : (body.description ?? null),
      audio_url: body.audio_url ?? null,
      influencer_id: influencer?.id ?? null,
    },
    items: [{ type: 'audio', price: VOICE_CREDITS[body.method] }],
    estimatedSeconds: 5,
    urls: body.audio_url ? [{ field: 'audio_url', url: body.audio_url }] : [],
  };
}

const respond = (
  created: { id: string; creditsCharged: number },
  plan: GenerationPlan,
  result?: { items: Array<{ url: string | null }> },
) => ({
  voice_id: String(plan.input.voice_id),
  name: String(plan.input.name),
  type: plan.input.type as 'cloned' | 'designed',
  audio_url: result?.items[0]?.url ?? '',
  influencer_id: (plan.input.influencer_id as string | null) ?? null,
  status: 'completed',
  credits_used: created.creditsCharged,
});

const description =
  `Synchronous. Cloning (${VOICE_CREDITS.clone} credits) fetches and decodes the sample (at most ${MAX_SAMPLE_SECONDS} s) ` +
  `and measures its pitch and pace; designing (${VOICE_CREDITS.design} credits) builds the voice from the description ` +
  '(words like deep, high, fast, slow, calm, energetic, female, male, whisper shape it). audio_url is a spoken preview ' +
  'in the new voice. The voice id works with POST /api/v2/text-to-speech.';

export default async function voiceRoutes(app: App): Promise<void> {
  app.get(
    '/api/v1/voices',
    {
      schema: {
        tags,
        summary: "List the team's voices",
        querystring: Type.Object({ influencer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }),
        response: { 200: Type.Array(VoiceListed), ...errorResponses(400, 401) },
      },
    },
    async (request) =>
      (await selectVoicesOfTeam(app.deps.pool, request.principal.teamId, request.query.influencer_id)).map(listed),
  );

  app.get(
    '/api/v1/voices/:id',
    {
      schema: {
        tags,
        summary: 'Read one voice, with its custom_voice_id',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: VoiceDetail, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const row = await selectVoice(app.deps.pool, request.params.id);
      if (!row || row.team_id !== request.principal.teamId) throw notFound('Voice', request.params.id);
      return { ...listed(row), custom_voice_id: row.custom_voice_id };
    },
  );

  defineGenerationEndpoint(app, {
    url: '/api/v1/voices/generate',
    tags,
    summary: 'Create a voice by cloning a sample or designing it from a description',
    description,
    body: VoiceGenerateBody,
    response: VoiceCreated,
    errors: [403, 404],
    sync: true,
    plan: (deps, body: Static<typeof VoiceGenerateBody>, teamId) => planVoice(deps, body, teamId),
    respond: (created, plan, _body, result) => respond(created, plan, result),
  });

  defineGenerationEndpoint(app, {
    url: '/api/v2/voice-clone',
    tags: ['Speech'],
    summary: 'Clone a voice from a sample (the v2 twin of voices/generate with method clone)',
    description,
    body: VoiceCloneBody,
    response: VoiceCreated,
    errors: [403, 404],
    sync: true,
    plan: (deps, body, teamId) => planVoice(deps, { ...body, method: 'clone' }, teamId),
    respond: (created, plan, _body, result) => respond(created, plan, result),
  });

  defineGenerationEndpoint(app, {
    url: '/api/v2/voice-design',
    tags: ['Speech'],
    summary: 'Design a voice from a description (the v2 twin of voices/generate with method design)',
    description,
    body: VoiceDesignBody,
    response: VoiceCreated,
    errors: [403, 404],
    sync: true,
    plan: (deps, body, teamId) => planVoice(deps, { ...body, method: 'design' }, teamId),
    respond: (created, plan, _body, result) => respond(created, plan, result),
  });
}
