import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { PRESET_VOICES, TTS_EMOTIONS, TTS_FORMATS } from '../../catalog/voices.ts';
import { defineGenerationEndpoint } from '../../engine/define.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { selectVoicesOfTeam } from '../voices/sql.ts';
import { planTextToSpeech, TextToSpeechBody, TextToSpeechResponse, TTS_CREDITS, V2Voice } from './service.ts';

export default async function speechRoutes(app: App): Promise<void> {
  app.get(
    '/api/v2/voices',
    {
      schema: {
        tags: ['Speech'],
        summary: 'Every voice the team can speak with: its own voices, then the built-in and premium presets',
        response: { 200: Type.Array(V2Voice), ...errorResponses(401) },
      },
    },
    async (request) => {
      const own = await selectVoicesOfTeam(app.deps.pool, request.principal.teamId, undefined);
      return [
        ...own.map((v) => ({
          voice_id: v.id,
          name: v.name,
          description: v.description,
          type: v.type,
          gender: null,
          language: null,
          preview_url: v.audio_url,
          influencer_id: v.influencer_id,
          created_at: v.created_at.toISOString(),
          expires_at: v.expires_at?.toISOString() ?? null,
        })),
        ...PRESET_VOICES.map((p) => ({
          voice_id: p.id,
          name: p.name,
          description: p.description,
          type: p.tier,
          gender: p.gender,
          language: p.language,
          preview_url: null,
          influencer_id: null,
          created_at: null,
          expires_at: null,
        })),
      ];
    },
  );

  defineGenerationEndpoint(app, {
    url: '/api/v2/text-to-speech',
    tags: ['Speech'],
    summary: 'Speech audio from text (synchronous)',
    description:
      `Synchronous; costs ${TTS_CREDITS} credits per generation. voice_id is a preset (built-in or premium) or a ` +
      'cloned or designed voice of your team; an unknown one is 404. The answer carries the audio URL, its format and ' +
      'duration. emotion: ' +
      `${TTS_EMOTIONS.join(', ')}; output_format: ${TTS_FORMATS.join(', ')}. When the work fails the answer is 500 ` +
      'generation_failed and the credits are refunded.',
    body: TextToSpeechBody,
    response: TextToSpeechResponse,
    errors: [403, 404],
    sync: true,
    plan: planTextToSpeech,
    respond: (created, plan, _body, result) => ({
      generation_id: created.id,
      status: 'completed',
      audio_url: result?.items[0]?.url ?? '',
      output_format: String(plan.input.format),
      duration_seconds: Number(result?.items[0]?.result?.duration_seconds ?? 0),
      voice_id: String(plan.input.voice_id),
      credits_used: created.creditsCharged,
    }),
  });
}
