import { Type } from 'typebox';
import { Timestamp } from '../../lib/schemas.ts';
import { MODEL_REF, MODEL_REF_MAX, PRICE_MULTIPLIER_MAX, TEAM_MODEL_LIST_MAX } from '../live-config/limits.ts';

export const Team = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    credits: Type.Integer({ description: 'Current balance' }),
    max_concurrent_items: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Items it runs at once; null: the service default (TEAM_MAX_CONCURRENT_ITEMS)',
    }),
    running_items: Type.Integer({ description: 'Items running now' }),
    price_multiplier: Type.Number({ description: 'Every price the team is charged and quoted is multiplied by it' }),
    allowed_models: Type.Array(Type.String(), {
      description: 'kind:model entries; when not empty, the only models the team may use',
    }),
    denied_models: Type.Array(Type.String(), { description: 'kind:model entries the team may not use' }),
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

const ModelRef = Type.String({
  pattern: MODEL_REF,
  maxLength: MODEL_REF_MAX,
  description: 'kind:model, as GET /api/v1/models lists it (e.g. image:flux-dev)',
});

export const UpdateTeamBody = Type.Object(
  {
    max_concurrent_items: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], {
        description:
          'Items the team runs at once; more wait in `queued` with their queue_position and start in order as ' +
          'room frees. null: the service default (TEAM_MAX_CONCURRENT_ITEMS).',
      }),
    ),
    price_multiplier: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: PRICE_MULTIPLIER_MAX,
        description:
          'Multiplies every price the team is charged and quoted (each item rounded up to whole credits); 1: list prices',
      }),
    ),
    allowed_models: Type.Optional(
      Type.Array(ModelRef, {
        maxItems: TEAM_MODEL_LIST_MAX,
        description: 'When not empty, the only models the team may use (others are 403 and not listed to it)',
      }),
    ),
    denied_models: Type.Optional(
      Type.Array(ModelRef, {
        maxItems: TEAM_MODEL_LIST_MAX,
        description: 'Models the team may not use (403, not listed to it)',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
