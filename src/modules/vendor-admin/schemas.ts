import { Type } from 'typebox';
import { Timestamp } from '../../lib/schemas.ts';

export const ProviderRoute = Type.Object({
  kind: Type.String({ description: 'The catalog the model is in (image, edit, face, video, music, ...)' }),
  model: Type.String(),
  endpoint: Type.String({ description: "The vendor's endpoint (model id, path) this route sends to" }),
  position: Type.Integer({ minimum: 0, description: "The route's place in the model's routes (0 is tried first)" }),
  source: Type.Union([Type.Literal('catalog'), Type.Literal('override')], {
    description:
      "override: the operator's live list of the model's routes serves (PUT /admin/v1/models/{kind}/{model}/routes); catalog: the catalog's",
  }),
  enabled: Type.Boolean({ description: 'false: the operator keeps the route in the list but it is never used' }),
  cooling_until: Type.Union([Timestamp, Type.Null()], {
    description: 'Set while the circuit breaker keeps this route out of use',
  }),
});

export const ProviderSummary = Type.Object(
  {
    id: Type.String({ examples: ['fal'] }),
    configured: Type.Boolean({ description: 'Whether its key is set (the simulator always is)' }),
    success_rate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
      description: 'Completed attempts over finished attempts in the last 24 hours; null without attempts',
    }),
    check: Type.Optional(
      Type.Object(
        {
          reachable: Type.Union([Type.Boolean(), Type.Null()], {
            description: 'Whether it answered our credentials; null when the vendor has no harmless call to ask',
          }),
          detail: Type.String({ description: 'Why not, or what was asked' }),
        },
        {
          description: 'With ?check=true, for configured providers: one harmless authenticated call (never paid work)',
        },
      ),
    ),
    routes: Type.Array(ProviderRoute, {
      description:
        'The models this provider has a route for (for the simulator: the models it serves now, those with no configured route that PROVIDERS, SIMULATOR_MODELS or the local start let it serve)',
    }),
  },
  { $id: 'ProviderSummary', title: 'ProviderSummary' },
);

export const ProvidersQuery = Type.Object({
  check: Type.Optional(
    Type.Boolean({ description: 'Make one harmless authenticated call to each configured provider (default false)' }),
  ),
});

export const Attempt = Type.Object(
  {
    item_id: Type.String(),
    provider: Type.String(),
    endpoint: Type.String(),
    vendor_request_id: Type.Union([Type.String(), Type.Null()]),
    started_at: Timestamp,
    finished_at: Type.Union([Timestamp, Type.Null()]),
    answered_at: Type.Union([Timestamp, Type.Null()], {
      description:
        "When the route's answer with the result was in hand, before its file was copied into our storage and the item settled (completed attempts; null otherwise)",
    }),
    outcome: Type.Union([Type.Enum(['completed', 'failed', 'submit_failed', 'unknown']), Type.Null()], {
      description: 'null while the attempt runs',
    }),
    error: Type.Union([Type.String(), Type.Null()]),
    error_kind: Type.Union([Type.String(), Type.Null()], {
      description: 'The failure kind (invalid_input, unavailable, ...)',
    }),
    cost: Type.Union([Type.Number(), Type.Null()], {
      description:
        "What the work cost in US dollars, from the vendor's answer at the operator's rates (docs/operating.md); null when unknown (never 0 for unknown)",
    }),
  },
  { $id: 'ProviderAttempt', title: 'ProviderAttempt' },
);

export const GenerationParams = Type.Object({ generation_id: Type.String({ minLength: 1, maxLength: 64 }) });
