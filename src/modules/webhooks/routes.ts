import type { FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { App } from '../../app-types.ts';
import { invalidField } from '../../lib/errors.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { DeliveryPage, DeliveryParams, DeliveryQuery, SigningSecret, WebhookDeliveryDetail } from './schemas.ts';
import { getDelivery, getSigningSecret, listDeliveries, redeliver, rotateSigningSecret } from './service.ts';

const SIGNING =
  'Every webhook carries `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256 of ' +
  '"{id}.{timestamp}.{body}">` keyed with the base64 part of this secret (Standard Webhooks: its libraries ' +
  'verify with the secret as given).';

/**
 * For the actions that take no body: none, or an empty JSON object; a field in it is refused like
 * any unknown field (before an Idempotency-Key is claimed).
 */
function refuseBody(request: FastifyRequest, _reply: unknown, done: HookHandlerDoneFunction): void {
  const body: unknown = request.body;
  if (body === undefined) done();
  else if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const [field] = Object.keys(body);
    done(field === undefined ? undefined : invalidField(field, 'unknown field: this call takes no body'));
  } else done(invalidField('body', 'this call takes no body (or an empty JSON object)'));
}

/** The team's own view of its webhooks: the signing secret and the deliveries. */
export default async function webhookRoutes(app: App): Promise<void> {
  const tags = ['Webhooks'];

  app.get(
    '/api/v1/webhooks/secret',
    {
      schema: {
        tags,
        summary: "The team's webhook signing secret",
        description: `${SIGNING} The answer is not cached (\`Cache-Control: no-store\`).`,
        response: { 200: SigningSecret, ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return getSigningSecret(app.deps.pool, app.deps.secrets, request.principal.teamId);
    },
  );

  app.post(
    '/api/v1/webhooks/secret/rotate',
    {
      schema: {
        tags,
        summary: 'Replace the webhook signing secret with a new one',
        description:
          'The old secret stops at once: every attempt made from now on (first attempts, retries of deliveries ' +
          'already pending, redeliveries) is signed with the new secret only; an attempt already on the wire keeps ' +
          'the old signature. A receiver that refuses a signature (any non-2xx) is retried on the usual schedule, ' +
          'and any delivery can be sent again with POST /api/v1/webhooks/deliveries/{id}/redeliver. No body (or `{}`).',
        response: { 200: SigningSecret, ...errorResponses(400, 401) },
      },
      preValidation: refuseBody,
      // The new secret is not stored with an Idempotency-Key: a repeated rotate makes another one.
      config: { answersSecret: true },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return rotateSigningSecret(app.deps.pool, app.deps.secrets, request.principal.teamId);
    },
  );

  app.get(
    '/api/v1/webhooks/deliveries',
    {
      schema: {
        tags,
        summary: "The team's webhook deliveries with their attempts, newest first",
        description:
          'One delivery per generation and event, with its latest 50 attempts (time, status code, duration, ' +
          'error, when the next was scheduled). Cursor pagination: pass `next_cursor` as `cursor` for the next ' +
          '(older) page; it is null on the last one. Filters combine; `created_after` and `created_before` are ' +
          "both exclusive. Another team's generation_id gives an empty list.",
        querystring: DeliveryQuery,
        response: { 200: DeliveryPage, ...errorResponses(400, 401) },
      },
    },
    (request) => listDeliveries(app.deps.pool, request.principal.teamId, request.query),
  );

  app.get(
    '/api/v1/webhooks/deliveries/:id',
    {
      schema: {
        tags,
        summary: 'One webhook delivery, with its attempts and the body it posts',
        description: "Another team's delivery is 404, like an unknown one.",
        params: DeliveryParams,
        response: { 200: WebhookDeliveryDetail, ...errorResponses(401, 404) },
      },
    },
    (request) => getDelivery(app.deps.pool, request.principal.teamId, request.params.id),
  );

  app.post(
    '/api/v1/webhooks/deliveries/:id/redeliver',
    {
      schema: {
        tags,
        summary: 'Send a delivery again now',
        description:
          'Queues a new attempt at once, whatever the status: a pending delivery makes its next attempt now (the ' +
          'retry schedule goes on if it fails); a delivered or failed one makes one more attempt, which is not ' +
          'retried (it ends `delivered` or `failed`). While an attempt is under way, the new one follows as soon as ' +
          'it ends. Same body and `webhook-id` (receivers de-duplicate on it), a fresh `webhook-timestamp`, signed ' +
          "with the current secret. Answers 202 with the delivery; another team's delivery is 404. No body (or `{}`).",
        params: DeliveryParams,
        response: { 202: WebhookDeliveryDetail, ...errorResponses(400, 401, 404) },
      },
      preValidation: refuseBody,
    },
    async (request, reply) => {
      reply.code(202);
      return redeliver(app.deps.pool, request.principal.teamId, request.params.id);
    },
  );
}
