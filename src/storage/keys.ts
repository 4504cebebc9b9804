// Storage keys and their content types, shared by every storage driver and the media route.
//
// A key is `segment/segment/.../name.ext`: segments of `[A-Za-z0-9_-]`, one lowercase extension
// from MEDIA_TYPES (src/lib/media-types.ts) at the end, at most 256 characters. Nothing else (no dots inside segments,
// no `..`, no leading or doubled slash, no percent-escapes, no non-ASCII) so a key can never leave
// the storage root or the bucket prefix, and is already a safe URL path.
//
// The content type is a function of the extension: drivers store only bytes and derive the type
// on read, and `put` refuses a content type that disagrees with the key's extension. Callers pick
// the extension from the type with `extensionForContentType`.
import { MEDIA_TYPES as TYPES } from '../lib/media-types.ts';

/** Media type (lowercase, no parameters) → the extension keys use for it. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/ogg': 'ogg',
  'audio/mp4': 'm4a',
  'audio/flac': 'flac',
  'audio/aac': 'aac',
  'audio/pcm': 'pcm',
  'model/gltf-binary': 'glb',
  'application/json': 'json',
  'text/plain': 'txt',
  // Aliases that providers send for the same formats.
  'image/jpg': 'jpg',
  'image/pjpeg': 'jpg',
  'audio/mp3': 'mp3',
  'audio/mpeg3': 'mp3',
  'audio/x-mpeg': 'mp3',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/vnd.wave': 'wav',
  'audio/x-m4a': 'm4a',
  'audio/m4a': 'm4a',
  'audio/x-flac': 'flac',
  'application/ogg': 'ogg',
};

export const MAX_KEY_LENGTH = 256;

/** Cache-Control for stored objects: a key is written once and its bytes never change. */
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

const KEY = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*\.([a-z0-9]+)$/;

/** True when `key` is a well-formed storage key with a known extension. */
export function isValidStorageKey(key: unknown): key is string {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) return false;
  const ext = KEY.exec(key)?.[1];
  return ext !== undefined && Object.hasOwn(TYPES, ext);
}

/** The content type served for a key, or undefined when the key is not valid. */
export function contentTypeForKey(key: string): string | undefined {
  if (!isValidStorageKey(key)) return undefined;
  const ext = key.slice(key.lastIndexOf('.') + 1);
  return TYPES[ext];
}

/** The media type of a Content-Type value: lowercase, without parameters. */
function essence(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** The key extension (without the dot) for a content type, or undefined when it cannot be stored. */
export function extensionForContentType(contentType: string): string | undefined {
  const type = essence(contentType);
  return Object.hasOwn(EXTENSIONS, type) ? EXTENSIONS[type] : undefined;
}

/**
 * The content type to store for `key`, checked against what the caller says the bytes are.
 * Throws when the key is invalid or the type does not match its extension (`image/jpg` for
 * `x.jpeg` is fine, `image/png` for `x.jpg` is not).
 */
export function checkedContentType(key: string, contentType: string): string {
  const stored = contentTypeForKey(key);
  if (stored === undefined) throw new Error(`Invalid storage key: ${JSON.stringify(key.slice(0, 300))}`);
  const ext = extensionForContentType(contentType);
  const same = essence(contentType) === essence(stored);
  if (!same && (ext === undefined || essence(TYPES[ext] ?? '') !== essence(stored))) {
    throw new Error(`Content type ${JSON.stringify(contentType)} does not match storage key ${JSON.stringify(key)}`);
  }
  return stored;
}

/**
 * What the second segment of the key of a copy of a request's input media starts with:
 * `<generation_id>/input-<random>.<ext>` (weights: `<generation_id>/input-<random>/<name>.<ext>`).
 */
export const INPUT_FILE_PREFIX = 'input-';

/**
 * Whether a key is the copy of a request's input media: served only at a signed URL (the vendors'),
 * never at its plain one.
 */
export function isInputKey(key: string): boolean {
  return isValidStorageKey(key) && (key.split('/')[1] ?? '').startsWith(INPUT_FILE_PREFIX);
}

/**
 * The key behind `url` when it is `<prefix>/<valid key>` exactly (no query or fragment), else
 * undefined. `prefix` has no trailing slash.
 */
export function keyAfterPrefix(url: string, prefix: string): string | undefined {
  if (typeof url !== 'string' || !url.startsWith(`${prefix}/`)) return undefined;
  const key = url.slice(prefix.length + 1);
  return isValidStorageKey(key) ? key : undefined;
}

/** A URL prefix without trailing slashes. */
export function trimTrailingSlashes(value: string): string {
  return value.replace(/\/+$/, '');
}
