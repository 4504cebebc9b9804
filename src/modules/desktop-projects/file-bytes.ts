// A file read as the structure checks read a Buffer (media-structure.ts), without holding it in
// memory: an uploaded video of 200 MiB is walked box by box, page by page, from a temporary file.
// Only what the checks use is there: `length`, byte indexing, the integer readers, `toString` and
// `subarray` of a range (copied out of the file). Reads go through one cached page.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const PAGE_BYTES = 64 * 1024;

/** An open file seen as a read-only Buffer; `close()` releases it. */
export interface FileBytes {
  bytes: Buffer;
  close(): void;
}

/** Opens `path` as a Buffer-shaped view of its bytes (for the structure checks only). */
export function openFileBytes(path: string): FileBytes {
  const fd = openSync(path, 'r');
  const length = fstatSync(fd).size;
  const page = Buffer.alloc(PAGE_BYTES);
  let pageStart = -1;
  let pageLength = 0;

  const byte = (pos: number): number | undefined => {
    if (!Number.isInteger(pos) || pos < 0 || pos >= length) return undefined;
    if (pageStart < 0 || pos < pageStart || pos >= pageStart + pageLength) {
      pageStart = pos - (pos % PAGE_BYTES);
      pageLength = readSync(fd, page, 0, PAGE_BYTES, pageStart);
    }
    return page[pos - pageStart];
  };
  /** The bytes of [start, end) within the file, as a Buffer of their own. */
  const range = (start = 0, end = length): Buffer => {
    const from = Math.max(0, Math.min(length, start));
    const to = Math.max(from, Math.min(length, end));
    const out = Buffer.alloc(to - from);
    let done = 0;
    while (done < out.length) {
      const n = readSync(fd, out, done, out.length - done, from + done);
      if (n === 0) break;
      done += n;
    }
    return out;
  };
  // Integer readers read their few bytes as a Buffer would (a read past the end throws alike).
  const view = {
    length,
    readUInt32BE: (pos: number) => range(pos, pos + 4).readUInt32BE(0),
    readUInt32LE: (pos: number) => range(pos, pos + 4).readUInt32LE(0),
    readUInt16BE: (pos: number) => range(pos, pos + 2).readUInt16BE(0),
    readBigUInt64BE: (pos: number) => range(pos, pos + 8).readBigUInt64BE(0),
    readUIntBE: (pos: number, n: number) => range(pos, pos + n).readUIntBE(0, n),
    toString: (encoding: BufferEncoding = 'utf8', start?: number, end?: number) => range(start, end).toString(encoding),
    subarray: (start?: number, end?: number) => range(start, end),
    indexOf: (value: number, from = 0) => {
      for (let pos = Math.max(0, from); pos < length; pos++) if (byte(pos) === value) return pos;
      return -1;
    },
  };
  const bytes = new Proxy(view, {
    get(target, property) {
      if (typeof property === 'string' && /^\d+$/.test(property)) return byte(Number(property));
      return target[property as keyof typeof target];
    },
  }) as unknown as Buffer;
  return { bytes, close: () => closeSync(fd) };
}
