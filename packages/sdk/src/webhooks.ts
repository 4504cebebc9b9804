// Verifying the webhooks the service sends (Standard Webhooks: webhook-id, webhook-timestamp and
// webhook-signature, HMAC-SHA256 with the team's `whsec_` secret), with the standardwebhooks package.
import { WebhookVerificationError as StandardError, Webhook } from 'standardwebhooks';
import { WebhookVerificationError } from './errors.js';
import type { GenerationStatus } from './wait.js';

/** The body of a webhook the service sends when a generation finishes. */
export interface GenerationWebhookEvent {
  type: 'generation.completed' | 'generation.failed';
  /** When the event happened (ISO 8601). */
  timestamp: string;
  /** The generation's status record. */
  data: GenerationStatus;
}

/** Headers as a Headers object, a Node IncomingHttpHeaders or a plain record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function headerRecord(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, name) => {
      out[name.toLowerCase()] = value;
    });
    return out;
  }
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Verifies a webhook's signature and age (5 minutes either way) against the team's signing secret
 * and returns its event; throws WebhookVerificationError otherwise. `body` must be the raw body as
 * received (a string or its bytes), not a parsed and re-serialized object.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
): GenerationWebhookEvent {
  const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
  try {
    return new Webhook(secret).verify(payload, headerRecord(headers)) as GenerationWebhookEvent;
  } catch (err) {
    if (err instanceof StandardError) throw new WebhookVerificationError(err.message);
    throw new WebhookVerificationError(`The webhook could not be verified: ${(err as Error).message}`);
  }
}
