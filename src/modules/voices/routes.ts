import { type Static, Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { defineGenerationEndpoint } from '../../engine/define.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { notFound } from '../../lib/errors.ts';
import { errorResponses } from '../../lib/schemas.ts';
import {
  VoiceCloneBody,
  VoiceCreated,
  VoiceDesignBody,
  VoiceDetail,
  VoiceGenerateBody,
  VoiceListed,
} from './schemas.ts';
import { MAX_SAMPLE_SECONDS, planVoice, VOICE_CREDITS } from './service.ts';
import { selectVoice, selectVoicesOfTeam, type VoiceRow } from './sql.ts';

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
    expires_at: row.expires_at?.toISOString() ?? null,
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
