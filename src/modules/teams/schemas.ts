import { Type } from 'typebox';
import { Timestamp } from '../../lib/schemas.ts';

export const Team = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    credits: Type.Integer({ description: 'Current balance' }),
    created_at: Timestamp,
  },
  { $id: 'Team', title: 'Team' },
);

export const CreateTeamBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  credits: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'Starting credits (a ledger grant)' }),
  ),
});

export const TeamParams = Type.Object({ team_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const Pagination = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
  before: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Last id of the previous page' })),
});

export const WebhookSecret = Type.Object({
  secret: Type.String({ description: 'Standard Webhooks signing secret (`whsec_<base64>`)' }),
});
