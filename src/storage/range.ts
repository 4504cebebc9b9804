import { Readable } from 'node:stream';
import type { ByteRange, RangeRequest, StoredObject } from './types.ts';

/** Thrown by `Storage.get` when the object exists but the asked range lies outside it. */
export class RangeNotSatisfiableError extends Error {
  /** Size of the whole object, for `Content-Range: bytes *\/<size>`. */
  readonly size: number;

  constructor(size: number) {
    super(`Range not satisfiable for an object of ${size} bytes`);
    this.name = 'RangeNotSatisfiableError';
    this.size = size;
  }
}

const SINGLE_RANGE = /^bytes[ \t]*=[ \t]*(\d*)[ \t]*-[ \t]*(\d*)[ \t]*$/i;

/**
 * Parses a Range header holding one byte range. Undefined means "serve the whole object":
 * no header, another unit, several ranges, or a malformed or inverted range (RFC 9110 lets a
 * server ignore those).
 */
export function parseRangeHeader(header: string | undefined): RangeRequest | undefined {
  if (header === undefined) return undefined;
  const m = SINGLE_RANGE.exec(header);
  if (!m) return undefined;
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    return Number.isSafeInteger(suffix) ? { suffix } : undefined;
  }
  const start = Number(first);
  if (!Number.isSafeInteger(start)) return undefined;
  if (last === '') return { start };
  const end = Number(last);
  if (!Number.isSafeInteger(end) || end < start) return undefined;
  return { start, end };
}

/** The bytes a range covers in an object of `size` bytes, or undefined when it is unsatisfiable. */
export function resolveRange(range: RangeRequest, size: number): ByteRange | undefined {
  if (size <= 0) return undefined;
  if ('suffix' in range) {
    if (range.suffix <= 0) return undefined;
    return { start: Math.max(0, size - range.suffix), end: size - 1 };
  }
  if (range.start >= size) return undefined;
  return { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) };
}

/** The value of an HTTP Range request header for a range. */
export function rangeHeaderValue(range: RangeRequest): string {
  return 'suffix' in range ? `bytes=-${range.suffix}` : `bytes=${range.start}-${range.end ?? ''}`;
}

/** An object held in memory, as `Storage.get` answers one (the bytes of `range` only, when asked). */
export function objectOfBytes(data: Buffer, contentType: string, range?: RangeRequest): StoredObject {
  const size = data.length;
  if (range === undefined) return { body: Readable.from([data]), contentType, size };
  const bytes = resolveRange(range, size);
  if (bytes === undefined) throw new RangeNotSatisfiableError(size);
  return { body: Readable.from([data.subarray(bytes.start, bytes.end + 1)]), contentType, size, range: bytes };
}
