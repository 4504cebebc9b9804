import { type Static, Type } from 'typebox';
import { PageQueryFields, pageSchema } from '../../lib/pagination.ts';
import { Timestamp } from '../../lib/schemas.ts';

export const SigningSecret = Type.Object(
  {
    secret: Type.String({
      description: 'The Standard Webhooks signing secret (`whsec_<base64>`) that signs every webhook of the team',
      examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    }),
    created_at: Type.String({
      format: 'date-time',
      description: 'When this secret was made (team creation or rotation)',
      examples: ['2026-11-22T01:22:07.123Z'],
    }),
  },
  { $id: 'WebhookSigningSecret', title: 'WebhookSigningSecret' },
);

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
const nullableTimestamp = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const DeliveryAttempt = Type.Object(
  {
    attempt: Type.Integer({ description: 'Attempt number, from 1' }),
    trigger: Type.Enum(['schedule', 'redelivery'], {
      description: '`schedule`: the first attempt or an automatic retry; `redelivery`: asked for by the team',
    }),
    created_at: Type.String({ format: 'date-time', description: 'When the attempt ended' }),
    status_code: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The HTTP status the receiver answered; null when none came (timeout, refused connection, ...)',
    }),
    duration_ms: Type.Integer({ description: 'How long the request took, in milliseconds' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt failed; null when it succeeded' }),
    next_attempt_at: nullableTimestamp('When the retry after this attempt was scheduled; null when none was'),
  },
  { title: 'WebhookAttempt' },
);

const deliveryFields = {
  id: Type.String({
    description: 'Also the `webhook-id` header of every attempt',
    examples: ['whd_01jb6x3t8h2k9m4n5p6q7r8s9t'],
  }),
  generation_id: Type.String(),
  event_type: Type.String({ examples: ['generation.completed'] }),
  url: Type.String({ description: 'Where it is posted (the `webhook` of the request)' }),
  status: Type.Enum([...DELIVERY_STATUSES], {
    description:
      '`pending` (an attempt is due or under way), `delivered` (the last attempt got a 2xx), `failed` (the ' +
      'schedule ran out, or a redelivery failed)',
  }),
  attempt_count: Type.Integer({ description: 'Attempts made so far' }),
  next_attempt_at: nullableTimestamp('When the next attempt is due, while pending; null otherwise'),
  created_at: Timestamp,
  updated_at: Timestamp,
  attempts: Type.Array(DeliveryAttempt, { description: 'The latest 50 attempts, oldest first' }),
};

export const WebhookDelivery = Type.Object(deliveryFields, { $id: 'WebhookDelivery', title: 'WebhookDelivery' });

export const WebhookDeliveryDetail = Type.Object(
  {
    ...deliveryFields,
    payload: Type.String({
      description: 'The exact body every attempt posts (the signature covers these bytes); never the secret',
    }),
  },
  { $id: 'WebhookDeliveryDetail', title: 'WebhookDeliveryDetail' },
);

export const DeliveryPage = pageSchema(WebhookDelivery, 'WebhookDeliveryPage');

export const DeliveryQuery = Type.Object({
  ...PageQueryFields,
  status: Type.Optional(Type.Enum([...DELIVERY_STATUSES])),
  generation_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});

export const DeliveryParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export type SigningSecret = Static<typeof SigningSecret>;
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;
export type WebhookDelivery = Static<typeof WebhookDelivery>;
export type WebhookDeliveryDetail = Static<typeof WebhookDeliveryDetail>;
export type DeliveryQuery = Static<typeof DeliveryQuery>;
