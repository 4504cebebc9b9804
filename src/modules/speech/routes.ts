import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { PRESET_VOICES, TTS_EMOTIONS, TTS_FORMATS } from '../../catalog/voices.ts';
import { defineGenerationEndpoint } from '../../engine/define.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { errorResponses, Timestamp } from '../../lib/schemas.ts';
import { resolveVoiceProfile } from '../voices/service.ts';
import { selectVoicesOfTeam } from '../voices/sql.ts';
import { WorkspaceIdField } from '../workspaces/schemas.ts';

/** Text to speech costs a flat price per generation. */
export const TTS_CREDITS = 25;

export const TextToSpeechBody = Type.Object({
  voice_id: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'A preset id or a voice of your team (GET /api/v2/voices)',
  }),
  text: Type.String({ minLength: 1, maxLength: 5000 }),
  language: Type.Optional(Type.String({ pattern: '^[a-z]{2}$', description: "ISO 639-1; default 'en'" })),
  speed: Type.Optional(Type.Number({ minimum: 0.6, maximum: 1.5, description: 'Default 1.0' })),
  volume: Type.Optional(Type.Number({ minimum: 0.5, maximum: 2, description: 'Default 1.0' })),
  emotion: Type.Optional(Type.Enum([...TTS_EMOTIONS], { description: "Default 'neutral'" })),
  output_format: Type.Optional(Type.Enum([...TTS_FORMATS], { description: "Default 'mp3'" })),
  workspace_id: Type.Optional(WorkspaceIdField),
});

const TextToSpeechResponse = Type.Object({
  generation_id: Type.String(),
  status: Type.String({ examples: ['completed'] }),
  audio_url: Type.String({ format: 'uri' }),
  output_format: Type.String(),
  duration_seconds: Type.Number(),
  voice_id: Type.String(),
  credits_used: Type.Number(),
});

const V2Voice = Type.Object(
  {
    voice_id: Type.String(),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    type: Type.Enum(['builtin', 'premium', 'cloned', 'designed']),
    gender: Type.Union([Type.String(), Type.Null()]),
    language: Type.Union([Type.String(), Type.Null()]),
    preview_url: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
    influencer_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'V2Voice', title: 'V2Voice' },
);

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
    async plan(deps, body, teamId): Promise<GenerationPlan> {
      const profile = await resolveVoiceProfile(deps, teamId, body.voice_id);
      return {
        operation: 'speech.tts',
        model: 'tts-v2',
        input: {
          voice_id: body.voice_id,
          profile,
          text: body.text,
          language: body.language ?? 'en',
          speed: body.speed ?? 1,
          volume: body.volume ?? 1,
          emotion: body.emotion ?? 'neutral',
          format: body.output_format ?? 'mp3',
        },
        items: [{ type: 'audio', price: TTS_CREDITS }],
        estimatedSeconds: 2,
      };
    },
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
