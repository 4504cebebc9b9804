import { Type } from 'typebox';
import { Url } from '../../lib/fields.ts';
import { Timestamp } from '../../lib/schemas.ts';
import { WorkspaceIdField } from '../workspaces/schemas.ts';

const voiceFields = {
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  type: Type.Enum(['cloned', 'designed']),
  audio_url: Type.String({ format: 'uri', description: 'Preview: speech in this voice' }),
  influencer_id: Type.Union([Type.String(), Type.Null()]),
  influencer_name: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  expires_at: Type.Union([Timestamp, Type.Null()], {
    description:
      'When the preview file is deleted (MEDIA_RETENTION_DAYS); then audio_url answers 410 while the voice still ' +
      'speaks. Null: kept',
  }),
};

export const VoiceListed = Type.Object(voiceFields, { $id: 'Voice', title: 'Voice' });
export const VoiceDetail = Type.Object(
  {
    ...voiceFields,
    custom_voice_id: Type.String({ description: 'The voice’s id at the voice provider, for TTS' }),
  },
  { $id: 'VoiceDetail', title: 'VoiceDetail' },
);

const common = {
  influencer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Associates the voice' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  workspace_id: Type.Optional(WorkspaceIdField),
};

export const VoiceGenerateBody = Type.Object({
  method: Type.Enum(['clone', 'design']),
  audio_url: Type.Optional(Url("A sample of the voice; required when method is 'clone'")),
  prompt: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description: "A description of the voice; required when method is 'design'",
    }),
  ),
  ...common,
});

export const VoiceCloneBody = Type.Object({
  audio_url: Url('A sample of the voice'),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  ...common,
});

export const VoiceDesignBody = Type.Object({
  prompt: Type.String({ minLength: 1, maxLength: 1000, description: 'A description of the voice' }),
  ...common,
});

export const VoiceCreated = Type.Object({
  voice_id: Type.String(),
  name: Type.String(),
  type: Type.Enum(['cloned', 'designed']),
  audio_url: Type.String({ format: 'uri' }),
  influencer_id: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ examples: ['completed'] }),
  credits_used: Type.Number(),
});
