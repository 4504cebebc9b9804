// Result-file storage: the local driver, the S3 driver against s3rver (a real S3 implementation
// from npm; the hand-written fake only for an aborted multipart upload), and the media route over
// real HTTP. Needs no database: `node --test test/storage.test.ts`.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { createStorage } from '../src/storage/index.ts';
import {
  checkedContentType,
  contentTypeForKey,
  extensionForContentType,
  isValidStorageKey,
} from '../src/storage/keys.ts';
import { LocalStorage } from '../src/storage/local.ts';
import { etagForKey, mediaRoutes } from '../src/storage/media-routes.ts';
import { parseRangeHeader, RangeNotSatisfiableError, resolveRange } from '../src/storage/range.ts';
import { S3Storage } from '../src/storage/s3.ts';
import { type FakeS3, startFakeS3 } from './fakes/s3.ts';
import { type S3rverServer, startS3rver } from './s3rver.ts';

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const BAD_KEYS = [
  '',
  '../x.png',
  'a/../../b.png',
  'a/../b.png',
  './a.png',
  'a/./b.png',
  '/abs.png',
  'a//b.png',
  'a/b.png/',
  'a.png.exe',
  'a.exe',
  'a.tar.gz',
  'a.PNG',
  'noext',
  '.png',
  'a/.png',
  'ünïcödé.png',
  'a b.png',
  'a\\b.png',
  'a%2fb.png',
  '..%2f..%2fetc%2fpasswd',
  'a.png\0',
  'C:/a.png',
  'a/b.png?x=1',
  `${'x'.repeat(253)}.png`, // 257 characters
];

function* chunksOf(bytes: Buffer, size: number): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe('storage keys', () => {
  test('valid keys', () => {
    for (const key of ['a.png', 'gen_1/AbC-9.webp', 'a/b/c/d.mp4', `${'x'.repeat(252)}.png`]) {
      assert.ok(isValidStorageKey(key), key);
    }
    assert.equal(`${'x'.repeat(252)}.png`.length, 256);
  });

  test('invalid keys', () => {
    for (const key of BAD_KEYS) assert.equal(isValidStorageKey(key), false, JSON.stringify(key));
    assert.equal(isValidStorageKey(undefined), false);
    assert.equal(isValidStorageKey(42), false);
  });

  test('content types follow the extension', () => {
    const table: Record<string, string> = {
      png: 'image/png',
      jpg: 'image/jpeg',
      jpeg: 'image/jpeg',
      webp: 'image/webp',
      gif: 'image/gif',
      mp4: 'video/mp4',
      webm: 'video/webm',
      mov: 'video/quicktime',
      mp3: 'audio/mpeg',
      wav: 'audio/wav',
      ogg: 'audio/ogg',
      m4a: 'audio/mp4',
      flac: 'audio/flac',
      glb: 'model/gltf-binary',
      json: 'application/json',
      txt: 'text/plain; charset=utf-8',
    };
    for (const [ext, type] of Object.entries(table)) {
      assert.equal(contentTypeForKey(`g/x.${ext}`), type, ext);
      const back = extensionForContentType(type);
      assert.ok(back !== undefined);
      assert.equal(contentTypeForKey(`x.${back}`), type, `round trip of ${type}`);
    }
    assert.equal(contentTypeForKey('../x.png'), undefined);
    assert.equal(extensionForContentType('IMAGE/JPG'), 'jpg');
    assert.equal(extensionForContentType('audio/x-wav'), 'wav');
    assert.equal(extensionForContentType('image/svg+xml'), undefined);
    assert.equal(extensionForContentType('text/html'), undefined);
  });

  test('put-time content type check', () => {
    assert.equal(checkedContentType('a.jpeg', 'image/jpg'), 'image/jpeg');
    assert.equal(checkedContentType('a.txt', 'text/plain'), 'text/plain; charset=utf-8');
    assert.equal(checkedContentType('a.mp3', 'audio/mp3'), 'audio/mpeg');
    assert.throws(() => checkedContentType('a.jpg', 'image/png'), /does not match/);
    assert.throws(() => checkedContentType('a.png', 'application/octet-stream'), /does not match/);
    assert.throws(() => checkedContentType('../a.png', 'image/png'), /Invalid storage key/);
  });

  test('range header parsing', () => {
    assert.deepEqual(parseRangeHeader('bytes=0-99'), { start: 0, end: 99 });
    assert.deepEqual(parseRangeHeader('bytes=10-'), { start: 10 });
    assert.deepEqual(parseRangeHeader('bytes=-5'), { suffix: 5 });
    assert.deepEqual(parseRangeHeader('Bytes = 1 - 2'), { start: 1, end: 2 });
    for (const ignored of [
      undefined,
      '',
      'bytes=',
      'bytes=-',
      'bytes=5-1',
      'items=0-1',
      'bytes=0-1,3-4',
      'bytes=a-b',
    ]) {
      assert.equal(parseRangeHeader(ignored), undefined, String(ignored));
    }
    assert.deepEqual(resolveRange({ start: 0, end: 99 }, 10), { start: 0, end: 9 });
    assert.deepEqual(resolveRange({ suffix: 50 }, 10), { start: 0, end: 9 });
    assert.deepEqual(resolveRange({ suffix: 3 }, 10), { start: 7, end: 9 });
    assert.equal(resolveRange({ start: 10 }, 10), undefined);
    assert.equal(resolveRange({ suffix: 0 }, 10), undefined);
    assert.equal(resolveRange({ start: 0 }, 0), undefined);
  });
});

