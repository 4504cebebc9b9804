// The copies of a request's input media. Every user URL a request names (a video to lip-sync, an
// image to edit, LoRA weights) is fetched once, when the request is accepted, into our storage
// under its generation: the request is priced and checked from that copy, refers to it from then
// on, and whatever serves it (a vendor, at a signed URL of ours; the simulator, from storage)
// reads those bytes. A server that answers a second fetch with other bytes cannot make the work
// differ from what was priced, and no vendor ever fetches a user's URL.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Deps } from '../app-types.ts';
import { invalidField, WorkError } from '../lib/errors.ts';
import { newId } from '../lib/ids.ts';
import { FetchFailedError, safeFetchStream, UnsafeUrlError } from '../lib/safe-fetch.ts';
import { extensionForContentType, INPUT_FILE_PREFIX, isInputKey } from '../storage/keys.ts';
import { readStored } from '../storage/read.ts';
import type { MediaSigner } from '../storage/signed-urls.ts';
import type { Storage } from '../storage/types.ts';
import type { GenerationPlan } from './types.ts';
import { MAX_MEDIA_BYTES } from './urls.ts';

/** Largest LoRA weights file copied from a user URL (streamed to storage, never held in memory). */
export const MAX_WEIGHTS_BYTES = 2 * 1024 * 1024 * 1024;
/** How long fetching a media file may take; weights get longer. */
const MEDIA_TIMEOUT_MS = 15_000;
const WEIGHTS_TIMEOUT_MS = 300_000;
/** Fields whose URL names LoRA weights (a `.safetensors` file, whatever its server calls it). */
const WEIGHTS_FIELD = /lora/i;

/** The content type of a media file by its first bytes, when it is one we keep. */
export function sniffMediaType(head: Buffer): string | undefined {
  const ascii = (start: number, end: number) => head.subarray(start, end).toString('latin1');
  if (head.length >= 8 && head.readUInt32BE(0) === 0x89504e47) return 'image/png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (ascii(0, 4) === 'GIF8') return 'image/gif';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'audio/wav';
  if (ascii(4, 8) === 'ftyp') {
    const brand = ascii(8, 12);
    if (brand === 'qt  ') return 'video/quicktime';
    if (brand.startsWith('M4A')) return 'audio/mp4';
    return 'video/mp4';
  }
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return 'video/webm';
  if (ascii(0, 4) === 'OggS') return 'audio/ogg';
  if (ascii(0, 4) === 'fLaC') return 'audio/flac';
  if (ascii(0, 4) === 'glTF') return 'model/gltf-binary';
  if (ascii(0, 3) === 'ID3') return 'audio/mpeg';
  if (head.length >= 2 && head[0] === 0xff && ((head[1] ?? 0) & 0xf6) === 0xf0) return 'audio/aac';
  if (head.length >= 2 && head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0) return 'audio/mpeg';
  return undefined;
}

/** The name of a weights file without its extension, as its URL ends in, in the characters keys allow. */
function weightsName(url: string): string {
  let name = '';
  try {
    name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  } catch {
    name = '';
  }
  const stem = name
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .slice(0, 100);
  return stem === '' ? 'weights' : stem;
}

/** Reads a stream's first `bytes` (or all of a shorter one) and gives back the whole stream. */
async function peek(body: Readable, bytes: number): Promise<{ head: Buffer; body: Readable }> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first: Buffer[] = [];
  let length = 0;
  let done = false;
  while (length < bytes) {
    const next = await chunks.next();
    if (next.done) {
      done = true;
      break;
    }
    first.push(next.value);
    length += next.value.length;
  }
  const head = Buffer.concat(first, length);
  async function* whole() {
    if (head.length > 0) yield head;
    if (done) return;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  return { head, body: Readable.from(whole(), { objectMode: false }) };
}

/** Why a fetch failed, for the API caller. */
function reasonOf(err: unknown): string | undefined {
  if (err instanceof UnsafeUrlError) return err.reason;
  if (err instanceof FetchFailedError || err instanceof WorkError) return err.message;
  return undefined;
}

/**
 * The copies of one request's input media, under the generation it will be (`generationId`, chosen
 * before the request is planned). Each user URL is fetched once however often it is named; our own
 * URLs (results of earlier generations) are used as they are, but never another request's input
 * copy (those are read only by the vendors of their own request). `discard` removes every copy of
 * a request that is not accepted, and every other file its plan wrote (`track`).
 */
export class InputCopies {
  readonly generationId: string;
  readonly #storage: Storage;
  readonly #signer: MediaSigner;
  readonly #allowPrivate: boolean;
  readonly #copies = new Map<string, Promise<string>>();
  readonly #keys: string[] = [];
  readonly #written: string[] = [];

  constructor(deps: Pick<Deps, 'storage' | 'config' | 'mediaSigner'>, generationId = newId('gen')) {
    this.generationId = generationId;
    this.#storage = deps.storage;
    this.#signer = deps.mediaSigner;
    this.#allowPrivate = deps.config.allowPrivateUrls;
  }

