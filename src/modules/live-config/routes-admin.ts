import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { actorOf } from './actor.ts';
import { applyConfig, exportConfig } from './config-file.ts';
import { ENDPOINT_MAX, ROUTE_PARAM_NAME, ROUTE_PARAM_TEXT_MAX, ROUTE_PARAMS_MAX, ROUTES_MAX } from './limits.ts';
import { changeModelRoutes, readModelRoutes } from './routes-service.ts';

const ModelParams = Type.Object({
  kind: Type.String({ minLength: 1, maxLength: 40 }),
  model: Type.String({ minLength: 1, maxLength: 200 }),
});

const RouteFields = {
  provider: Type.String({ minLength: 1, maxLength: 60, description: 'A vendor id (fal, replicate, ...)' }),
  endpoint: Type.String({ minLength: 1, maxLength: ENDPOINT_MAX, description: "The vendor's endpoint id" }),
};

const ImageFields = {
  image_endpoint: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: ENDPOINT_MAX,
      description: 'The endpoint used instead when the request brings images to start from (a first frame)',
    }),
  ),
  image_mapping: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "image_endpoint's mapping, one of the vendor's" }),
  ),
};

const Params = Type.Record(
  Type.String(),
  Type.Union([Type.String({ maxLength: ROUTE_PARAM_TEXT_MAX }), Type.Number(), Type.Boolean()]),
  {
    maxProperties: ROUTE_PARAMS_MAX,
    description: `Fixed input fields the route sends, over what its mapping makes (e.g. a generic endpoint's base model, a ComfyUI checkpoint); at most ${ROUTE_PARAMS_MAX}, named as /${ROUTE_PARAM_NAME}/, each a string of at most ${ROUTE_PARAM_TEXT_MAX} characters, a number or a boolean. Never a secret: they are shown by GET, the audit and config export`,
  },
);

const RouteIn = Type.Object(
  {
    ...RouteFields,
    mapping: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
        description:
          "One of the vendor's mappings; null or absent only for a route that serves requests that bring images (image_endpoint and image_mapping)",
      }),
    ),
    ...ImageFields,
    params: Type.Optional(Params),
    tier: Type.Optional(
      Type.Integer({ minimum: 0, description: 'The lowest tier is tried first; absent: its place in the list' }),
    ),
    weight: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, description: 'Its share of the picks within its tier (default 1)' }),
    ),
    enabled: Type.Optional(Type.Boolean({ description: 'false: never used (default true)' })),
  },
  { additionalProperties: false },
);

const RouteOut = Type.Object({
  ...RouteFields,
  mapping: Type.Union([Type.String(), Type.Null()]),
  ...ImageFields,
  params: Type.Optional(Params),
  tier: Type.Integer(),
  weight: Type.Number(),
  enabled: Type.Boolean(),
});

const ModelRoutes = Type.Object(
  {
    kind: Type.String(),
    model: Type.String(),
    source: Type.Union([Type.Literal('catalog'), Type.Literal('override')], {
      description: "override: the operator's list serves; catalog: the catalog's",
    }),
    routes: Type.Array(RouteOut, { description: 'The routes that serve the model now, in order' }),
    catalog_routes: Type.Array(RouteOut, { description: "The catalog's routes (tier: the place in its list)" }),
  },
  { $id: 'ModelRoutes', title: 'ModelRoutes' },
);

const RoutesChange = Type.Object(
  {
    routes: Type.Union([Type.Array(RouteIn, { maxItems: ROUTES_MAX }), Type.Null()], {
      description: "The model's routes from now on, in place of the catalog's; null: the catalog's again",
    }),
  },
  { additionalProperties: false },
);

const ConfigDocument = Type.Object(
  {
    version: Type.Integer(),
    models: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), {
      description: 'By kind, then model id: {price?, available?, routes?}',
    }),
    aliases: Type.Record(Type.String(), Type.Object({ kind: Type.String(), model: Type.String() })),
    teams: Type.Record(Type.String(), Type.Unknown(), {
      description: 'By team id: {price_multiplier, allowed_models, denied_models}',
    }),
  },
  { $id: 'LiveConfigDocument', title: 'LiveConfigDocument' },
);

