// The whole service with its files in s3rver, a real S3 implementation from npm, addressed
// path-style: images and a video made by a fake fal queue complete, the video larger than one
// part of a multipart upload; their media URLs serve the bytes in the bucket, ranges as 206; the
// vendor reads a request's input copy at a signed URL of ours; and the retention sweep deletes
// every object of the generations from the bucket (s3rver's store is checked); a text result is
// kept in its record and served at the service's own /media/ route, nothing written to the bucket.
// Once with the URLs on the service's own /media/ route, once with S3_PUBLIC_URL naming the public
// bucket.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { sweepRetention } from '../src/engine/retention.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { type StatusRecord, waitForGeneration } from './media-helpers.ts';
import { type S3rverServer, startS3rver } from './s3rver.ts';

// One part of the driver's multipart uploads (src/storage/s3.ts).
const PART_BYTES = 8 * 1024 * 1024;

/** A user's server holding one PNG at /photo.png. */
async function startPhotoServer(photo: Buffer) {
  const server: Server = createServer((req, res) => {
    if (req.url !== '/photo.png') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(photo.length) }).end(photo);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/photo.png`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function fetchBytes(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

for (const mode of ['media', 'public'] as const) {
  describe(`the service on s3rver, URLs ${mode === 'media' ? 'on its /media/ route' : 'of the public bucket (S3_PUBLIC_URL)'}`, () => {
    let s3: S3rverServer;
    let fal: FakeFal;
    let photos: Awaited<ReturnType<typeof startPhotoServer>>;
    let photo: Buffer;
    let server: TestServer;
    let team: TeamFixture;
    // Where result URLs start, and the object key of the file a URL names.
    let urlBase: string;
    const prefix = mode === 'public' ? 'genmedia/' : '';
    const objectKey = (url: string) => {
      assert.ok(url.startsWith(`${urlBase}/`), `${url} starts with ${urlBase}/`);
      return prefix + url.slice(urlBase.length + 1).split('?')[0];
    };
    const made: StatusRecord[] = [];
    // The URL of the text result (kept in its record: no object in the bucket).
    let textUrl = '';

    before(async () => {
      s3 = await startS3rver('results');
      fal = await startFakeFal('fake-fal-key', { fetchInputs: true });
      photo = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#cc2222' } })
        .png()
        .toBuffer();
      photos = await startPhotoServer(photo);
      const publicUrl = `${s3.url}/results/genmedia`;
      const storageEnv = mode === 'public' ? s3.env({ S3_PREFIX: 'genmedia', S3_PUBLIC_URL: publicUrl }) : s3.env();
      server = await startTestServer({
        env: { ...fal.env, ...storageEnv, MEDIA_RETENTION_DAYS: '7', WORKER_CONCURRENCY: '2' },
      });
      urlBase = mode === 'public' ? publicUrl : `${server.url}/media`;
      team = await createTeam(server, 100_000);
    });
    after(async () => {
      await server?.close();
      await fal?.close();
      await photos?.close();
      await s3?.close();
    });

    async function generate(path: string, body: Record<string, unknown>): Promise<StatusRecord> {
      const r = await call<{ generation_id: string }>(server, 'POST', path, { token: team.key, body });
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      const done = await waitForGeneration(server, team.key, r.body.generation_id);
      assert.equal(done.status, 'completed', JSON.stringify(done.items));
      made.push(done);
      return done;
    }

    test('images complete and their URLs serve the bytes in the bucket', async () => {
      const done = await generate('/api/v1/images/generate', { prompt: 'a lighthouse at dusk', batch: 2 });
      assert.equal(done.result_urls.length, 2);
      for (const url of done.result_urls) {
        const stored = await s3.object(objectKey(url));
        assert.ok(stored, `${objectKey(url)} is in the bucket`);
        assert.equal(stored.contentType, 'image/png');
        assert.equal(stored.cacheControl, 'public, max-age=31536000, immutable');
        const served = await fetchBytes(url);
        assert.equal(served.status, 200, url);
        assert.equal(served.headers.get('content-type'), 'image/png');
        assert.ok(served.body.equals(stored.body), 'the URL serves the stored bytes');
        const head = await fetchBytes(url, { range: 'bytes=0-7' });
        assert.equal(head.status, 206);
        assert.equal(head.headers.get('content-range'), `bytes 0-7/${stored.body.length}`);
        assert.ok(head.body.equals(stored.body.subarray(0, 8)));
      }
    });

    test('a video larger than one part is uploaded in parts, read back whole, and served in ranges', async () => {
      const done = await generate('/api/v1/videos/generate', { prompt: 'waves on a beach [fal:big-file]' });
      const url = done.result_urls[0] ?? '';
      const key = objectKey(url);
      const expected = fal.bigFile();
      assert.ok(expected.length > PART_BYTES);
      const stored = await s3.object(key);
      assert.ok(stored, `${key} is in the bucket`);
      assert.equal(stored.contentType, 'video/mp4');
      assert.ok(stored.body.equals(expected), 'the parts joined are the vendor file');
      const requests = s3.requests.filter((r) => r.path === `/results/${key}`);
      assert.equal(requests.filter((r) => r.method === 'POST' && /[?&]uploads\b/.test(r.query)).length, 1);
      assert.equal(
        requests.filter((r) => r.method === 'PUT' && /partNumber=/.test(r.query)).length,
        2,
        '8 MiB + the rest',
      );
      assert.equal(
        requests.filter((r) => r.method === 'PUT' && !/partNumber=/.test(r.query)).length,
        0,
        'no PutObject',
      );

      const whole = await fetchBytes(url);
      assert.equal(whole.status, 200);
      assert.equal(whole.headers.get('content-type'), 'video/mp4');
      assert.equal(whole.headers.get('content-length'), String(expected.length));
      assert.ok(whole.body.equals(expected), 'served whole');
      // A range across the boundary between the two parts.
      const start = PART_BYTES - 50;
      const across = await fetchBytes(url, { range: `bytes=${start}-${start + 99}` });
      assert.equal(across.status, 206);
      assert.equal(across.headers.get('content-range'), `bytes ${start}-${start + 99}/${expected.length}`);
      assert.ok(across.body.equals(expected.subarray(start, start + 100)));
      const open = await fetchBytes(url, { range: `bytes=${expected.length - 10}-` });
      assert.equal(open.status, 206);
      assert.ok(open.body.equals(expected.subarray(-10)));
      if (mode === 'media') {
        // (s3rver itself reads a suffix range from the start; through the service it is right.)
        const tail = await fetchBytes(url, { range: 'bytes=-100' });
        assert.equal(tail.status, 206);
        assert.equal(
          tail.headers.get('content-range'),
          `bytes ${expected.length - 100}-${expected.length - 1}/${expected.length}`,
        );
        assert.ok(tail.body.equals(expected.subarray(-100)));
      }
      const beyond = await fetchBytes(url, { range: `bytes=${expected.length}-` });
      assert.equal(beyond.status, 416);
    });

    test("a request's input is copied into the bucket and the vendor reads it at a signed URL", async () => {
      const done = await generate('/api/v1/images/edit', {
        prompt: 'make the sky purple',
        model: 'flux-kontext-pro',
        image_url: photos.url,
      });
      const job = fal.submissions.find((s) => s.endpoint === 'fal-ai/flux-pro/kontext');
      const given = String(job?.input.image_url ?? '');
      assert.ok(given.startsWith(`${server.url}/media/`), `signed URL of ours: ${given}`);
      assert.match(given, /\?expires=\d+&signature=/);
      const read = job?.fetched.find((f) => f.url === given);
      assert.equal(read?.status, 200);
      assert.ok(read?.body.equals(photo), 'fal read the bytes we copied');
      const inputs = (await s3.keys(`${prefix}${done.generation_id}/`)).filter((k) => k.includes('/input-'));
      assert.equal(inputs.length, 1, 'the copy is in the bucket');
      assert.ok((await s3.object(inputs[0] ?? ''))?.body.equals(photo));
      const unsigned = await fetchBytes(given.slice(0, given.indexOf('?')));
      assert.equal(unsigned.status, 403, 'not served without its signature');
    });

    test("a text result is kept in its record, served at the service's own /media/ route, with nothing in the bucket", async () => {
      const before = s3.requests.length;
      const answer = await call<{ generation_id: string; text: string }>(server, 'POST', '/api/v1/text/generate', {
        token: team.key,
        body: { prompt: 'A haiku about tides.' },
      });
      assert.equal(answer.status, 200, answer.text);
      const done = await waitForGeneration(server, team.key, answer.body.generation_id);
      const url = done.result_urls[0] ?? '';
      assert.ok(url.startsWith(`${server.url}/media/${answer.body.generation_id}/`), url);
      assert.equal(s3.requests.slice(before).filter((r) => r.method === 'PUT' || r.method === 'POST').length, 0);
      const served = await fetchBytes(url);
      assert.equal(served.status, 200, url);
      assert.equal(served.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.equal(served.body.toString('utf8'), answer.body.text);
      textUrl = url;
    });

    test('a week on, the sweep deletes every object of the generations from the bucket', async () => {
      assert.equal(made.length, 3);
      for (const done of made) assert.ok((await s3.keys(`${prefix}${done.generation_id}/`)).length > 0);
      const latest = Math.max(...made.map((d) => Date.parse(d.expires_at ?? '')));
      const report = await sweepRetention(server.app.deps.pool, server.app.deps.storage, {
        now: new Date(latest + 1000),
        recordsRetentionDays: 30,
      });
      assert.equal(report.generations, 4, JSON.stringify(report));
      // The text result's key is deleted too where it is a key of the storage's URLs (older text
      // results were files): a delete of nothing.
      assert.equal(
        report.files,
        mode === 'media' ? 6 : 5,
        'two images, the video, the edit and its input copy (and the text key on /media/)',
      );
      assert.deepEqual(await s3.keys(), [], 'the bucket is empty');
      assert.ok(s3.requests.filter((r) => r.method === 'DELETE').length >= 5);
      for (const url of made.flatMap((d) => d.result_urls)) {
        const gone = await fetchBytes(url);
        // The service knows its purged files (410 gone); the bucket only that they are not there.
        assert.equal(gone.status, mode === 'media' ? 410 : 404, url);
        if (mode === 'media') {
          assert.match(gone.headers.get('content-type') ?? '', /^application\/json/);
          assert.equal((JSON.parse(gone.body.toString('utf8')) as { error: { code: string } }).error.code, 'gone');
        }
      }
      // Purged with its generation: the service answers 410 for it whatever the storage.
      const text = await fetchBytes(textUrl);
      assert.equal(text.status, 410, textUrl);
      const status = await call<StatusRecord>(server, 'GET', `/api/v1/generations/${made[0]?.generation_id}/status`, {
        token: team.key,
      });
      assert.equal(status.status, 200, 'the records stay');
    });
  });
}
