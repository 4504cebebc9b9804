// Replicate signs its webhooks the Standard Webhooks way (the format of our own outgoing webhooks):
// `webhook-signature` holds `v1,<base64 HMAC-SHA256>` entries over `${id}.${timestamp}.${body}`,
// keyed with the base64 part of a `whsec_` secret.
import { timingSafeEqual } from 'node:crypto';
import { standardWebhookKey, standardWebhookMac } from '../../lib/standard-webhooks.ts';
import { WebhookRejectedError } from '../types.ts';

/** Replicate's webhook timestamps may be this far from our clock. */
export const WEBHOOK_TOLERANCE_S = 300;
// A signature that does not verify fetches the secret again (it may have been rotated), but no
// more often than this: forged webhooks must not turn into a stream of calls to Replicate.
const SECRET_REFRESH_MIN_MS = 60 * 1000;

/** Replicate's webhook signing secret (`whsec_…`): one set in the configuration, or Replicate's own. */
export interface SigningSecretSource {
  /** The current secret; `refresh` asks again where that can change anything (rate limited). */
  secret(refresh?: boolean): Promise<string>;
}

/** A secret given in the configuration (REPLICATE_WEBHOOK_SECRET): never refreshed. */
export function fixedSecret(secret: string): SigningSecretSource {
  return { secret: async () => secret };
}

/** The account's default secret, read with `load` once and cached; refreshed at most once a minute. */
export function cachedSecret(load: () => Promise<string>, now: () => number = Date.now): SigningSecretSource {
  let cached: { secret: string; at: number } | undefined;
  let pending: Promise<string> | undefined;
  const fetchOnce = (): Promise<string> => {
    pending ??= load()
      .then((secret) => {
        cached = { secret, at: now() };
        return secret;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  return {
    async secret(refresh = false) {
      if (cached && !(refresh && now() - cached.at >= SECRET_REFRESH_MIN_MS)) return cached.secret;
      return fetchOnce();
    },
  };
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string {
  const value = headers[name];
  const one = Array.isArray(value) ? value[0] : value;
  if (typeof one !== 'string' || one === '') throw new WebhookRejectedError(`Missing header ${name}`);
  return one;
}

/** The signed parts of a Standard Webhooks request, checked for presence and freshness. */
export interface SignedWebhook {
  id: string;
  timestamp: string;
  /** The `v1` signatures given, decoded. */
  signatures: Buffer[];
  body: Buffer;
}

/**
 * Reads the Standard Webhooks headers of a request and refuses it when one is missing, when its
 * timestamp is more than WEBHOOK_TOLERANCE_S from `nowMs`, or when it carries no `v1` signature.
 */
export function readSignedWebhook(
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
  nowMs: number,
): SignedWebhook {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatureHeader = header(headers, 'webhook-signature');
  if (!/^\d+$/.test(timestamp) || Math.abs(nowMs / 1000 - Number(timestamp)) > WEBHOOK_TOLERANCE_S) {
    throw new WebhookRejectedError('The webhook timestamp is missing or more than 300 s away');
  }
  // Other versions (`v1a`, asymmetric) may sit beside `v1`: only `v1` is ours to check.
  const signatures = signatureHeader
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice('v1,'.length), 'base64'));
  if (signatures.length === 0) throw new WebhookRejectedError('The webhook carries no v1 signature');
  return { id, timestamp, signatures, body: rawBody };
}

/** Whether one of the webhook's signatures is the HMAC of its content under `secret` (constant time). */
export function signedWith(webhook: SignedWebhook, secret: string): boolean {
  if (standardWebhookKey(secret).length === 0) {
    throw new WebhookRejectedError('The Replicate webhook signing secret is empty or not base64');
  }
  const expected = standardWebhookMac(secret, webhook.id, webhook.timestamp, webhook.body);
  return webhook.signatures.some(
    (signature) => signature.length === expected.length && timingSafeEqual(signature, expected),
  );
}

/**
 * Checks a Replicate webhook against the secret of `secrets` (fetched again once, when the cached
 * one does not match: it may have been rotated). Throws WebhookRejectedError when it is not genuine.
 */
export async function verifyReplicateSignature(
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
  secrets: SigningSecretSource,
  nowMs: number,
): Promise<void> {
  const webhook = readSignedWebhook(headers, rawBody, nowMs);
  try {
    if (signedWith(webhook, await secrets.secret())) return;
    if (signedWith(webhook, await secrets.secret(true))) return;
  } catch (err) {
    if (err instanceof WebhookRejectedError) throw err;
    throw new WebhookRejectedError(
      `Replicate’s webhook signing secret could not be read: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  throw new WebhookRejectedError('The webhook signature does not match Replicate’s signing secret');
}