/** Where the sharded layout puts the files of a key's first segment (the layout's definition). */
function shardOf(root: string, first: string): string {
  const hash = createHash('sha256').update(first).digest('hex');
  return join(root, `~${hash.slice(0, 2)}`, hash.slice(2, 4));
}

describe('LocalStorage', () => {
  let dir: string;
  let storage: LocalStorage;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'genmedia-storage-'));
    storage = new LocalStorage({ root: join(dir, 'media'), publicBaseUrl: 'https://api.example.com/' });
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('round trip, atomically written with mode 0644', async () => {
    const bytes = randomBytes(5000);
    await storage.put('gen_1/abc.png', bytes, 'image/png');
    const object = await storage.get('gen_1/abc.png');
    assert.ok(object);
    assert.equal(object.contentType, 'image/png');
    assert.equal(object.size, 5000);
    assert.equal(object.range, undefined);
    assert.deepEqual(await readAll(object.body), bytes);

    const path = join(shardOf(join(dir, 'media'), 'gen_1'), 'gen_1', 'abc.png');
    assert.deepEqual(await readFile(path), bytes);
    assert.equal((await stat(path)).mode & 0o777, 0o644);
    assert.deepEqual(await readdir(dirname(path)), ['abc.png'], 'no temporary file left');

    // Writing the same key again is harmless.
    await storage.put('gen_1/abc.png', bytes, 'image/png');
    const again = await storage.get('gen_1/abc.png');
    assert.ok(again);
    assert.deepEqual(await readAll(again.body), bytes);
  });

  test('files are 0644 under a umask that takes bits of it, written whole or streamed', async () => {
    const own = await mkdtemp(join(tmpdir(), 'genmedia-umask-'));
    const previous = process.umask(0o077);
    try {
      const narrow = new LocalStorage({ root: join(own, 'media'), publicBaseUrl: 'https://api.example.com/' });
      await narrow.put('gen_u/a.png', Buffer.from('a'), 'image/png');
      await narrow.putStream('gen_u/b.png', Readable.from([Buffer.from('b'), Buffer.from('c')]), 'image/png');
      await narrow.put('gen_u/c.png', Buffer.from('c'), 'image/png');
      const folder = join(shardOf(join(own, 'media'), 'gen_u'), 'gen_u');
      for (const name of ['a.png', 'b.png', 'c.png']) {
        assert.equal((await stat(join(folder, name))).mode & 0o777, 0o644, name);
      }
      assert.deepEqual((await readdir(folder)).sort(), ['a.png', 'b.png', 'c.png'], 'no temporary file left');
      assert.equal(await readFile(join(folder, 'b.png'), 'utf8'), 'bc');
    } finally {
      process.umask(previous);
      await rm(own, { recursive: true, force: true });
    }
  });

  test('files are sharded under two levels of hash prefixes, all of a generation together', async () => {
    const own = await mkdtemp(join(tmpdir(), 'genmedia-shards-'));
    const root = join(own, 'media');
    const sharded = new LocalStorage({ root, publicBaseUrl: 'https://api.example.com/' });
    for (let i = 0; i < 300; i++) {
      await sharded.put(`gen_${i}/a.png`, Buffer.from('a'), 'image/png');
      await sharded.put(`gen_${i}/b.png`, Buffer.from('b'), 'image/png');
    }
    const top = await readdir(root);
    assert.ok(
      top.every((name) => /^~[0-9a-f]{2}$/.test(name)),
      `only shard directories at the top: ${top.slice(0, 5)}`,
    );
    assert.ok(top.length > 100 && top.length <= 256, `${top.length} top-level directories`);
    assert.deepEqual((await readdir(join(shardOf(root, 'gen_7'), 'gen_7'))).sort(), ['a.png', 'b.png']);
    // The URL does not change with the layout.
    assert.equal(sharded.publicUrl('gen_7/a.png'), 'https://api.example.com/media/gen_7/a.png');
    await rm(own, { recursive: true, force: true });
  });

  test('a file written before sharding, at <root>/<key>, is still read (whole and ranged)', async () => {
    const bytes = randomBytes(64);
    await mkdir(join(dir, 'media', 'gen_legacy'), { recursive: true });
    await writeFile(join(dir, 'media', 'gen_legacy', 'old.png'), bytes);
    const whole = await storage.get('gen_legacy/old.png');
    assert.ok(whole);
    assert.deepEqual(await readAll(whole.body), bytes);
    const part = await storage.get('gen_legacy/old.png', { start: 8, end: 15 });
    assert.ok(part);
    assert.deepEqual(await readAll(part.body), bytes.subarray(8, 16));
  });

  test('a stream is stored whole or not at all', async () => {
    const bytes = randomBytes(3 * 1024 * 1024);
    const stored = await storage.putStream('gen_s/clip.mp4', Readable.from(chunksOf(bytes, 65536)), 'video/mp4');
    assert.equal(stored.size, bytes.length);
    const object = await storage.get('gen_s/clip.mp4');
    assert.ok(object);
    assert.ok((await readAll(object.body)).equals(bytes));
    async function* broken() {
      yield randomBytes(1000);
      throw new Error('cut off');
    }
    await assert.rejects(storage.putStream('gen_s/cut.mp4', Readable.from(broken()), 'video/mp4'), /cut off/);
    assert.equal(await storage.get('gen_s/cut.mp4'), undefined);
    const folder = join(shardOf(join(dir, 'media'), 'gen_s'), 'gen_s');
    assert.deepEqual(await readdir(folder), ['clip.mp4'], 'no temporary file left');
    await assert.rejects(storage.putStream('gen_s/x.png', Readable.from([bytes]), 'video/mp4'), /does not match/);
  });

  test('content types come back from the key', async () => {
    await storage.put('t/a.txt', Buffer.from('hello'), 'text/plain');
    await storage.put('t/b.jpeg', Buffer.from('jpeg'), 'image/jpg');
    await storage.put('t/c.glb', Buffer.alloc(0), 'model/gltf-binary');
    const text = await storage.get('t/a.txt');
    assert.equal(text?.contentType, 'text/plain; charset=utf-8');
    text?.body.destroy();
    const jpeg = await storage.get('t/b.jpeg');
    assert.equal(jpeg?.contentType, 'image/jpeg');
    jpeg?.body.destroy();
    const empty = await storage.get('t/c.glb');
    assert.equal(empty?.size, 0);
    assert.equal(empty?.contentType, 'model/gltf-binary');
    assert.ok(empty);
    assert.equal((await readAll(empty.body)).length, 0);
    await assert.rejects(storage.put('t/d.png', Buffer.from('x'), 'image/jpeg'), /does not match/);
    assert.equal(await storage.get('t/d.png'), undefined);
  });

  test('ranges', async () => {
    const bytes = randomBytes(100);
    await storage.put('r/x.mp4', bytes, 'video/mp4');
    const part = await storage.get('r/x.mp4', { start: 10, end: 19 });
    assert.deepEqual(part?.range, { start: 10, end: 19 });
    assert.equal(part?.size, 100);
    assert.ok(part);
    assert.deepEqual(await readAll(part.body), bytes.subarray(10, 20));
    const tail = await storage.get('r/x.mp4', { suffix: 7 });
    assert.ok(tail);
    assert.deepEqual(await readAll(tail.body), bytes.subarray(93));
    const rest = await storage.get('r/x.mp4', { start: 95 });
    assert.ok(rest);
    assert.deepEqual(await readAll(rest.body), bytes.subarray(95));
    await assert.rejects(
      storage.get('r/x.mp4', { start: 100 }),
      (err: unknown) => err instanceof RangeNotSatisfiableError && err.size === 100,
    );
    assert.equal(await storage.get('r/missing.mp4', { start: 0 }), undefined);
  });

  test('delete removes an object (sharded or of the layout before sharding); a missing one is no error', async () => {
    const key = 'gen_del/item-1.png';
    await storage.put(key, Buffer.from('png bytes'), 'image/png');
    assert.ok(await storage.get(key));
    await storage.delete(key);
    assert.equal(await storage.get(key), undefined);
    await storage.delete(key);
    const legacy = join(dir, 'media', 'gen_del', 'item-2.png');
    await mkdir(dirname(legacy), { recursive: true });
    await writeFile(legacy, 'old');
    await storage.delete('gen_del/item-2.png');
    assert.equal(await storage.get('gen_del/item-2.png'), undefined);
    await assert.rejects(storage.delete('../escape.png'));
  });

  test('missing objects and directories read as undefined', async () => {
    assert.equal(await storage.get('nope/none.png'), undefined);
    await mkdir(join(dir, 'media', 'folder.png'), { recursive: true });
    assert.equal(await storage.get('folder.png'), undefined);
    // A file where a directory is expected (ENOTDIR).
    assert.equal(await storage.get('gen_1/abc.png/x.png'), undefined);
  });

  test('path traversal and malformed keys are refused', async () => {
    // A file outside the root that traversal would reach.
    await storage.put('b.png', Buffer.from('inside'), 'image/png');
    for (const key of BAD_KEYS) {
      await assert.rejects(storage.put(key, Buffer.from('x'), 'image/png'), /Invalid storage key/, JSON.stringify(key));
      assert.equal(await storage.get(key), undefined, JSON.stringify(key));
    }
    assert.deepEqual((await readdir(dir)).sort(), ['media'], 'nothing written outside the root');
  });

  test('public URLs', () => {
    assert.equal(storage.publicUrl('gen_1/abc.png'), 'https://api.example.com/media/gen_1/abc.png');
    assert.equal(storage.keyFromUrl('https://api.example.com/media/gen_1/abc.png'), 'gen_1/abc.png');
    for (const url of [
      'https://other.example.com/media/gen_1/abc.png',
      'http://api.example.com/media/gen_1/abc.png',
      'https://api.example.com/mediax/abc.png',
      'https://api.example.com/media/',
      'https://api.example.com/media/../x.png',
      'https://api.example.com/media/a/../b.png',
      'https://api.example.com/media/abc.png?x=1',
      'https://api.example.com/media/abc.png#f',
      'https://api.example.com/media//abc.png',
      'https://api.example.com.evil.com/media/abc.png',
      'https://api.example.com/media/abc.exe',
    ]) {
      assert.equal(storage.keyFromUrl(url), undefined, url);
    }
  });
});

