import { Type } from 'typebox';
import { Timestamp } from '../../lib/schemas.ts';
import { WorkspaceIdField } from '../workspaces/schemas.ts';

export const MusicGenerateBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 80 }),
    style: Type.Optional(
      Type.String({ maxLength: 1000, description: 'Genre description, e.g. "melancholic lo-fi piano"' }),
    ),
    lyrics: Type.Optional(Type.String({ maxLength: 5000, description: 'Leave empty for instrumental' })),
    instrumental: Type.Optional(Type.Boolean({ description: 'Default false' })),
    vocal_gender: Type.Optional(Type.Enum(['m', 'f'])),
    model: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        examples: ['V4_5PLUS'],
        description:
          "One of V4, V4_5, V4_5PLUS, V4_5ALL, V5; default 'V4_5PLUS'. Another is 400 model_not_found, as on every endpoint",
      }),
    ),
    workspace_id: Type.Optional(WorkspaceIdField),
  },
  {
    examples: [
      { title: 'Rain on the Window', style: 'melancholic lo-fi piano', instrumental: true, model: 'V4_5PLUS' },
    ],
  },
);

export const MusicTrack = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    style: Type.String(),
    url: Type.String({ format: 'uri' }),
    status: Type.String({ examples: ['completed'] }),
    generation_id: Type.String(),
    created_at: Timestamp,
    expires_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When its file is deleted (MEDIA_RETENTION_DAYS); then its url answers 410. Null: kept',
    }),
  },
  { $id: 'MusicTrack', title: 'MusicTrack' },
);

export const MusicListQuery = Type.Object({
  workspace_id: Type.Optional(WorkspaceIdField),
});
