import { type TSchema, Type } from 'typebox';
import { ERROR_STATUS } from './errors.ts';

/** ISO 8601 UTC timestamp with milliseconds. */
export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-11-22T01:22:07.123Z'] });

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.Enum(Object.keys(ERROR_STATUS), { description: 'Machine-readable error code' }),
      message: Type.String({ description: 'What went wrong and, where it helps, what to do next' }),
      details: Type.Optional(
        Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), {
          description: 'One entry per invalid field (validation errors only)',
        }),
      ),
      needed: Type.Optional(
        Type.Integer({ description: '`insufficient_credits` only: the credits the request needs' }),
      ),
      available: Type.Optional(Type.Integer({ description: '`insufficient_credits` only: the credits the team has' })),
    }),
  },
  { $id: 'Error', title: 'Error' },
);

const STATUS_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (`invalid_request`, with one `details` entry per bad field)',
  401: 'Missing, malformed, unknown or revoked credential (`unauthorized`)',
  402: 'Not enough credits (`insufficient_credits`)',
  403: 'The workspace belongs to another team, or the model is not open to this team (`forbidden`)',
  404: 'Resource not found (`not_found`)',
  409: 'A request with this Idempotency-Key is still in flight (`idempotency_conflict`)',
  413: 'Body larger than the limit (`payload_too_large`)',
  422: 'Rejected content (`media_rejected`, `idempotency_mismatch`)',
  429: 'Too many requests from this team, or failed authentications from this address (`rate_limited`, with Retry-After)',
  500: 'Generation failed or internal error',
  503: 'The database cannot be reached right now (`service_unavailable`, with Retry-After), or the model is not available on this service (`model_unavailable`)',
};

/** Response schema entries for the error statuses a route can answer with (for validation of docs). */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of statuses) {
    out[status] = Type.Ref('Error', { description: STATUS_DESCRIPTIONS[status] ?? 'Error' });
  }
  return out;
}