const ConfigApply = Type.Object(
  {
    document: Type.Unknown({ description: 'A document as GET /admin/v1/config gives it' }),
    dry_run: Type.Optional(Type.Boolean({ description: 'true: answer the differences and change nothing' })),
  },
  { additionalProperties: false },
);

const ConfigApplied = Type.Object(
  {
    applied: Type.Boolean({ description: 'false: a dry run, or nothing differed' }),
    changes: Type.Array(
      Type.Object({
        target: Type.String({ description: 'model kind:model, routes kind:model, alias <name>, team <id>' }),
        before: Type.Unknown(),
        after: Type.Unknown(),
      }),
    ),
  },
  { $id: 'LiveConfigApplied', title: 'LiveConfigApplied' },
);

export default async function liveRoutesAdminRoutes(app: App): Promise<void> {
  const tags = ['Admin'];
  const catalogs = () => ({ catalog: app.deps.catalog, media: app.deps.media });
  const path = '/admin/v1/models/:kind/:model/routes';

  app.get(
    path,
    {
      schema: {
        tags,
        summary: "A model's vendor routes now, and whether they are the catalog's or the operator's",
        params: ModelParams,
        response: { 200: ModelRoutes, ...errorResponses(401, 404) },
      },
    },
    (request) => readModelRoutes(app.deps.pool, catalogs(), request.params.kind, request.params.model),
  );

  app.put(
    path,
    {
      schema: {
        tags,
        summary: "Replace a model's vendor routes without a restart (routes: null, or DELETE: the catalog's)",
        description:
          'The lowest tier is tried first, at random by weight among its usable routes; a failover goes to ' +
          "another route of the tier, then to the next tier. Each provider must be a known vendor and each mapping one of that vendor's; a refused entry is a 400 naming it " +
          '(routes[1].mapping) and nothing changes. image_endpoint and image_mapping (together) serve requests that ' +
          'bring images to start from, and a request naming its provider (settings.provider) keeps to that ' +
          "vendor's routes, as with the catalog's routes. Applies in every process within a second, to " +
          'requests accepted after it: one accepted before keeps the routes it was accepted with, however long it ' +
          'waits or retries. Every change is an audit row.',
        params: ModelParams,
        body: RoutesChange,
        response: { 200: ModelRoutes, ...errorResponses(400, 401, 404) },
      },
    },
    (request) =>
      changeModelRoutes(
        app.deps.pool,
        catalogs(),
        actorOf(request),
        request.params.kind,
        request.params.model,
        request.body.routes,
      ),
  );

  app.delete(
    path,
    {
      schema: {
        tags,
        summary: "Give a model back the catalog's routes",
        params: ModelParams,
        response: { 200: ModelRoutes, ...errorResponses(401, 404) },
      },
    },
    (request) =>
      changeModelRoutes(app.deps.pool, catalogs(), actorOf(request), request.params.kind, request.params.model, null),
  );

  app.get(
    '/admin/v1/config',
    {
      schema: {
        tags,
        summary: 'The live configuration as one document (model prices, availability and routes, aliases, team rules)',
        response: { 200: ConfigDocument, ...errorResponses(401) },
      },
    },
    () => exportConfig(app.deps.pool),
  );

  app.post(
    '/admin/v1/config/apply',
    {
      schema: {
        tags,
        summary: 'Apply a configuration document in one transaction (dry_run: show the differences only)',
        description:
          'The document is checked whole first: an unknown key or a bad reference is a 400 naming its path and ' +
          'nothing is applied. Models and aliases it does not name go back to the catalog; teams it does not name ' +
          'keep their rules. Only what differs is written, each change an audit row: the same document twice changes nothing.',
        body: ConfigApply,
        response: { 200: ConfigApplied, ...errorResponses(400, 401) },
      },
    },
    (request) =>
      applyConfig(app.deps.pool, catalogs(), actorOf(request), request.body.document, request.body.dry_run === true),
  );
}
