import { createHash, randomBytes } from 'node:crypto';
import { chmod, type FileHandle, mkdir, open, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { checkedContentType, contentTypeForKey, keyAfterPrefix, trimTrailingSlashes } from './keys.ts';
import { RangeNotSatisfiableError, resolveRange } from './range.ts';
import type { RangeRequest, Storage, StoredObject } from './types.ts';

export interface LocalStorageOptions {
  /** Directory holding the files (the service passes `<DATA_DIR>/media`); created on first write. */
  root: string;
  /** The service's public origin, e.g. `https://api.example.com`; files are served under `/media/`. */
  publicBaseUrl: string;
}

/** Temporary files' names: this process's tag and a count. */
const TEMP_TAG = randomBytes(6).toString('hex');
let tempCount = 0;

/**
 * Files on the local disk, one per key, sharded: `<root>/~<aa>/<bb>/<key>`, where `aa` and `bb`
 * are the first two bytes (hex) of the SHA-256 of the key's first segment, so all files of one
 * generation stay together and no directory holds more than a few hundred entries however many
 * generations there are. The `~` keeps shard directories apart from every key (segments cannot
 * hold it). Files written before sharding, at `<root>/<key>`, are still read from there. Only bytes are stored: the content
 * type comes back from the key's extension (keys.ts), and `put` refuses a type that does not
 * match it. Writes go to a temporary file in the same directory and are renamed into place, so
 * a reader sees either no file or the whole file.
 */
export class LocalStorage implements Storage {
  readonly root: string;
  readonly #urlPrefix: string;
  /** Whether the process's umask takes bits of 0644 (known after the first write). */
  #umaskNarrows: boolean | undefined;

  constructor(options: LocalStorageOptions) {
    this.root = resolve(options.root);
    this.#urlPrefix = `${trimTrailingSlashes(options.publicBaseUrl)}/media`;
  }

  /** The file for a valid key; undefined for an invalid one (checked again after resolving). */
  #path(key: string, layout: 'sharded' | 'legacy' = 'sharded'): string | undefined {
    if (contentTypeForKey(key) === undefined) return undefined;
    const slash = key.indexOf('/');
    const hash = createHash('sha256')
      .update(slash < 0 ? key : key.slice(0, slash))
      .digest('hex');
    const path =
      layout === 'sharded'
        ? resolve(this.root, `~${hash.slice(0, 2)}`, hash.slice(2, 4), key)
        : resolve(this.root, key);
    return path.startsWith(this.root + sep) ? path : undefined;
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    // Opened, written, flushed to the disk and closed in one call: the fewest steps for a small file.
    await this.#write(key, contentType, (temp) => writeFile(temp, body, { flag: 'wx', mode: 0o644, flush: true }));
  }

  async putStream(key: string, body: Readable, contentType: string): Promise<{ size: number }> {
    let size = 0;
    await this.#write(key, contentType, async (temp) => {
      const file = await open(temp, 'wx', 0o644);
      try {
        // One chunk in memory at a time; the stream waits while the disk writes.
        for await (const chunk of body as AsyncIterable<Buffer>) {
          size += chunk.length;
          await file.write(chunk);
        }
        await file.sync();
      } finally {
        await file.close();
      }
    });
    return { size };
  }

  /**
   * Writes a file through `fill` (which creates `temp`, writes it and flushes it to the disk) in the
   * key's directory, then renames it into place: a reader sees no file or the whole file, and a
   * failed write leaves nothing.
   */
  async #write(key: string, contentType: string, fill: (temp: string) => Promise<unknown>): Promise<void> {
    checkedContentType(key, contentType);
    const path = this.#path(key);
    if (path === undefined) throw new Error(`Invalid storage key: ${JSON.stringify(key)}`);
    const dir = dirname(path);
    await mkdir(dir, { recursive: true });
    // A leading dot keeps temporary files out of the key space (segments cannot start with one);
    // the process's tag and a counter keep two writes apart.
    const temp = resolve(dir, `.${basename(path)}.${TEMP_TAG}${++tempCount}.tmp`);
    try {
      await fill(temp);
      await this.#exactMode(temp);
      await rename(temp, path);
    } catch (err) {
      await unlink(temp).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Files are exactly 0644, whatever the umask. Created with 0644, they are unless the umask takes
   * bits of it: the first file written shows whether it does, and only then is each one changed.
   */
  async #exactMode(temp: string): Promise<void> {
    this.#umaskNarrows ??= ((await stat(temp)).mode & 0o777) !== 0o644;
    if (this.#umaskNarrows) await chmod(temp, 0o644);
  }

  /** Opens the file of a key where it is: sharded, or where a version before sharding put it. */
  async #open(key: string): Promise<FileHandle | undefined> {
    for (const layout of ['sharded', 'legacy'] as const) {
      const path = this.#path(key, layout);
      if (path === undefined) return undefined;
      try {
        return await open(path, 'r');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EISDIR') throw err;
      }
    }
    return undefined;
  }

  async delete(key: string): Promise<void> {
    for (const layout of ['sharded', 'legacy'] as const) {
      const path = this.#path(key, layout);
      if (path === undefined) throw new Error(`Invalid storage key: ${JSON.stringify(key)}`);
      await unlink(path).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    }
  }

  async get(key: string, range?: RangeRequest): Promise<StoredObject | undefined> {
    const contentType = contentTypeForKey(key);
    if (contentType === undefined) return undefined;
    const file = await this.#open(key);
    if (file === undefined) return undefined;
    try {
      const stat = await file.stat();
      if (!stat.isFile()) {
        await file.close();
        return undefined;
      }
      const size = stat.size;
      if (range === undefined) {
        return { body: file.createReadStream(), contentType, size };
      }
      const bytes = resolveRange(range, size);
      if (bytes === undefined) throw new RangeNotSatisfiableError(size);
      return { body: file.createReadStream(bytes), contentType, size, range: bytes };
    } catch (err) {
      await file.close().catch(() => undefined);
      throw err;
    }
  }

  publicUrl(key: string): string {
    return `${this.#urlPrefix}/${key}`;
  }

  keyFromUrl(url: string): string | undefined {
    return keyAfterPrefix(url, this.#urlPrefix);
  }
}
