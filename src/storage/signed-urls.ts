// Signed URLs of stored files that are not public: the copies of a request's input media, which
// the vendors that run it are given and nobody else. A URL is `<PUBLIC_BASE_URL>/media/<key>` with
// `expires` (unix seconds) and `signature` (the service's credential, SecretBox.mac, for the key
// and the expiry: the same in every process of a deployment); the media route serves such a key
// only with a valid, unexpired signature.
import { macMatches, type SecretBox } from '../lib/secret-box.ts';
import { keyAfterPrefix, trimTrailingSlashes } from './keys.ts';

/** What keeps these signatures apart from the service's other credentials. */
const PURPOSE = 'signed-media';

export interface MediaSigner {
  /** A URL of ours where `key` can be read until `ttlSeconds` from `now`. */
  sign(key: string, now?: Date): string;
  /** Whether `expires` and `signature` (a signed URL's query) are valid for `key` at `now`. */
  verify(key: string, expires: unknown, signature: unknown, now?: Date): boolean;
  /** The key a URL at this signer's base names (its query, signed or not, aside), if any. */
  keyOf(url: string): string | undefined;
}

/** A signer under the service's secrets (SECRETS_KEY, else ADMIN_TOKEN). */
export function createMediaSigner(secrets: SecretBox, publicBaseUrl: string, ttlSeconds: number): MediaSigner {
  const base = `${trimTrailingSlashes(publicBaseUrl)}/media`;
  const mac = (key: string, expires: number) => secrets.mac(PURPOSE, `${key}\n${expires}`);
  return {
    sign(key, now = new Date()) {
      const expires = Math.floor(now.getTime() / 1000) + ttlSeconds;
      return `${base}/${key}?expires=${expires}&signature=${mac(key, expires)}`;
    },
    verify(key, expires, signature, now = new Date()) {
      if (typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires)) return false;
      const at = Number(expires);
      if (at * 1000 <= now.getTime()) return false;
      return macMatches(mac(key, at), signature);
    },
    keyOf: (url) => keyAfterPrefix(url.split(/[?#]/, 1)[0] ?? url, base),
  };
}
