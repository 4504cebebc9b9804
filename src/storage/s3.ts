import { Readable } from 'node:stream';
import { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import {
  checkedContentType,
  contentTypeForKey,
  IMMUTABLE_CACHE_CONTROL,
  keyAfterPrefix,
  trimTrailingSlashes,
} from './keys.ts';
import { RangeNotSatisfiableError, rangeHeaderValue, resolveRange } from './range.ts';
import type { ByteRange, RangeRequest, Storage, StoredObject } from './types.ts';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** For S3-compatible services (MinIO, R2, ...), e.g. `http://127.0.0.1:9000`. */
  endpoint?: string;
  /** `https://endpoint/bucket/key` rather than `https://bucket.endpoint/key`. */
  forcePathStyle?: boolean;
  /** Both or neither; without them the SDK's default credential chain applies (IAM role, ...). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Folder inside the bucket, e.g. `genmedia/results`; object names are `<prefix>/<key>`. */
  prefix?: string;
  /**
   * What public URLs start with, without trailing slash: `publicUrl(key)` is
   * `<publicUrlPrefix>/<key>`. Either a public bucket or CDN URL that maps to the prefix, or the
   * service's own origin + `/media` when the service proxies reads through its media route.
   */
  publicUrlPrefix: string;
}

// S3 parts are 5 MiB at least (but the last); 8 MiB keeps a 1 GiB object at 128 parts.
const PART_BYTES = 8 * 1024 * 1024;

