import { randomFillSync } from 'node:crypto';

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

// Random bytes are drawn from the system's generator a pool at a time (a request makes several ids
// and tokens: one call into it each cost more than the rest of making them). Each byte is handed out once.
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;

/** `size` (at most 4096) random bytes of their own, from the pool. */
export function pooledRandomBytes(size: number): Buffer {
  if (poolAt + size > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  const bytes = Buffer.from(POOL.subarray(poolAt, poolAt + size));
  poolAt += size;
  return bytes;
}

/**
 * A new time-ordered id: 48 bits of milliseconds then 80 random bits, 26 base32 characters.
 * Ids made later sort after ids made earlier (to the millisecond).
 */
export function newId(prefix: IdPrefix): string {
  const bytes = pooledRandomBytes(16);
  let ms = Date.now();
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  return `${prefix}_${base32(bytes)}`;
}

/** 16 bytes as a big-endian 128-bit number in 26 base32 digits (the first holds the top 3 bits). */
function base32(bytes: Buffer): string {
  let out = '';
  for (let digit = 25; digit >= 0; digit--) {
    const bit = digit * 5;
    const at = 15 - (bit >> 3);
    const shift = bit & 7;
    let value = (bytes[at] as number) >> shift;
    if (shift > 3 && at > 0) value |= (bytes[at - 1] as number) << (8 - shift);
    out += ALPHABET[value & 31];
  }
  return out;
}

const ID_PATTERN = /^[a-z]{2,5}_[0-9a-hjkmnp-tv-z]{26}$/;

/** Whether a string has the shape of one of our ids (cheap check before any query). */
export function looksLikeId(value: string, prefix: IdPrefix): boolean {
  return value.startsWith(`${prefix}_`) && ID_PATTERN.test(value);
}
