// A real S3 implementation for the tests: s3rver (npm), started on 127.0.0.1 at a random port
// with its objects in a temporary folder and one bucket, addressed path-style. It keeps objects
// on disk as S3 would (metadata, multipart uploads joined from their parts) and accepts anonymous
// GET and HEAD, so it also stands for a public bucket behind S3_PUBLIC_URL. It takes any SigV4
// signature by the access key `S3RVER` without checking it.
//
// What it does not do (the hand-written fake in fakes/s3.ts stays for these): AbortMultipartUpload
// answers 405, and a suffix range (`bytes=-N`) is read as `bytes=0-N`.
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

interface S3rverObject {
  content: Readable | null;
  metadata: Record<string, string>;
}

interface S3rverStore {
  existsObject(bucket: string, key: string): Promise<boolean>;
  getObject(bucket: string, key: string): Promise<S3rverObject | null>;
  listObjects(bucket: string, options: { prefix?: string }): Promise<{ objects: Array<{ key: string }> }>;
}

interface S3rverInstance {
  store: S3rverStore;
  httpServer: Server;
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}

type S3rverClass = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: Array<{ name: string }>;
}) => S3rverInstance;

const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

export interface StoredS3Object {
  body: Buffer;
  contentType: string | undefined;
  cacheControl: string | undefined;
}

export interface S3rverServer {
  /** The endpoint, `http://127.0.0.1:<port>` (S3_ENDPOINT). */
  url: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Every request it received, in order: method, path and query (as sent). */
  requests: Array<{ method: string; path: string; query: string }>;
  /** The settings that point the service at this bucket, path-style (no S3_PUBLIC_URL). */
  env(extra?: Record<string, string>): Record<string, string>;
  /** The keys of the objects in the bucket (under `prefix`, when given), sorted. */
  keys(prefix?: string): Promise<string[]>;
  /** Whether the bucket holds the object, as s3rver's store says. */
  has(key: string): Promise<boolean>;
  /** The object as s3rver stored it: its bytes and the headers kept with it. */
  object(key: string): Promise<StoredS3Object | undefined>;
  close(): Promise<void>;
}

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts s3rver on 127.0.0.1 holding one empty bucket, `bucket`; `close()` stops it and removes its folder. */
export async function startS3rver(bucket = 'results'): Promise<S3rverServer> {
  const directory = await mkdtemp(join(tmpdir(), 'genmedia-s3rver-'));
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await s3.run();
  const requests: S3rverServer['requests'] = [];
  s3.httpServer.prependListener('request', (req) => {
    const url = new URL(req.url ?? '/', 'http://s3rver');
    requests.push({ method: req.method ?? '', path: decodeURIComponent(url.pathname), query: url.search });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    requests,
    env: (extra = {}) => ({
      STORAGE_DRIVER: 's3',
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ENDPOINT: url,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      ...extra,
    }),
    keys: async (prefix = '') => (await s3.store.listObjects(bucket, { prefix })).objects.map((o) => o.key).sort(),
    has: (key) => s3.store.existsObject(bucket, key),
    object: async (key) => {
      const found = await s3.store.getObject(bucket, key);
      if (!found?.content) return undefined;
      return {
        body: await readAll(found.content),
        contentType: found.metadata['content-type'],
        cacheControl: found.metadata['cache-control'],
      };
    },
    close: async () => {
      s3.httpServer.closeAllConnections();
      await s3.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
