import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { type Fetch, WebhookRejectedError } from '../types.ts';

/** fal's webhook timestamps may be this far from our clock. */
export const WEBHOOK_TOLERANCE_S = 300;
// How long fetched signing keys are trusted; an unknown signature refreshes them sooner.
const JWKS_TTL_MS = 24 * 3600 * 1000;
const JWKS_REFRESH_MIN_MS = 60 * 1000;

/** fal's webhook signing keys, fetched from its JWKS and cached. */
export interface JwksSource {
  /** The current keys; `refresh` asks the publisher again (rate limited). */
  keys(refresh?: boolean): Promise<KeyObject[]>;
}

/** A cached JWKS at `url` (Ed25519 `OKP` keys only), fetched with `fetch`. */
export function jwksFromUrl(url: string, fetch: Fetch, now: () => number = Date.now): JwksSource {
  let cached: { keys: KeyObject[]; at: number } | undefined;
  let pending: Promise<KeyObject[]> | undefined;
  const load = async (): Promise<KeyObject[]> => {
    const response = await fetch(url, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`the JWKS at ${url} answered HTTP ${response.status}`);
    const body = (await response.json()) as { keys?: Array<Record<string, unknown>> };
    const keys: KeyObject[] = [];
    for (const jwk of body.keys ?? []) {
      if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') continue;
      keys.push(createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }));
    }
    if (keys.length === 0) throw new Error(`the JWKS at ${url} holds no Ed25519 key`);
    cached = { keys, at: now() };
    return keys;
  };
  return {
    async keys(refresh = false) {
      const age = cached ? now() - cached.at : Number.POSITIVE_INFINITY;
      if (cached && age < JWKS_TTL_MS && !(refresh && age >= JWKS_REFRESH_MIN_MS)) return cached.keys;
      pending ??= load().finally(() => {
        pending = undefined;
      });
      return pending;
    },
  };
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string {
  const value = headers[name];
  const one = Array.isArray(value) ? value[0] : value;
  if (typeof one !== 'string' || one === '') throw new WebhookRejectedError(`Missing header ${name}`);
  return one;
}

/**
 * Checks a fal webhook: an Ed25519 signature (hex, `x-fal-webhook-signature`) by one of fal's
 * published keys over `request_id\nuser_id\ntimestamp\nhex(sha256(body))`, made within
 * WEBHOOK_TOLERANCE_S of `nowMs`. Returns the request id; throws WebhookRejectedError otherwise.
 */
export async function verifyFalSignature(
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
  jwks: JwksSource,
  nowMs: number,
): Promise<string> {
  const requestId = header(headers, 'x-fal-webhook-request-id');
  const userId = header(headers, 'x-fal-webhook-user-id');
  const timestamp = header(headers, 'x-fal-webhook-timestamp');
  const signatureHex = header(headers, 'x-fal-webhook-signature');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowMs / 1000 - seconds) > WEBHOOK_TOLERANCE_S) {
    throw new WebhookRejectedError('The webhook timestamp is missing or more than 300 s away');
  }
  if (!/^([0-9a-f]{2})+$/i.test(signatureHex)) throw new WebhookRejectedError('The webhook signature is not hex');
  const signature = Buffer.from(signatureHex, 'hex');
  const digest = createHash('sha256').update(rawBody).digest('hex');
  const message = Buffer.from(`${requestId}\n${userId}\n${timestamp}\n${digest}`, 'utf8');
  const matches = (keys: KeyObject[]) => keys.some((key) => verify(null, message, key, signature));
  let keys: KeyObject[];
  try {
    keys = await jwks.keys();
    if (!matches(keys) && !matches(await jwks.keys(true))) {
      throw new WebhookRejectedError('The webhook signature does not match any of fal.ai’s keys');
    }
  } catch (err) {
    if (err instanceof WebhookRejectedError) throw err;
    throw new WebhookRejectedError(
      `fal.ai’s signing keys could not be read: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return requestId;
}
