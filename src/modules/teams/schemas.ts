import { Type } from 'typebox';
import { Timestamp } from '../../lib/schemas.ts';

export const Team = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    credits: Type.Integer({ description: 'Current balance' }),
    max_concurrent_items: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Items it runs at once; null: the service default (TEAM_MAX_CONCURRENT_ITEMS)',
    }),
    running_items: Type.Integer({ description: 'Items running now' }),
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

export const UpdateTeamBody = Type.Object({
  max_concurrent_items: Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], {
    description:
      'Items the team runs at once; more wait in `queued` with their queue_position and start in order as ' +
      'room frees. null: the service default (TEAM_MAX_CONCURRENT_ITEMS).',
  }),
});
