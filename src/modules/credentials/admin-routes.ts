import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { actorOf } from '../live-config/actor.ts';
import { addCredential, CREDENTIAL_VENDORS, changeCredential, listCredentials, removeCredential } from './service.ts';

const Nullable = <T extends ReturnType<typeof Type.Integer> | ReturnType<typeof Type.String>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const Credential = Type.Object(
  {
    id: Type.String({ description: 'cred_…, or env:<provider> for the key its environment variable sets' }),
    provider: Type.String(),
    name: Type.String(),
    secret_last4: Type.String({ description: 'The last four characters of the secret (never shown whole again)' }),
    base_url: Type.Union([Type.String(), Type.Null()], {
      description: "The vendor API's base URL; null: the vendor's setting",
    }),
    weight: Type.Integer({ description: 'Its share of the submits among the active credentials of its vendor' }),
    rpm: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The most submits with it in any rolling minute (CREDENTIAL_RPM_WINDOW_S); null: no cap',
    }),
    max_in_flight: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The most of its jobs at the vendor at once (submitted, not finished); null: no cap',
    }),
    state: Type.Union([Type.Literal('active'), Type.Literal('cooling'), Type.Literal('disabled')]),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is disabled or cooling' }),
    cooling_until: Type.Union([Type.String(), Type.Null()]),
    source: Type.Union([Type.Literal('api'), Type.Literal('env')], { description: 'env: read-only' }),
    created_at: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'VendorCredential', title: 'VendorCredential' },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
  secret: Type.String({ minLength: 8, maxLength: 4096, description: 'The key (sealed at rest, never shown again)' }),
  base_url: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2000 }))),
  weight: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  rpm: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }))),
  max_in_flight: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }))),
  enabled: Type.Optional(
    Type.Boolean({ description: 'false: never picked; true: active again after the service disabled it' }),
  ),
};

const NewCredential = Type.Object(
  { provider: Type.String({ description: `One of ${CREDENTIAL_VENDORS.join(', ')}` }), ...fields },
  { additionalProperties: false },
);

const CredentialChange = Type.Object(
  { ...fields, name: Type.Optional(fields.name), secret: Type.Optional(fields.secret) },
  { additionalProperties: false, minProperties: 1 },
);

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export default async function credentialAdminRoutes(app: App): Promise<void> {
  const tags = ['Admin'];

  app.get(
    '/admin/v1/credentials',
    {
      schema: {
        tags,
        summary: "The vendors' credentials (the environment's first, read-only), with their state",
        querystring: Type.Object({ provider: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }),
        response: { 200: Type.Object({ data: Type.Array(Credential) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => ({ data: await listCredentials(app.deps, request.query.provider) }),
  );

  app.post(
    '/admin/v1/credentials',
    {
      schema: {
        tags,
        summary: 'Add a credential of a vendor: picked by weight among its active ones at each submit',
        description:
          'Applies in every process within a second. The secret is stored sealed and never shown again ' +
          '(only its last four characters). Every change is an audit row.',
        body: NewCredential,
        response: { 201: Credential, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => reply.code(201).send(await addCredential(app.deps, actorOf(request), request.body)),
  );

  app.patch(
    '/admin/v1/credentials/:id',
    {
      schema: {
        tags,
        summary: 'Change a credential (enabled: true re-enables one the service disabled)',
        description: 'A credential set by the environment is read-only (409) but for {"enabled": true}.',
        params: IdParams,
        body: CredentialChange,
        response: { 200: Credential, ...errorResponses(400, 401, 404, 409) },
      },
    },
    (request) => changeCredential(app.deps, actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/admin/v1/credentials/:id',
    {
      schema: {
        tags,
        summary: 'Remove a credential (its running jobs are polled with another of its vendor)',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 404, 409) },
      },
    },
    async (request, reply) => {
      await removeCredential(app.deps, actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}
