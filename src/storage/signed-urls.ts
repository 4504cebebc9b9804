// Signed URLs of stored files that are not public: the copies of a request's input media, which
// the vendors that run it are given and nobody else. A URL is `<PUBLIC_BASE_URL>/media/<key>` with
// `expires` (unix seconds) and `signature` (HMAC-SHA256 of the key and the expiry, under a key
// derived from the service's secrets key); the media route serves such a key only with a valid,
// unexpired signature.
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { trimTrailingSlashes } from './keys.ts';

export interface MediaSigner {
  /** A URL of ours where `key` can be read until `ttlSeconds` from `now`. */
  sign(key: string, now?: Date): string;
  /** Whether `expires` and `signature` (a signed URL's query) are valid for `key` at `now`. */
  verify(key: string, expires: unknown, signature: unknown, now?: Date): boolean;
}

/**
 * A signer under a key derived from `material` (SECRETS_KEY, else ADMIN_TOKEN: the same in every
 * process of a deployment); without one, a random key of this process.
 */
export function createMediaSigner(
  material: string | undefined,
  publicBaseUrl: string,
  ttlSeconds: number,
): MediaSigner {
  const secret = material
    ? Buffer.from(hkdfSync('sha256', material, 'genmedia', 'signed media urls v1', 32))
    : randomBytes(32);
  const base = `${trimTrailingSlashes(publicBaseUrl)}/media`;
  const mac = (key: string, expires: number) =>
    createHmac('sha256', secret).update(`${key}\n${expires}`).digest('base64url');
  return {
    sign(key, now = new Date()) {
      const expires = Math.floor(now.getTime() / 1000) + ttlSeconds;
      return `${base}/${key}?expires=${expires}&signature=${mac(key, expires)}`;
    },
    verify(key, expires, signature, now = new Date()) {
      if (typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires)) return false;
      const at = Number(expires);
      if (at * 1000 <= now.getTime()) return false;
      const expected = Buffer.from(mac(key, at));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