describe('S3Storage against s3rver, path-style, its public URLs at the bucket (S3_PUBLIC_URL)', () => {
  let s3: S3rverServer;
  let storage: S3Storage;
  let publicBase: string;
  before(async () => {
    s3 = await startS3rver('results');
    // The bucket's own path-style URL with the prefix: what S3_PUBLIC_URL names for a public bucket.
    publicBase = `${s3.url}/results/genmedia/results`;
    storage = new S3Storage({
      bucket: 'results',
      region: 'us-east-1',
      endpoint: s3.url,
      forcePathStyle: true,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      prefix: '/genmedia/results/',
      publicUrlPrefix: `${publicBase}/`,
    });
  });
  after(async () => {
    storage.destroy();
    await s3.close();
  });

  test('round trip with content type, cache control and prefix', async () => {
    const bytes = randomBytes(3000);
    await storage.put('gen_1/abc.webp', bytes, 'image/webp');
    const stored = await s3.object('genmedia/results/gen_1/abc.webp');
    assert.ok(stored, `stored under the prefix; have ${(await s3.keys()).join(', ')}`);
    assert.deepEqual(stored.body, bytes);
    assert.equal(stored.contentType, 'image/webp');
    assert.equal(stored.cacheControl, 'public, max-age=31536000, immutable');

    const object = await storage.get('gen_1/abc.webp');
    assert.ok(object);
    assert.equal(object.contentType, 'image/webp');
    assert.equal(object.size, 3000);
    assert.equal(object.range, undefined);
    assert.deepEqual(await readAll(object.body), bytes);

    const put = s3.requests.find((r) => r.method === 'PUT');
    assert.equal(put?.path, '/results/genmedia/results/gen_1/abc.webp', 'path-style request');
  });

  test('a stream is stored in 8 MiB parts (one PutObject when small)', async () => {
    const big = randomBytes(20 * 1024 * 1024 + 123);
    const stored = await storage.putStream('gen_2/big.mp4', Readable.from(chunksOf(big, 65536)), 'video/mp4');
    assert.equal(stored.size, big.length);
    const object = await s3.object('genmedia/results/gen_2/big.mp4');
    assert.ok(object);
    assert.ok(object.body.equals(big), 'the parts joined are the bytes');
    assert.equal(object.contentType, 'video/mp4');
    assert.equal(object.cacheControl, 'public, max-age=31536000, immutable');
    const to = (path: string) => s3.requests.filter((r) => r.path === `/results/genmedia/results/${path}`);
    const bigRequests = to('gen_2/big.mp4');
    assert.equal(bigRequests.filter((r) => r.method === 'POST' && /[?&]uploads\b/.test(r.query)).length, 1);
    assert.equal(
      bigRequests.filter((r) => r.method === 'PUT' && /partNumber=/.test(r.query)).length,
      3,
      '8 + 8 + 4 MiB',
    );
    const read = await storage.get('gen_2/big.mp4');
    assert.ok(read);
    assert.equal(read.size, big.length);
    assert.ok((await readAll(read.body)).equals(big), 'read back whole');

    const small = randomBytes(1000);
    assert.equal((await storage.putStream('gen_2/small.png', Readable.from([small]), 'image/png')).size, 1000);
    assert.ok((await s3.object('genmedia/results/gen_2/small.png'))?.body.equals(small));
    assert.deepEqual(
      to('gen_2/small.png').map((r) => r.method),
      ['PUT'],
      'one PutObject, no multipart upload',
    );
  });

  test('the stored content type is the canonical one for the key', async () => {
    await storage.put('t/x.txt', Buffer.from('hi'), 'text/plain');
    assert.equal((await s3.object('genmedia/results/t/x.txt'))?.contentType, 'text/plain; charset=utf-8');
    await assert.rejects(storage.put('t/x.png', Buffer.from('x'), 'video/mp4'), /does not match/);
    await assert.rejects(storage.put('../x.png', Buffer.from('x'), 'image/png'), /Invalid storage key/);
    assert.equal(await s3.has('genmedia/results/t/x.png'), false);
  });

  test('delete removes the object at S3; deleting it again is no error', async () => {
    await storage.put('gen_s3del/a.png', Buffer.from('x'), 'image/png');
    assert.equal(await s3.has('genmedia/results/gen_s3del/a.png'), true);
    await storage.delete('gen_s3del/a.png');
    assert.equal(await s3.has('genmedia/results/gen_s3del/a.png'), false);
    assert.equal(await storage.get('gen_s3del/a.png'), undefined);
    await storage.delete('gen_s3del/a.png');
    assert.ok(s3.requests.some((r) => r.method === 'DELETE' && r.path.endsWith('/gen_s3del/a.png')));
  });

  test('missing objects and invalid keys read as undefined', async () => {
    const before = s3.requests.length;
    assert.equal(await storage.get('gen_1/missing.png'), undefined);
    assert.equal(await storage.get('gen_1/missing.png', { start: 0 }), undefined);
    assert.equal(await storage.get('../etc/passwd.png'), undefined);
    assert.equal(s3.requests.length - before, 2, 'invalid keys never reach S3');
  });

  test('ranges go to S3', async () => {
    const bytes = randomBytes(100);
    await storage.put('v/clip.mp4', bytes, 'video/mp4');
    const before = s3.requests.length;
    const part = await storage.get('v/clip.mp4', { start: 10, end: 19 });
    assert.ok(part);
    assert.deepEqual(part.range, { start: 10, end: 19 });
    assert.equal(part.size, 100);
    assert.deepEqual(await readAll(part.body), bytes.subarray(10, 20));
    assert.equal(s3.requests.length - before, 1, 'one GetObject');

    const open = await storage.get('v/clip.mp4', { start: 90 });
    assert.ok(open);
    assert.deepEqual(open.range, { start: 90, end: 99 });
    assert.deepEqual(await readAll(open.body), bytes.subarray(90));

    const past = await storage.get('v/clip.mp4', { start: 50, end: 500 });
    assert.ok(past);
    assert.deepEqual(past.range, { start: 50, end: 99 });
    assert.deepEqual(await readAll(past.body), bytes.subarray(50));

    await assert.rejects(
      storage.get('v/clip.mp4', { start: 100 }),
      (err: unknown) => err instanceof RangeNotSatisfiableError && err.size === 100,
    );
  });

  test('a suffix range reads the last bytes, though s3rver answers bytes=-N with bytes 0-N', async () => {
    const bytes = randomBytes(100);
    await storage.put('v/tail.mp4', bytes, 'video/mp4');
    const before = s3.requests.length;
    const tail = await storage.get('v/tail.mp4', { suffix: 30 });
    assert.equal(s3.requests.length - before, 2, 'asked again by its bounds');
    assert.ok(tail);
    assert.deepEqual(tail.range, { start: 70, end: 99 });
    assert.equal(tail.size, 100);
    assert.deepEqual(await readAll(tail.body), bytes.subarray(70));
    const longer = await storage.get('v/tail.mp4', { suffix: 500 });
    assert.ok(longer);
    assert.deepEqual(longer.range, { start: 0, end: 99 }, 'a suffix past the start is the whole object');
    assert.deepEqual(await readAll(longer.body), bytes);
  });

  test('the media route reads through S3 (proxy mode)', async () => {
    const bytes = randomBytes(2000);
    await storage.put('p/movie.webm', bytes, 'video/webm');
    const app = Fastify({ logger: false });
    await app.register(mediaRoutes, { storage });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const full = await rawRequest(base, 'GET', '/media/p/movie.webm');
      assert.equal(full.status, 200);
      assert.equal(full.headers['content-type'], 'video/webm');
      assert.equal(full.headers['content-length'], '2000');
      assert.deepEqual(full.body, bytes);
      const part = await rawRequest(base, 'GET', '/media/p/movie.webm', { range: 'bytes=-500' });
      assert.equal(part.status, 206);
      assert.equal(part.headers['content-range'], 'bytes 1500-1999/2000');
      assert.deepEqual(part.body, bytes.subarray(1500));
      const middle = await rawRequest(base, 'GET', '/media/p/movie.webm', { range: 'bytes=100-199' });
      assert.equal(middle.status, 206);
      assert.equal(middle.headers['content-range'], 'bytes 100-199/2000');
      assert.deepEqual(middle.body, bytes.subarray(100, 200));
      const head = await rawRequest(base, 'HEAD', '/media/p/movie.webm');
      assert.equal(head.status, 200);
      assert.equal(head.headers['content-length'], '2000');
      const beyond = await rawRequest(base, 'GET', '/media/p/movie.webm', { range: 'bytes=2000-' });
      assert.equal(beyond.status, 416);
      assert.equal(beyond.headers['content-range'], 'bytes */2000');
      const missing = await rawRequest(base, 'GET', '/media/p/none.webm');
      assert.equal(missing.status, 404);
      assert.deepEqual(JSON.parse(missing.body.toString('utf8')), {
        error: { code: 'not_found', message: 'Media not found' },
      });
    } finally {
      await app.close();
    }
  });

  test('public URLs name the bucket with the prefix, and the bucket serves them (ranges too)', async () => {
    assert.equal(storage.publicUrl('gen_1/abc.webp'), `${publicBase}/gen_1/abc.webp`);
    assert.equal(storage.keyFromUrl(`${publicBase}/gen_1/abc.webp`), 'gen_1/abc.webp');
    assert.equal(storage.keyFromUrl(`${s3.url}/results/genmedia/other/gen_1/abc.webp`), undefined);
    assert.equal(storage.keyFromUrl(`${publicBase}/../x.webp`), undefined);

    const bytes = randomBytes(1000);
    await storage.put('pub/still.png', bytes, 'image/png');
    const whole = await fetch(storage.publicUrl('pub/still.png'));
    assert.equal(whole.status, 200);
    assert.equal(whole.headers.get('content-type'), 'image/png');
    assert.equal(whole.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.deepEqual(Buffer.from(await whole.arrayBuffer()), bytes);
    const part = await fetch(storage.publicUrl('pub/still.png'), { headers: { range: 'bytes=10-19' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), 'bytes 10-19/1000');
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(10, 20));
  });

  test('createStorage picks the driver and the URL prefix', () => {
    const proxied = createStorage({
      driver: 's3',
      localRoot: '/unused',
      publicBaseUrl: 'https://api.example.com/',
      s3: {
        bucket: 'b',
        region: 'us-east-1',
        endpoint: s3.url,
        forcePathStyle: true,
        accessKeyId: 'a',
        secretAccessKey: 's',
      },
    });
    assert.ok(proxied instanceof S3Storage);
    assert.equal(proxied.publicUrl('a.png'), 'https://api.example.com/media/a.png');
    proxied.destroy();
    const cdn = createStorage({
      driver: 's3',
      localRoot: '/unused',
      publicBaseUrl: 'https://api.example.com',
      s3: { bucket: 'b', region: 'auto', publicUrl: 'https://pub.example.com/' },
    });
    assert.equal(cdn.publicUrl('a.png'), 'https://pub.example.com/a.png');
    (cdn as S3Storage).destroy();
    const local = createStorage({ driver: 'local', localRoot: '/tmp/x', publicBaseUrl: 'http://localhost:3000' });
    assert.ok(local instanceof LocalStorage);
    assert.equal(local.publicUrl('a.png'), 'http://localhost:3000/media/a.png');
    assert.throws(() => createStorage({ driver: 's3', localRoot: '/x', publicBaseUrl: 'http://x' }), /S3_BUCKET/);
    assert.throws(
      () => new S3Storage({ bucket: 'b', region: 'r', accessKeyId: 'a', publicUrlPrefix: 'http://x' }),
      /both/,
    );
    assert.throws(
      () => new S3Storage({ bucket: 'b', region: 'r', prefix: 'a/../b', publicUrlPrefix: 'http://x' }),
      /Invalid S3 key prefix/,
    );
  });
});

