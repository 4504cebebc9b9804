import { join } from 'node:path';
import { LocalStorage } from './local.ts';
import { S3Storage } from './s3.ts';
import type { Storage } from './types.ts';

export { contentTypeForKey, extensionForContentType, isValidStorageKey } from './keys.ts';
export { mediaRoutes } from './media-routes.ts';
export { RangeNotSatisfiableError } from './range.ts';
export type { Storage, StoredObject } from './types.ts';

export interface StorageConfig {
  driver: 'local' | 's3';
  /** Directory for the local driver, `<DATA_DIR>/media`. */
  localRoot: string;
  /** The service's public origin, e.g. `https://api.example.com` (no trailing slash needed). */
  publicBaseUrl: string;
  s3?: {
    /** S3_BUCKET (required for the s3 driver) */
    bucket?: string;
    /** S3_REGION */
    region: string;
    /** S3_ENDPOINT, for S3-compatible services */
    endpoint?: string;
    /** S3_FORCE_PATH_STYLE */
    forcePathStyle?: boolean;
    /** S3_ACCESS_KEY_ID; with the secret, or leave both out for the SDK's default credential chain */
    accessKeyId?: string;
    /** S3_SECRET_ACCESS_KEY */
    secretAccessKey?: string;
    /** S3_PREFIX, a folder inside the bucket */
    prefix?: string;
    /**
     * S3_PUBLIC_URL: a public bucket or CDN URL where `<publicUrl>/<key>` serves the object (the
     * prefix included). Without it, URLs point at the service's own `/media/` route, which reads
     * from the bucket.
     */
    publicUrl?: string;
  };
}

/** The storage the config asks for. */
export function createStorage(config: StorageConfig): Storage {
  const base = config.publicBaseUrl.replace(/\/+$/, '');
  if (config.driver === 'local') {
    return new LocalStorage({ root: config.localRoot, publicBaseUrl: base });
  }
  const s3 = config.s3;
  if (!s3?.bucket || !s3.region) throw new Error('STORAGE_DRIVER=s3 needs S3_BUCKET and S3_REGION');
  return new S3Storage({
    bucket: s3.bucket,
    region: s3.region,
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    ...(s3.forcePathStyle !== undefined ? { forcePathStyle: s3.forcePathStyle } : {}),
    ...(s3.accessKeyId ? { accessKeyId: s3.accessKeyId } : {}),
    ...(s3.secretAccessKey ? { secretAccessKey: s3.secretAccessKey } : {}),
    ...(s3.prefix ? { prefix: s3.prefix } : {}),
    publicUrlPrefix: s3.publicUrl ? s3.publicUrl.replace(/\/+$/, '') : `${base}/media`,
  });
}

/** `<dataDir>/media`, the local driver's conventional root. */
export function defaultLocalRoot(dataDir: string): string {
  return join(dataDir, 'media');
}
