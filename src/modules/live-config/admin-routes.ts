import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { pageLimitField } from '../../lib/pagination.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { actorOf } from './actor.ts';
import { changeModel, listAliases, listAudit, putAlias, readAlias, readModelSettings, removeAlias } from './service.ts';

const PriceObject = Type.Record(Type.String(), Type.Unknown(), {
  description:
    "The model's price object, in the catalog's fields for it: {credits_per_image} for an image model, " +
    '{credits_per_second_by_tier, credits_per_output_megapixel} for an upscaler, {credits_per_generation} ' +
    'for voice/tts, ... (docs/operating.md lists every one)',
});

const ModelSettings = Type.Object(
  {
    kind: Type.String(),
    model: Type.String(),
    price: Type.Union([PriceObject, Type.Null()], { description: 'The price charged now' }),
    catalog_price: Type.Union([PriceObject, Type.Null()], { description: "The catalog's price" }),
    available: Type.Boolean({ description: 'false: the operator switched the model off' }),
    override: Type.Object({
      price: Type.Union([PriceObject, Type.Null()]),
      available: Type.Union([Type.Boolean(), Type.Null()]),
    }),
  },
  { $id: 'ModelSettings', title: 'ModelSettings' },
);

const ModelParams = Type.Object({
  kind: Type.String({ minLength: 1, maxLength: 40 }),
  model: Type.String({ minLength: 1, maxLength: 200 }),
});

const ModelChange = Type.Object(
  {
    price: Type.Optional(
      Type.Union([PriceObject, Type.Null()], {
        description:
          "The price from now on (checked against the catalog's schema of the model's price object); null: the catalog's",
      }),
    ),
    available: Type.Optional(
      Type.Union([Type.Boolean(), Type.Null()], {
        description:
          'false: refused as unavailable (503 model_unavailable) and listed so; null: as the catalog says. ' +
          'Not for the models endpoints name themselves (400)',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

const AliasName = Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z0-9._/-]*[a-zA-Z0-9]$', maxLength: 100 });
const AliasParams = Type.Object({ alias: AliasName });
const AliasBody = Type.Object(
  {
    kind: Type.String({ minLength: 1, maxLength: 40, description: 'The model list kind of the model' }),
    model: Type.String({ minLength: 1, maxLength: 200, description: 'The catalog model the alias stands for' }),
  },
  { additionalProperties: false },
);
const Alias = Type.Object(
  { alias: Type.String(), kind: Type.String(), model: Type.String(), created_at: Type.String() },
  { $id: 'ModelAlias', title: 'ModelAlias' },
);

const AuditEntry = Type.Object(
  {
    id: Type.String(),
    at: Type.String(),
    actor: Type.String({
      description:
        'Who made the change: "admin" (the admin token), "console operator" (the console), "system" (the service itself)',
    }),
    action: Type.String({
      description:
        'model.update, model.routes, alias.put, alias.delete, team.update, config.apply; credential.create, credential.update, credential.delete, credential.enable, credential.disable, credential.cool',
    }),
    target: Type.String({ description: 'What changed: kind:model, alias:<name>, team:<id>, credential:<id>' }),
    before: Type.Unknown(),
    after: Type.Unknown(),
  },
  { $id: 'AuditEntry', title: 'AuditEntry' },
);
const AuditQuery = Type.Object({
  limit: pageLimitField(50),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

export default async function liveConfigAdminRoutes(app: App): Promise<void> {
  const tags = ['Admin'];
  const catalogs = () => ({ catalog: app.deps.catalog, media: app.deps.media });

  app.get(
    '/admin/v1/models/:kind/:model',
    {
      schema: {
        tags,
        summary: "A model's price and availability now, and what the operator changed of them",
        params: ModelParams,
        response: { 200: ModelSettings, ...errorResponses(401, 404) },
      },
    },
    (request) => readModelSettings(app.deps.pool, catalogs(), request.params.kind, request.params.model),
  );

  app.patch(
    '/admin/v1/models/:kind/:model',
    {
      schema: {
        tags,
        summary: "Change a model's price or availability without a restart (null: back to the catalog's)",
        description:
          "kind and model are the model list's (GET /api/v1/models), the models endpoints name themselves " +
          'included (image/influencer-v1, video/kling-2.6-motion-control, voice/tts, ...). Applies in every ' +
          'process within a second: to requests accepted after it and to quotes. Requests accepted before keep ' +
          'the price they were charged. Every change is an audit row.',
        params: ModelParams,
        body: ModelChange,
        response: { 200: ModelSettings, ...errorResponses(400, 401, 404) },
      },
    },
    (request) =>
      changeModel(app.deps.pool, catalogs(), actorOf(request), request.params.kind, request.params.model, request.body),
  );

  app.get(
    '/admin/v1/aliases',
    {
      schema: {
        tags,
        summary: 'Model aliases, by name',
        response: { 200: Type.Object({ data: Type.Array(Alias) }), ...errorResponses(401) },
      },
    },
    async () => ({ data: await listAliases(app.deps.pool) }),
  );

  app.get(
    '/admin/v1/aliases/:alias',
    {
      schema: {
        tags,
        summary: 'Read a model alias',
        params: AliasParams,
        response: { 200: Alias, ...errorResponses(401, 404) },
      },
    },
    (request) => readAlias(app.deps.pool, request.params.alias),
  );

  app.put(
    '/admin/v1/aliases/:alias',
    {
      schema: {
        tags,
        summary: 'Make an alias name a catalog model: a request naming it is priced and run as that model',
        params: AliasParams,
        body: AliasBody,
        response: { 200: Alias, ...errorResponses(400, 401) },
      },
    },
    (request) => putAlias(app.deps.pool, catalogs(), actorOf(request), request.params.alias, request.body),
  );

  app.delete(
    '/admin/v1/aliases/:alias',
    {
      schema: {
        tags,
        summary: 'Remove a model alias',
        params: AliasParams,
        response: { 204: Type.Null(), ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      await removeAlias(app.deps.pool, actorOf(request), request.params.alias);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/admin/v1/audit',
    {
      schema: {
        tags,
        summary: 'The changes made through the admin API to the live configuration, newest first',
        querystring: AuditQuery,
        response: {
          200: Type.Object({ data: Type.Array(AuditEntry), next_cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errorResponses(400, 401),
        },
      },
    },
    (request) => listAudit(app.deps.pool, request.query),
  );
}