// The hand-written fake, only for what s3rver cannot show: AbortMultipartUpload (s3rver answers
// it 405), and the SigV4 headers of every request (s3rver does not check them).
describe('S3Storage against the fake S3: an aborted upload', () => {
  let fake: FakeS3;
  let storage: S3Storage;
  before(async () => {
    fake = await startFakeS3('results');
    storage = new S3Storage({
      bucket: 'results',
      region: 'us-east-1',
      endpoint: fake.url,
      forcePathStyle: true,
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      prefix: 'genmedia',
      publicUrlPrefix: 'https://cdn.example.com/genmedia',
    });
  });
  after(async () => {
    storage.destroy();
    await fake.close();
  });

  test('a stream that fails after a part was sent aborts its multipart upload and leaves nothing', async () => {
    async function* broken() {
      yield randomBytes(9 * 1024 * 1024);
      throw new Error('the vendor cut the download');
    }
    await assert.rejects(storage.putStream('gen_2/cut.mp4', Readable.from(broken()), 'video/mp4'), /cut the download/);
    assert.equal(fake.objects.get('genmedia/gen_2/cut.mp4'), undefined);
    assert.equal(fake.aborted.length, 1, 'the multipart upload was aborted');
    assert.ok(
      fake.requests.some((r) => r.method === 'PUT' && r.path === '/results/genmedia/gen_2/cut.mp4'),
      'a part was sent',
    );
    assert.deepEqual(fake.problems, [], 'every request was signed');
  });
});