const PREFIX = /^[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*$/;

interface S3ErrorLike {
  name?: string;
  Code?: string;
  ActualObjectSize?: unknown;
  $metadata?: { httpStatusCode?: number };
}

function s3Error(err: unknown): S3ErrorLike {
  return typeof err === 'object' && err !== null ? (err as S3ErrorLike) : {};
}

function isNotFound(err: unknown): boolean {
  const e = s3Error(err);
  const name = e.name ?? e.Code;
  if (name === 'NoSuchKey' || name === 'NotFound') return true;
  // A missing bucket is a configuration error, not a missing object.
  return e.$metadata?.httpStatusCode === 404 && name !== 'NoSuchBucket';
}

function isInvalidRange(err: unknown): boolean {
  const e = s3Error(err);
  return e.name === 'InvalidRange' || e.$metadata?.httpStatusCode === 416;
}

/** `bytes 0-9/100` → the range and total size. */
function parseContentRange(value: string | undefined): { range: ByteRange; size: number } | undefined {
  const m = value === undefined ? null : /^bytes (\d+)-(\d+)\/(\d+)$/.exec(value.trim());
  if (!m) return undefined;
  const [start, end, size] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return { range: { start, end }, size };
}

function toReadable(body: unknown): Readable {
  if (body instanceof Readable) return body;
  if (body instanceof WebReadableStream) return Readable.fromWeb(body);
  throw new Error('Unexpected S3 response body type');
}

/**
 * Objects in an S3 (or S3-compatible) bucket at `<prefix>/<key>`. The content type is derived
 * from the key's extension like for local storage, and is also set on the object so a public
 * bucket or CDN serves it right; objects are uploaded as immutable for caches.
 */
export class S3Storage implements Storage {
  readonly client: S3Client;
  readonly bucket: string;
  readonly #prefix: string;
  readonly #urlPrefix: string;

  constructor(options: S3StorageOptions) {
    if (!options.bucket) throw new Error('S3 storage needs a bucket');
    if (!options.region) throw new Error('S3 storage needs a region');
    if (Boolean(options.accessKeyId) !== Boolean(options.secretAccessKey)) {
      throw new Error('S3 storage needs both an access key id and a secret access key, or neither');
    }
    const prefix = trimTrailingSlashes(options.prefix ?? '').replace(/^\/+/, '');
    if (prefix !== '' && (!PREFIX.test(prefix) || prefix.split('/').some((s) => s === '.' || s === '..'))) {
      throw new Error(`Invalid S3 key prefix: ${JSON.stringify(options.prefix)}`);
    }
    this.bucket = options.bucket;
    this.#prefix = prefix === '' ? '' : `${prefix}/`;
    this.#urlPrefix = trimTrailingSlashes(options.publicUrlPrefix);
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? false,
      ...(options.accessKeyId && options.secretAccessKey
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
      // Only the checksums S3 requires: several S3-compatible services reject or mangle the
      // optional CRC headers newer SDKs add by default.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  #objectKey(key: string): string {
    return this.#prefix + key;
  }

  async delete(key: string): Promise<void> {
    if (contentTypeForKey(key) === undefined) throw new Error(`Invalid storage key: ${JSON.stringify(key)}`);
    // S3 answers a delete of a missing object with success.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.#objectKey(key) }));
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    const type = checkedContentType(key, contentType);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.#objectKey(key),
        Body: body,
        ContentLength: body.length,
        ContentType: type,
        CacheControl: IMMUTABLE_CACHE_CONTROL,
      }),
    );
  }

  async putStream(key: string, body: Readable, contentType: string): Promise<{ size: number }> {
    const type = checkedContentType(key, contentType);
    const Key = this.#objectKey(key);
    const common = { Bucket: this.bucket, Key };
    // Parts of PART_BYTES are read and sent one at a time: memory stays at one part whatever the
    // size. An object that fits in one part is a plain PutObject.
    let buffered: Buffer[] = [];
    let bufferedBytes = 0;
    let size = 0;
    let uploadId: string | undefined;
    const parts: Array<{ ETag: string | undefined; PartNumber: number }> = [];
    const sendPart = async () => {
      const part = Buffer.concat(buffered, bufferedBytes);
      buffered = [];
      bufferedBytes = 0;
      if (uploadId === undefined) {
        const created = await this.client.send(
          new CreateMultipartUploadCommand({ ...common, ContentType: type, CacheControl: IMMUTABLE_CACHE_CONTROL }),
        );
        uploadId = created.UploadId;
        if (!uploadId) throw new Error('S3 started a multipart upload without an UploadId');
      }
      const PartNumber = parts.length + 1;
      const sent = await this.client.send(
        new UploadPartCommand({ ...common, UploadId: uploadId, PartNumber, Body: part, ContentLength: part.length }),
      );
      parts.push({ ETag: sent.ETag, PartNumber });
    };
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        buffered.push(chunk);
        bufferedBytes += chunk.length;
        size += chunk.length;
        if (bufferedBytes >= PART_BYTES) await sendPart();
      }
      if (uploadId === undefined) {
        await this.put(key, Buffer.concat(buffered, bufferedBytes), contentType);
        return { size };
      }
      if (bufferedBytes > 0) await sendPart();
      await this.client.send(
        new CompleteMultipartUploadCommand({ ...common, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
      );
      return { size };
    } catch (err) {
      if (uploadId !== undefined) {
        await this.client
          .send(new AbortMultipartUploadCommand({ ...common, UploadId: uploadId }))
          .catch(() => undefined);
      }
      throw err;
    }
  }

  async get(key: string, range?: RangeRequest): Promise<StoredObject | undefined> {
    const contentType = contentTypeForKey(key);
    if (contentType === undefined) return undefined;
    let res = await this.#getObject(key, range);
    if (res === undefined) return undefined;
    let parsed = range ? parseContentRange(res.ContentRange) : undefined;
    if (range && parsed) {
      // Some S3-compatible services answer another range than the one asked (s3rver reads
      // `bytes=-N` as `bytes=0-N`): the bytes asked for are then asked again by their bounds,
      // and what that answers is served as its Content-Range says.
      const wanted = resolveRange(range, parsed.size);
      if (wanted === undefined) {
        toReadable(res.Body).destroy();
        throw new RangeNotSatisfiableError(parsed.size);
      }
      if (wanted.start !== parsed.range.start || wanted.end !== parsed.range.end) {
        toReadable(res.Body).destroy();
        res = await this.#getObject(key, wanted);
        if (res === undefined) return undefined;
        parsed = parseContentRange(res.ContentRange);
      }
    }
    const body = toReadable(res.Body);
    if (parsed) return { body, contentType, size: parsed.size, range: parsed.range };
    // No range asked, or the service ignored it and sent the whole object.
    const size = res.ContentLength;
    if (size === undefined) {
      body.destroy();
      throw new Error('S3 response without Content-Length');
    }
    return { body, contentType, size };
  }

  /** GetObject; undefined when the object is missing, RangeNotSatisfiableError when the range lies outside it. */
  async #getObject(key: string, range: RangeRequest | undefined): Promise<GetObjectCommandOutput | undefined> {
    try {
      return await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.#objectKey(key),
          ...(range ? { Range: rangeHeaderValue(range) } : {}),
        }),
      );
    } catch (err) {
      if (isNotFound(err)) return undefined;
      if (range && isInvalidRange(err)) {
        const size = await this.#sizeAfterInvalidRange(key, err);
        if (size === undefined) return undefined;
        throw new RangeNotSatisfiableError(size);
      }
      throw err;
    }
  }

  /** The object size behind an InvalidRange error: from the error body, else a HEAD request. */
  async #sizeAfterInvalidRange(key: string, err: unknown): Promise<number | undefined> {
    const reported = Number(s3Error(err).ActualObjectSize);
    if (s3Error(err).ActualObjectSize !== undefined && Number.isSafeInteger(reported)) return reported;
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.#objectKey(key) }));
      return head.ContentLength ?? 0;
    } catch (headErr) {
      if (isNotFound(headErr)) return undefined;
      throw headErr;
    }
  }

  publicUrl(key: string): string {
    return `${this.#urlPrefix}/${key}`;
  }

  keyFromUrl(url: string): string | undefined {
    return keyAfterPrefix(url, this.#urlPrefix);
  }

  /** Closes the client's idle connections. */
  destroy(): void {
    this.client.destroy();
  }
}