  /** The storage keys of the copies made (deleted with the generation's results). */
  get keys(): string[] {
    return [...this.#keys];
  }

  /**
   * Records a file the plan writes to storage for a record of its own (an influencer's pictures,
   * kept as long as that record, not the generation's retention): it is deleted when the request
   * is not accepted. Call before writing it.
   */
  track(key: string): void {
    this.#written.push(key);
  }

  /**
   * Our URL of the input at `url` (for `field`): its copy, fetched now under the outbound policy
   * and byte caps; our own URLs as they are. Throws WorkError when it cannot be fetched, is
   * not a kind of file we keep, or names an input copy that is not this request's.
   */
  copy(field: string, url: string): Promise<string> {
    const input = this.#inputKeyOf(url);
    if (input !== undefined) {
      if (this.#keys.includes(input)) return Promise.resolve(this.#storage.publicUrl(input));
      return Promise.reject(
        new WorkError('names the input file of another request, which only that request may use', false),
      );
    }
    if (this.#storage.keyFromUrl(url) !== undefined) return Promise.resolve(url);
    let copied = this.#copies.get(url);
    if (!copied) {
      copied = this.#fetch(field, url);
      this.#copies.set(url, copied);
    }
    return copied;
  }

  /** The input copy a URL of ours names (plain or signed, valid or not), if it names one. */
  #inputKeyOf(url: string): string | undefined {
    const bare = url.split(/[?#]/, 1)[0] ?? url;
    const key = this.#storage.keyFromUrl(bare) ?? this.#signer.keyOf(bare);
    return key !== undefined && isInputKey(key) ? key : undefined;
  }

  /** The bytes of an input as the request uses them (its copy's), read whole: media files only. */
  async read(field: string, url: string): Promise<Buffer> {
    const ours = await this.copy(field, url);
    const key = this.#storage.keyFromUrl(ours);
    const data = key === undefined ? undefined : await readStored(this.#storage, key);
    if (!data) throw new WorkError(`media not found: ${url}`, false);
    return data;
  }

  async #fetch(field: string, url: string): Promise<string> {
    const weights = WEIGHTS_FIELD.test(field);
    let fetched: Awaited<ReturnType<typeof safeFetchStream>>;
    try {
      fetched = await safeFetchStream(url, {
        allowPrivate: this.#allowPrivate,
        maxBytes: weights ? MAX_WEIGHTS_BYTES : MAX_MEDIA_BYTES,
        timeoutMs: weights ? WEIGHTS_TIMEOUT_MS : MEDIA_TIMEOUT_MS,
      });
    } catch (err) {
      const reason = reasonOf(err);
      if (reason === undefined) throw err;
      throw new WorkError(reason, false);
    }
    try {
      const { head, body } = await peek(fetched.body, 16);
      if (head.length === 0) throw new WorkError('the file is empty', false);
      const type = weights
        ? 'application/octet-stream'
        : (sniffMediaType(head) ?? (extensionForContentType(fetched.contentType) ? fetched.contentType : undefined));
      const extension = weights ? 'safetensors' : type && extensionForContentType(type);
      if (!type || !extension) {
        body.destroy();
        throw new WorkError(`not an image, video or audio file we take (${fetched.contentType || 'no type'})`, false);
      }
      // Weights keep their file name (ComfyUI loads a LoRA by the name its URL ends in).
      const copy = `${this.generationId}/${INPUT_FILE_PREFIX}${randomBytes(16).toString('hex')}`;
      const key = weights ? `${copy}/${weightsName(url)}.${extension}` : `${copy}.${extension}`;
      this.#keys.push(key);
      await this.#storage.putStream(key, body, type);
      return this.#storage.publicUrl(key);
    } catch (err) {
      fetched.body.destroy();
      const reason = reasonOf(err);
      if (reason === undefined) throw err;
      throw new WorkError(reason, false);
    }
  }

  /**
   * Copies every user URL the plan names (`plan.urls`) and answers the plan with our copies in
   * their place, wherever the request or an item's input holds one. A URL that cannot be copied
   * is a 400 naming its field.
   */
  async adopt(plan: GenerationPlan): Promise<GenerationPlan> {
    const ours = new Map<string, string>();
    const results = await Promise.allSettled(
      (plan.urls ?? []).map(async ({ field, url }) => {
        try {
          ours.set(url, await this.copy(field, url));
        } catch (err) {
          if (err instanceof WorkError) throw invalidField(field, `could not be copied (${err.message})`);
          throw err;
        }
      }),
    );
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (ours.size === 0) return plan;
    const swap = (value: unknown): unknown => {
      if (typeof value === 'string') return ours.get(value) ?? value;
      if (Array.isArray(value)) return value.map(swap);
      if (value !== null && typeof value === 'object') {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v)]));
      }
      return value;
    };
    return {
      ...plan,
      input: swap(plan.input) as Record<string, unknown>,
      items: plan.items.map((item) =>
        item.input ? { ...item, input: swap(item.input) as Record<string, unknown> } : item,
      ),
    };
  }

  /**
   * Removes every copy and every tracked file (a request that was not accepted), once the fetches
   * under way have ended.
   */
  async discard(): Promise<void> {
    await Promise.allSettled(this.#copies.values());
    const keys = [...this.#keys, ...this.#written];
    await Promise.all(keys.map((key) => this.#storage.delete(key).catch(() => undefined)));
    this.#keys.length = 0;
    this.#written.length = 0;
  }
}

/** What a plan is given: the service's dependencies, and the copies of the request's inputs. */
export type PlanDeps = Deps & { inputs: InputCopies };

/**
 * A vendor's request with every URL of an input copy (ours, not public) replaced by a signed URL
 * the vendor can read for a while; other values as they are.
 */
export function signInputUrls<T>(value: T, storage: Storage, signer: MediaSigner): T {
  const sign = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const key = storage.keyFromUrl(v);
      return key !== undefined && isInputKey(key) ? signer.sign(key) : v;
    }
    if (Array.isArray(v)) return v.map(sign);
    if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sign(x)]));
    }
    return v;
  };
  return sign(value) as T;
}
