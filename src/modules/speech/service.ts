// The rules and prices of this module's generation requests: each plan turns a validated
// request into the work to charge for and run.

import type { Static } from 'typebox';
import { Type } from 'typebox';
import type { Deps } from '../../app-types.ts';
import { ENDPOINT_PRICED, SPEECH_PRICE } from '../../catalog/endpoint-prices.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import { TTS_EMOTIONS, TTS_FORMATS } from '../../catalog/voices.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { Timestamp } from '../../lib/schemas.ts';
import { resolveVoice } from '../voices/service.ts';
import { WorkspaceIdField } from '../workspaces/schemas.ts';
import type { TtsInput } from './inputs.ts';
import { SPEECH_MODEL } from './speak.ts';

/** Text to speech costs a flat price per generation (the catalog's). */
export const TTS_CREDITS = SPEECH_PRICE.credits_per_generation;

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

export const TextToSpeechResponse = Type.Object({
  generation_id: Type.String(),
  status: Type.String({ examples: ['completed'] }),
  audio_url: Type.String({ format: 'uri' }),
  output_format: Type.String(),
  duration_seconds: Type.Number(),
  voice_id: Type.String(),
  credits_used: Type.Number(),
});

export const V2Voice = Type.Object(
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
    expires_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When the preview file is deleted (MEDIA_RETENTION_DAYS); null: kept, or a preset',
    }),
  },
  { $id: 'V2Voice', title: 'V2Voice' },
);

/** Text to speech's price now (the operator's, else the catalog's). */
export const speechPrice = (live: Deps['live']) =>
  live.priceOr(ENDPOINT_PRICED.speech.kind, ENDPOINT_PRICED.speech.model, SPEECH_PRICE);

export async function planTextToSpeech(
  deps: Deps,
  body: Static<typeof TextToSpeechBody>,
  teamId: string,
): Promise<GenerationPlan> {
  const voice = await resolveVoice(deps, teamId, body.voice_id);
  return {
    operation: OperationName.speechTts,
    model: SPEECH_MODEL,
    input: {
      voice_id: body.voice_id,
      profile: voice.profile,
      vendor_voice: voice.vendor ?? null,
      text: body.text,
      language: body.language ?? 'en',
      speed: body.speed ?? 1,
      volume: body.volume ?? 1,
      emotion: body.emotion ?? 'neutral',
      format: body.output_format ?? 'mp3',
    } satisfies TtsInput,
    items: [{ type: 'audio', price: speechPrice(deps.live).credits_per_generation }],
    estimatedSeconds: 2,
  };
}