// ---------------------------------------------------------------------------------------------
// The media route over real HTTP (raw paths: no client-side normalization of `..`).

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  return new Promise((resolveResponse, reject) => {
    // No keep-alive: a pooled idle socket would hold up the server's close.
    const req = httpRequest({ hostname, port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolveResponse({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('media routes', () => {
  let dir: string;
  let app: FastifyInstance;
  let base: string;
  const video = randomBytes(1000);
  const key = 'gen_1/clip-A_9.mp4';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'genmedia-media-'));
    const storage = new LocalStorage({ root: join(dir, 'media'), publicBaseUrl: 'http://unused' });
    await storage.put(key, video, 'video/mp4');
    // As a version before sharding wrote it.
    await mkdir(join(dir, 'media', 'gen_0'), { recursive: true });
    await writeFile(join(dir, 'media', 'gen_0', 'legacy.mp4'), video);
    await storage.put('b.png', Buffer.from('png'), 'image/png');
    await storage.put('notes.txt', Buffer.from('héllo'), 'text/plain');
    app = Fastify({ logger: false });
    await app.register(mediaRoutes, { storage });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  const get = (path: string, headers?: Record<string, string>) => rawRequest(base, 'GET', path, headers);

  function assertMediaHeaders(r: RawResponse): void {
    assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers.etag, etagForKey(key));
    assert.equal(r.headers['accept-ranges'], 'bytes');
  }

  test('a file of the layout before sharding is served at its unchanged URL, ranges too', async () => {
    const whole = await get('/media/gen_0/legacy.mp4');
    assert.equal(whole.status, 200);
    assert.deepEqual(whole.body, video);
    const part = await get('/media/gen_0/legacy.mp4', { range: 'bytes=100-199' });
    assert.equal(part.status, 206);
    assert.deepEqual(part.body, video.subarray(100, 200));
  });

  test('GET serves the exact bytes', async () => {
    const r = await get(`/media/${key}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, video);
    assert.equal(r.headers['content-type'], 'video/mp4');
    assert.equal(r.headers['content-length'], '1000');
    assertMediaHeaders(r);
    const text = await get('/media/notes.txt');
    assert.equal(text.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(text.body.toString('utf8'), 'héllo');
    assert.equal(text.headers['content-length'], String(Buffer.byteLength('héllo')));
    const query = await get(`/media/${key}?v=2`);
    assert.equal(query.status, 200);
  });

  test('ETag and If-None-Match', async () => {
    const etag = etagForKey(key);
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
    assert.notEqual(etagForKey('b.png'), etag);
    for (const value of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const r = await get(`/media/${key}`, { 'if-none-match': value });
      assert.equal(r.status, 304, value);
      assert.equal(r.body.length, 0);
      assert.equal(r.headers.etag, etag);
      assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable');
    }
    const other = await get(`/media/${key}`, { 'if-none-match': '"other"' });
    assert.equal(other.status, 200);
    assert.deepEqual(other.body, video);
    // A conditional request for something that does not exist is still a 404.
    assert.equal((await get('/media/gen_1/none.mp4', { 'if-none-match': '*' })).status, 404);
  });

  test('HEAD sends the headers without a body', async () => {
    const r = await rawRequest(base, 'HEAD', `/media/${key}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.length, 0);
    assert.equal(r.headers['content-length'], '1000');
    assert.equal(r.headers['content-type'], 'video/mp4');
    assertMediaHeaders(r);
    const ranged = await rawRequest(base, 'HEAD', `/media/${key}`, { range: 'bytes=0-9' });
    assert.equal(ranged.status, 206);
    assert.equal(ranged.headers['content-length'], '10');
    assert.equal(ranged.headers['content-range'], 'bytes 0-9/1000');
    assert.equal((await rawRequest(base, 'HEAD', '/media/none.png')).status, 404);
  });

  test('Range requests', async () => {
    const cases: Array<[string, number, number]> = [
      ['bytes=0-99', 0, 99],
      ['bytes=500-999', 500, 999],
      ['bytes=990-5000', 990, 999],
      ['bytes=900-', 900, 999],
      ['bytes=-100', 900, 999],
      ['bytes=-5000', 0, 999],
      ['bytes=0-0', 0, 0],
    ];
    for (const [range, start, end] of cases) {
      const r = await get(`/media/${key}`, { range });
      assert.equal(r.status, 206, range);
      assert.equal(r.headers['content-range'], `bytes ${start}-${end}/1000`, range);
      assert.equal(r.headers['content-length'], String(end - start + 1), range);
      assert.equal(r.headers['content-type'], 'video/mp4');
      assert.deepEqual(r.body, video.subarray(start, end + 1), range);
      assertMediaHeaders(r);
    }
    // Ranges we do not serve as ranges: the whole object.
    for (const range of ['bytes=0-1,5-6', 'bytes=9-3', 'items=0-1', 'bytes=x-']) {
      const r = await get(`/media/${key}`, { range });
      assert.equal(r.status, 200, range);
      assert.deepEqual(r.body, video);
    }
    // If-Range: honoured only with our ETag.
    const same = await get(`/media/${key}`, { range: 'bytes=0-9', 'if-range': etagForKey(key) });
    assert.equal(same.status, 206);
    const stale = await get(`/media/${key}`, { range: 'bytes=0-9', 'if-range': '"stale"' });
    assert.equal(stale.status, 200);
    assert.deepEqual(stale.body, video);
  });

  test('unsatisfiable ranges are a 416', async () => {
    for (const range of ['bytes=1000-', 'bytes=5000-6000', 'bytes=-0']) {
      const r = await get(`/media/${key}`, { range });
      assert.equal(r.status, 416, range);
      assert.equal(r.headers['content-range'], 'bytes */1000');
      const body = JSON.parse(r.body.toString('utf8')) as { error: { code: string } };
      assert.equal(body.error.code, 'invalid_request');
    }
  });

  test('unknown keys and traversal attempts are a JSON 404', async () => {
    for (const path of [
      '/media/gen_1/none.mp4',
      '/media/',
      '/media/..%2f..%2fetc%2fpasswd',
      '/media/..%2F..%2Fetc%2Fpasswd',
      '/media/a/../b.png',
      '/media/gen_1/../b.png',
      '/media/%2e%2e/b.png',
      '/media/./b.png',
      '/media//b.png',
      '/media/b.png%00.png',
      '/media/%2Fb.png',
      '/media/b.PNG',
      '/media/b',
      '/media/../../../../etc/passwd',
      `/media/${'x'.repeat(300)}.png`,
    ]) {
      const r = await get(path);
      assert.equal(r.status, 404, path);
      assert.match(String(r.headers['content-type']), /^application\/json/, path);
      assert.deepEqual(
        JSON.parse(r.body.toString('utf8')),
        { error: { code: 'not_found', message: 'Media not found' } },
        path,
      );
    }
    // The real object behind some of those paths is served at its own URL.
    assert.equal((await get('/media/b.png')).status, 200);
  });
});
