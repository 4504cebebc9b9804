// Secrets the service must read back (a team's webhook signing secret: an HMAC needs the key itself)
// are kept encrypted at rest: AES-256-GCM under a key derived from SECRETS_KEY, or from ADMIN_TOKEN
// when that is not set. A sealed value is `enc:v1:` and the base64url of IV, tag and ciphertext; a
// value without the prefix (written before encryption) reads as it is.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  /** The stored form of a secret. */
  seal(plain: string): string;
  /** The secret of a stored form (a value stored before encryption comes back as it is). */
  open(stored: string): string;
  /** Whether a stored value is sealed. */
  isSealed(stored: string): boolean;
  /**
   * A credential for `value` that only this service can make (base64url HMAC-SHA256 under a key of
   * its own, derived from the same material): `purpose` keeps credentials of different uses apart.
   */
  mac(purpose: string, value: string): string;
}

/** Whether `presented` is the credential `expected` (constant time). */
export function macMatches(expected: string, presented: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A box under the key derived from `material` (SECRETS_KEY, or ADMIN_TOKEN). */
export function createSecretBox(material: string): SecretBox {
  if (material.length < 16) throw new Error('The key material for stored secrets must be at least 16 characters');
  const key = Buffer.from(hkdfSync('sha256', material, 'genmedia', 'stored secrets v1', 32));
  const macKey = Buffer.from(hkdfSync('sha256', material, 'genmedia', 'credentials v1', 32));
  return {
    mac: (purpose, value) => createHmac('sha256', macKey).update(`${purpose}\n${value}`).digest('base64url'),
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new Error(
          'A stored secret cannot be decrypted: SECRETS_KEY (or ADMIN_TOKEN, when SECRETS_KEY is not set) is not the one it was stored under',
        );
      }
    },
    isSealed: (stored) => stored.startsWith(PREFIX),
  };
}
