import { Type } from 'typebox';
import { Timestamp } from '../../lib/schemas.ts';

const keyFields = {
  id: Type.String(),
  team_id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  prefix: Type.String({ description: 'First characters of the key, to recognise it' }),
  created_at: Timestamp,
  revoked_at: Type.Union([Timestamp, Type.Null()]),
};

export const ApiKey = Type.Object(keyFields, { $id: 'ApiKey', title: 'ApiKey' });

export const CreatedApiKey = Type.Object(
  { ...keyFields, key: Type.String({ description: 'The API key itself; shown only in this response' }) },
  { $id: 'CreatedApiKey', title: 'CreatedApiKey' },
);

export const CreateApiKeyBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});

export const KeyParams = Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 64 }) });
