import { randomBytes } from 'node:crypto';

// Crockford base32, lowercase: sortable, unambiguous, URL-safe.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** The prefixes of every id the service hands out (TypeID style: `<prefix>_<26 chars>`). */
export type IdPrefix =
  | 'team'
  | 'key'
  | 'cred'
  | 'ws'
  | 'led'
  | 'gen'
  | 'item'
  | 'inf'
  | 'voice'
  | 'trk'
  | 'whd'
  | 'req'
  | 'sb'
  | 'scene'
  | 'shot'
  | 'frame'
  | 'outf'
  | 'loc'
  | 'elem'
  | 'dp'
  | 'dpm'
  | 'chk'
  | 'proc'
  | 'aud';

/**
 * A new time-ordered id: 48 bits of milliseconds then 80 random bits, 26 base32 characters.
 * Ids made later sort after ids made earlier (to the millisecond).
 */
export function newId(prefix: IdPrefix): string {
  const bytes = randomBytes(16);
  const ms = BigInt(Date.now());
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  let value = 0n;
  for (const b of bytes) value = (value << 8n) | BigInt(b);
  let out = '';
  for (let i = 0; i < 26; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return `${prefix}_${out}`;
}

const ID_PATTERN = /^[a-z]{2,5}_[0-9a-hjkmnp-tv-z]{26}$/;

/** Whether a string has the shape of one of our ids (cheap check before any query). */
export function looksLikeId(value: string, prefix: IdPrefix): boolean {
  return value.startsWith(`${prefix}_`) && ID_PATTERN.test(value);
}
