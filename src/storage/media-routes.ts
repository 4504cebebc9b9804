import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { contentTypeForKey, IMMUTABLE_CACHE_CONTROL, isInputKey, isValidStorageKey } from './keys.ts';
import { objectOfBytes, parseRangeHeader, RangeNotSatisfiableError } from './range.ts';
import type { MediaSigner } from './signed-urls.ts';
import type { RangeRequest, Storage, StoredObject } from './types.ts';

const NOT_FOUND = { error: { code: 'not_found', message: 'Media not found' } } as const;
const NOT_SIGNED = {
  error: {
    code: 'forbidden',
    message: 'This file is served only at the signed URL its vendor was given; this URL is not signed, or has expired',
  },
} as const;
const GONE = {
  error: { code: 'gone', message: 'This file was deleted when its retention period ended (see expires_at)' },
} as const;

/** Keys never change, so the key alone identifies the bytes. */
export function etagForKey(key: string): string {
  return `"${createHash('sha256').update(key).digest('base64url').slice(0, 27)}"`;
}

/** If-None-Match holds our tag (weak comparison) or `*`. */
function noneMatchHits(header: string, etag: string): boolean {
  return header.split(',').some((raw) => {
    const tag = raw.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function notFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).header('cache-control', 'no-store').send(NOT_FOUND);
}

/**
 * Serves stored result files at `GET|HEAD /media/<key>`: the service's own public URLs for local
 * storage, and for S3 when no public bucket URL is configured; and, whatever the storage, the
 * results kept elsewhere (`kept`: text results in their items' records). Public (keys are
 * unguessable), cacheable forever, with single byte ranges for video seeking.
 *
 * A file deleted at the end of its retention answers 410 `gone`. The copies of a request's input
 * media (`<generation>/input-…`) are not public: they are served only at a signed URL that has not
 * expired (signed-urls.ts), uncached; any other URL of theirs answers 403.
 *
 * HEAD is registered explicitly rather than left to `exposeHeadRoutes`, whose generated route
 * would read the whole object only to throw it away.
 */
export async function mediaRoutes(
  app: FastifyInstance,
  opts: {
    storage: Storage;
    /** Checks the signed URLs of input copies; without it they are never served. */
    signer?: MediaSigner;
    /** Whether a key's file was deleted at the end of its retention (then 410 instead of 404). */
    expired?: (key: string) => Promise<boolean>;
    /** The bytes of a key kept elsewhere than in the storage (a text result in its item's record). */
    kept?: (key: string) => Promise<Buffer | undefined>;
  },
): Promise<void> {
  const { storage, signer, expired, kept } = opts;
  /** The object at `key`: in the storage, else kept elsewhere (never an input copy). */
  const find = async (key: string, range: RangeRequest | undefined): Promise<StoredObject | undefined> => {
    const stored = await storage.get(key, range);
    if (stored || !kept || isInputKey(key)) return stored;
    const data = await kept(key);
    const contentType = contentTypeForKey(key);
    return data && contentType ? objectOfBytes(data, contentType, range) : undefined;
  };

  app.route({
    method: ['GET', 'HEAD'],
    url: '/media/*',
    schema: { hide: true },
    handler: async (request, reply) => {
      const key = (request.params as { '*'?: string })['*'];
      if (!isValidStorageKey(key)) return notFound(reply);
      const signed = isInputKey(key);
      if (signed) {
        const query = (request.query ?? {}) as Record<string, unknown>;
        if (!signer?.verify(key, query.expires, query.signature)) {
          return reply.code(403).header('cache-control', 'no-store').send(NOT_SIGNED);
        }
      }
      const etag = etagForKey(key);

      const ifNoneMatch = header(request, 'if-none-match');
      const notModified = ifNoneMatch !== undefined && noneMatchHits(ifNoneMatch, etag);
      // If-Range with another validator (or a date: we send no Last-Modified) means "send it all".
      const ifRange = header(request, 'if-range');
      const range: RangeRequest | undefined =
        notModified || (ifRange !== undefined && ifRange.trim() !== etag)
          ? undefined
          : parseRangeHeader(header(request, 'range'));

      let object: StoredObject | undefined;
      try {
        object = await find(key, range);
      } catch (err) {
        if (!(err instanceof RangeNotSatisfiableError)) throw err;
        return reply
          .code(416)
          .headers({ 'content-range': `bytes */${err.size}`, 'accept-ranges': 'bytes', etag })
          .send({
            error: {
              code: 'invalid_request',
              message: `Requested range not satisfiable: the object is ${err.size} bytes`,
            },
          });
      }
      if (object === undefined) {
        if (expired && (await expired(key))) return reply.code(410).header('cache-control', 'no-store').send(GONE);
        return notFound(reply);
      }

      reply.headers({
        etag,
        'cache-control': signed ? 'private, no-store' : IMMUTABLE_CACHE_CONTROL,
        'x-content-type-options': 'nosniff',
        'accept-ranges': 'bytes',
      });
      if (notModified) {
        discard(object.body);
        return reply.code(304).send();
      }
      reply.header('content-type', object.contentType);
      if (object.range) {
        const { start, end } = object.range;
        reply
          .code(206)
          .header('content-range', `bytes ${start}-${end}/${object.size}`)
          .header('content-length', String(end - start + 1));
      } else {
        reply.code(200).header('content-length', String(object.size));
      }
      if (request.method === 'HEAD') {
        discard(object.body);
        return reply.send();
      }
      return reply.send(object.body);
    },
  });
}
