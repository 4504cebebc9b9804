import type { Readable } from 'node:stream';

/**
 * One byte range as a client asks for it: `bytes=a-b` is `{ start: a, end: b }`, `bytes=a-` is
 * `{ start: a }`, `bytes=-n` (the last n bytes) is `{ suffix: n }`. Ends are inclusive.
 */
export type RangeRequest = { start: number; end?: number } | { suffix: number };

/** A satisfied range, inclusive on both ends. */
export interface ByteRange {
  start: number;
  end: number;
}

/** A stored object as read back. */
export interface StoredObject {
  /** The whole object, or only the bytes of `range` when a range was asked for. */
  body: Readable;
  /** Derived from the key's extension (see keys.ts). */
  contentType: string;
  /** Size of the whole object in bytes (not of the range). */
  size: number;
  /** Set when a range was asked for and honoured; the body then holds `end - start + 1` bytes. */
  range?: ByteRange;
}

/**
 * Where result files live. Keys are chosen by the caller (`<generation_id>/<random>.png`) and
 * contain an unguessable random part; a key is written once and never changes. Keys must pass
 * `isValidStorageKey` (keys.ts) and their extension decides the content type.
 */
export interface Storage {
  /**
   * Stores bytes under a key; overwriting the same key with the same bytes is harmless. Throws
   * when the key is invalid or `contentType` does not match the key's extension.
   */
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /**
   * Stores a stream under a key without holding it in memory (a vendor's result of any size);
   * the object appears whole or not at all. Resolves with the bytes stored; rejects with the
   * stream's own error (e.g. a size cap it enforces), storing nothing.
   */
  putStream(key: string, body: Readable, contentType: string): Promise<{ size: number }>;
  /**
   * Reads an object, or one range of it; undefined when there is none or the key is invalid.
   * Throws `RangeNotSatisfiableError` (range.ts) when the object exists but the range is outside it.
   */
  get(key: string, range?: RangeRequest): Promise<StoredObject | undefined>;
  /** Removes an object (media past its retention); removing one that is not there is not an error. */
  delete(key: string): Promise<void>;
  /** The public URL clients use for a key. */
  publicUrl(key: string): string;
  /** The key behind one of our own public URLs, or undefined for any other URL. */
  keyFromUrl(url: string): string | undefined;
}
