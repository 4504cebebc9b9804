// A fake S3 on 127.0.0.1: path-style PutObject, multipart uploads, GetObject (with Range),
// HeadObject and DeleteObject, in memory. The storage tests run against s3rver (../s3rver.ts), a
// real S3 implementation; this fake is kept for what s3rver does not do: AbortMultipartUpload. Every request must carry SigV4 headers (their
// signature is not checked), but for anonymous GET and HEAD of a bucket started `publicRead`
// (a public bucket that S3_PUBLIC_URL points at).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeObject {
  body: Buffer;
  contentType: string | undefined;
  cacheControl: string | undefined;
}

export interface FakeS3 {
  url: string;
  objects: Map<string, FakeObject>;
  /** Multipart uploads aborted. */
  aborted: string[];
  requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders }>;
  problems: string[];
  close(): Promise<void>;
}

function s3ErrorXml(code: string, message: string, extra = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message>${extra}</Error>`;
}

/**
 * Starts a fake S3 holding one bucket, `bucket`, addressed path-style (`<url>/<bucket>/<key>`);
 * with `publicRead`, anyone may GET or HEAD its objects without signing.
 */
export async function startFakeS3(bucket: string, options: { publicRead?: boolean } = {}): Promise<FakeS3> {
  const objects = new Map<string, FakeObject>();
  const uploads = new Map<
    string,
    { key: string; parts: Map<number, Buffer>; contentType: string | undefined; cacheControl: string | undefined }
  >();
  const aborted: string[] = [];
  const requests: FakeS3['requests'] = [];
  const problems: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers });
    const xml = (status: number, text: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/xml', ...headers });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    const signed = String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 Credential=');
    const anonymousRead =
      options.publicRead === true &&
      req.headers.authorization === undefined &&
      (req.method === 'GET' || req.method === 'HEAD');
    if (!signed && !anonymousRead) {
      problems.push(`no SigV4 authorization on ${req.method} ${url.pathname}`);
      return xml(403, s3ErrorXml('AccessDenied', 'Access Denied'));
    }
    if (signed && req.headers['x-amz-content-sha256'] === undefined) {
      problems.push(`no x-amz-content-sha256 on ${req.method} ${url.pathname}`);
      return xml(400, s3ErrorXml('InvalidRequest', 'Missing x-amz-content-sha256'));
    }
    const [, bucketName, ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    if (bucketName !== bucket) return xml(404, s3ErrorXml('NoSuchBucket', 'The specified bucket does not exist'));

    // Multipart uploads: create, parts, complete (parts joined in the order listed), abort.
    const uploadId = url.searchParams.get('uploadId');
    if (req.method === 'POST' && url.searchParams.has('uploads')) {
      const id = `upload-${uploads.size + 1}`;
      uploads.set(id, {
        key,
        parts: new Map(),
        contentType: req.headers['content-type'],
        cacheControl: req.headers['cache-control'],
      });
      return xml(
        200,
        `<?xml version="1.0" encoding="UTF-8"?><InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${key}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
      );
    }
    if (uploadId !== null) {
      const upload = uploads.get(uploadId);
      if (!upload || upload.key !== key) return xml(404, s3ErrorXml('NoSuchUpload', 'The upload does not exist'));
      if (req.method === 'PUT') {
        const number = Number(url.searchParams.get('partNumber'));
        upload.parts.set(number, body);
        res.writeHead(200, { etag: `"part-${number}"` });
        res.end();
        return;
      }
      if (req.method === 'DELETE') {
        uploads.delete(uploadId);
        aborted.push(uploadId);
        res.writeHead(204);
        res.end();
        return;
      }
      if (req.method === 'POST') {
        const numbers = [...body.toString('utf8').matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((m) =>
          Number(m[1]),
        );
        const pieces = numbers.map((n) => upload.parts.get(n));
        if (pieces.some((p) => p === undefined)) return xml(400, s3ErrorXml('InvalidPart', 'A part is missing'));
        for (const piece of pieces.slice(0, -1)) {
          if ((piece as Buffer).length < 5 * 1024 * 1024)
            return xml(400, s3ErrorXml('EntityTooSmall', 'A part is under 5 MiB'));
        }
        objects.set(key, {
          body: Buffer.concat(pieces as Buffer[]),
          contentType: upload.contentType,
          cacheControl: upload.cacheControl,
        });
        uploads.delete(uploadId);
        return xml(
          200,
          `<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${key}</Key><ETag>"done"</ETag></CompleteMultipartUploadResult>`,
        );
      }
    }
    if (req.method === 'PUT') {
      const contentType = req.headers['content-type'];
      const cacheControl = req.headers['cache-control'];
      objects.set(key, { body, contentType, cacheControl });
      res.writeHead(200, { etag: '"fake"' });
      res.end();
      return;
    }
    if (req.method === 'DELETE') {
      // S3 answers 204 whether or not the object was there.
      objects.delete(key);
      res.writeHead(204);
      res.end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return xml(405, s3ErrorXml('MethodNotAllowed', 'No'));
    const object = objects.get(key);
    if (!object) return xml(404, s3ErrorXml('NoSuchKey', 'The specified key does not exist.'));
    const headers: Record<string, string> = {
      'content-type': object.contentType ?? 'binary/octet-stream',
      'accept-ranges': 'bytes',
      etag: '"fake"',
      'last-modified': new Date(0).toUTCString(),
    };
    if (object.cacheControl) headers['cache-control'] = object.cacheControl;
    const size = object.body.length;
    const rangeHeader = req.headers.range;
    if (rangeHeader && req.method === 'GET') {
      const m = /^bytes=(\d*)-(\d*)$/.exec(rangeHeader);
      if (!m) return xml(400, s3ErrorXml('InvalidArgument', 'Bad range'));
      let start: number;
      let end: number;
      if (m[1] === '') {
        start = Math.max(0, size - Number(m[2]));
        end = size - 1;
        if (Number(m[2]) === 0) start = size;
      } else {
        start = Number(m[1]);
        end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
      }
      if (start >= size || end < start) {
        return xml(
          416,
          s3ErrorXml(
            'InvalidRange',
            'The requested range is not satisfiable',
            `<RangeRequested>${rangeHeader}</RangeRequested><ActualObjectSize>${size}</ActualObjectSize>`,
          ),
        );
      }
      res.writeHead(206, {
        ...headers,
        'content-range': `bytes ${start}-${end}/${size}`,
        'content-length': String(end - start + 1),
      });
      res.end(object.body.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': String(size) });
    res.end(req.method === 'HEAD' ? undefined : object.body);
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    objects,
    aborted,
    requests,
    problems,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
    },
  };
}
