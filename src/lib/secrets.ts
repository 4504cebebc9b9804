import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const API_KEY_PATTERN = /^gms_[A-Za-z0-9_-]{40}$/;

export interface NewApiKey {
  key: string;
  prefix: string;
  hash: Buffer;
}

/** A new API key: `gms_` and 240 random bits. Only its hash and a short prefix are stored. */
export function generateApiKey(): NewApiKey {
  const key = `gms_${randomBytes(30).toString('base64url')}`;
  return { key, prefix: key.slice(0, 12), hash: hashApiKey(key) };
}

/** Whether a string has the exact shape of an API key (checked before any hashing or query). */
export function isWellFormedApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** A new admin token: `gma_` and 240 random bits. */
export function generateAdminToken(): string {
  return `gma_${randomBytes(30).toString('base64url')}`;
}

/** A Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Compares two secrets in constant time (by their SHA-256, so lengths may differ). */
export function secretsEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
