// The bytes a request is priced from are the bytes its vendor works on: a user's input media is
// fetched once at accept into our storage, and the vendor (a fake fal queue that downloads what it
// is given, as fal's runners do) reads that copy at a signed URL of ours, never the user's URL.
// The fixture server answers the first fetch of each file with one version and every later fetch
// with another (a longer clip, another image).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { sweepRetention } from '../src/engine/retention.ts';
import { H264_OUTPUT_ARGS, probeMedia, runFfmpeg } from '../src/lib/ffmpeg.ts';
import { startFakeElevenLabs } from './fakes/elevenlabs.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type ErrorReply, waitForGeneration } from './media-helpers.ts';

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

const clip = (seconds: number) =>
  runFfmpeg([
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=64x48:rate=8:duration=${seconds}`,
    ...H264_OUTPUT_ARGS,
    '-f',
    'mp4',
    '-movflags',
    'frag_keyframe+empty_moov',
    'pipe:1',
  ]);
const tone = (seconds: number) =>
  runFfmpeg(['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`, '-f', 'wav', 'pipe:1']);
const png = (background: string) =>
  sharp({ create: { width: 64, height: 64, channels: 3, background } })
    .png()
    .toBuffer();

interface Flip {
  first: Buffer;
  later: Buffer;
  type: string;
  hits: number;
}

/** A user's media server that answers the first GET of a file with one version, later ones with another. */
async function startFlippingServer(files: Record<string, Omit<Flip, 'hits'>>) {
  const state = new Map<string, Flip>(Object.entries(files).map(([name, f]) => [name, { ...f, hits: 0 }]));
  const server: Server = createServer((req, res) => {
    const name = (req.url ?? '').replace(/^\/+/, '');
    const file = state.get(name);
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    file.hits += 1;
    const body = file.hits === 1 ? file.first : file.later;
    res.writeHead(200, { 'content-type': file.type, 'content-length': String(body.length) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (name: string) => `${base}/${name}`,
    hits: (name: string) => state.get(name)?.hits ?? 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('input media: the vendor gets the bytes we priced', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;
  let files: Awaited<ReturnType<typeof startFlippingServer>>;
  const media: Record<string, Buffer> = {};
  let shortSeconds = 0;

  before(async () => {
    [media.short, media.long, media.tone, media.longTone, media.red, media.blue] = await Promise.all([
      clip(1),
      clip(4),
      tone(1),
      tone(4),
      png('#cc2222'),
      png('#2222cc'),
    ]);
    shortSeconds = (await probeMedia(media.short as Buffer)).durationSeconds;
    const video = { first: media.short as Buffer, later: media.long as Buffer, type: 'video/mp4' };
    files = await startFlippingServer({
      'lip.mp4': video,
      'speech.wav': { first: media.tone as Buffer, later: media.longTone as Buffer, type: 'audio/wav' },
      'upscale.mp4': video,
      'photo.png': { first: media.red as Buffer, later: media.blue as Buffer, type: 'image/png' },
      'style.safetensors': {
        first: Buffer.alloc(256, 1),
        later: Buffer.alloc(256, 2),
        type: 'application/octet-stream',
      },
    });
    fal = await startFakeFal('fake-fal-key', { fetchInputs: true });
    server = await startTestServer({ env: { ...fal.env, WORKER_CONCURRENCY: '2' } });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    await server.close();
    await fal.close();
    await files.close();
  });

  async function post(path: string, body: Record<string, unknown>) {
    const r = await call<{ generation_id: string }>(server, 'POST', path, { token: team.key, body });
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r.body.generation_id;
  }

  /** The one fal job of an endpoint, and what it downloaded of each of its input fields. */
  function jobAt(endpoint: string) {
    const jobs = fal.submissions.filter((s) => s.endpoint === endpoint);
    assert.equal(jobs.length, 1, `one job at ${endpoint}`);
    const job = jobs[0] as (typeof jobs)[number];
    const read = (field: string) => {
      const url = job.input[field];
      assert.equal(typeof url, 'string', `${field} in ${JSON.stringify(job.input)}`);
      const got = job.fetched.find((f) => f.url === url);
      assert.equal(got?.status, 200, `fal could read ${field} at ${String(url)}`);
      return { url: url as string, body: got?.body as Buffer };
    };
    return { job, read };
  }

  /** Our copy's signed URL: on our /media/ route, with an expiry and a signature. */
  function assertSigned(url: string) {
    assert.ok(url.startsWith(`${server.url}/media/`), url);
    assert.match(url, /\/input-[0-9a-f]{32}\.[a-z0-9]+\?expires=\d+&signature=[A-Za-z0-9_-]{43}$/);
  }

  test('lip sync: the video and the audio fal reads are the ones we measured, priced by the first clip', async () => {
    const id = await post('/api/v1/videos/lipsync', {
      model: 'lipsync-2',
      video_url: files.url('lip.mp4'),
      audio_url: files.url('speech.wav'),
    });
    const done = await waitForGeneration(server, team.key, id, 30_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    assert.equal(done.credits_used, Math.ceil(7 * shortSeconds), 'priced by the 1 s clip (7 credits a second)');

    const { read } = jobAt('fal-ai/sync-lipsync/v2');
    const video = read('video_url');
    const audio = read('audio_url');
    assert.equal(sha(video.body), sha(media.short as Buffer), 'fal got the clip we probed, not the 4 s one');
    assert.equal(sha(audio.body), sha(media.tone as Buffer), 'fal got the audio we probed');
    assertSigned(video.url);
    assertSigned(audio.url);
    assert.equal(files.hits('lip.mp4'), 1, 'the user URL was fetched once, by us');
    assert.equal(files.hits('speech.wav'), 1);
  });

  test('an upscaler works on the clip it was priced for', async () => {
    const id = await post('/api/v1/videos/upscale', {
      model: 'topaz',
      video_url: files.url('upscale.mp4'),
      upscale_factor: 2,
    });
    const done = await waitForGeneration(server, team.key, id, 30_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    // 48 px × 2 is in the 720p tier: 6 credits a second of the 1 s clip.
    assert.equal(done.credits_used, Math.ceil(6 * shortSeconds));
    const video = jobAt('fal-ai/topaz/upscale/video').read('video_url');
    assert.equal(sha(video.body), sha(media.short as Buffer));
    assertSigned(video.url);
    assert.equal(files.hits('upscale.mp4'), 1);
  });

  test('an image edit model gets the image as it was when the request was accepted', async () => {
    const id = await post('/api/v1/images/edit', {
      prompt: 'make the sky purple',
      model: 'flux-kontext-pro',
      image_url: files.url('photo.png'),
    });
    const done = await waitForGeneration(server, team.key, id, 30_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    const image = jobAt('fal-ai/flux-pro/kontext').read('image_url');
    assert.equal(sha(image.body), sha(media.red as Buffer), 'the first image, not the one served later');
    assertSigned(image.url);
    assert.equal(files.hits('photo.png'), 1);
  });

  test('an input that cannot be copied is a 400 naming its field, and nothing is charged', async () => {
    const before = await balanceOf(server, team.key);
    const r = await call<ErrorReply>(server, 'POST', '/api/v1/images/edit', {
      token: team.key,
      body: { prompt: 'x', model: 'flux-kontext-pro', image_url: files.url('missing.png') },
    });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.error.code, 'invalid_request');
    assert.deepEqual(
      r.body.error.details?.map((d) => d.field),
      ['image_url'],
    );
    assert.match(r.body.error.message, /HTTP 404/);
    assert.equal(await balanceOf(server, team.key), before);
  });

  test('LoRA weights are copied too, keeping their file name', async () => {
    const id = await post('/api/v1/images/generate', {
      prompt: 'a lighthouse in the style',
      model: 'flux-1-dev',
      lora_url: files.url('style.safetensors'),
    });
    const done = await waitForGeneration(server, team.key, id, 30_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    const job = fal.submissions.find((s) => JSON.stringify(s.input).includes('a lighthouse in the style'));
    const path = (job?.input.loras as Array<{ path: string }> | undefined)?.[0]?.path ?? '';
    assert.ok(path.startsWith(`${server.url}/media/`), path);
    assert.match(new URL(path).pathname, /\/input-[0-9a-f]{32}\/style\.safetensors$/);
    assert.ok(new URL(path).searchParams.get('signature'), path);
    const got = job?.fetched.find((f) => f.url === path);
    assert.equal(got?.status, 200);
    assert.deepEqual(got?.body, Buffer.alloc(256, 1), 'the weights as they were at accept');
    assert.equal(files.hits('style.safetensors'), 1);
  });

  test('a signed input URL is refused once changed, unsigned or expired', async () => {
    const { url } = jobAt('fal-ai/sync-lipsync/v2').read('video_url');
    const good = await fetch(url);
    assert.equal(good.status, 200);
    assert.equal(good.headers.get('cache-control'), 'private, no-store');
    assert.equal(sha(Buffer.from(await good.arrayBuffer())), sha(media.short as Buffer));

    const parsed = new URL(url);
    const signature = parsed.searchParams.get('signature') ?? '';
    const expires = Number(parsed.searchParams.get('expires'));
    const key = parsed.pathname.replace(/^\/media\//, '');
    const wrongSignature = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    const refused = [
      `${parsed.origin}${parsed.pathname}`,
      `${parsed.origin}${parsed.pathname}?expires=${expires}&signature=${wrongSignature}`,
      `${parsed.origin}${parsed.pathname}?expires=${expires + 3600}&signature=${signature}`,
      // Signed for a time long past: it expired an hour ago.
      server.app.deps.mediaSigner.sign(
        key,
        new Date(Date.now() - 2 * 3600_000 - server.app.deps.config.inputUrlTtlSeconds * 1000),
      ),
    ];
    for (const wrong of refused) {
      const r = await fetch(wrong);
      assert.equal(r.status, 403, wrong);
      const body = (await r.json()) as { error: { code: string } };
      assert.equal(body.error.code, 'forbidden');
    }
  });

  test("another team's input copy is refused, signed or not, and nothing is charged", async () => {
    const { url } = jobAt('fal-ai/flux-pro/kontext').read('image_url');
    const plain = url.slice(0, url.indexOf('?'));
    const other = await createTeam(server, 1_000, 'other team');
    for (const image of [url, plain]) {
      const r = await call<ErrorReply>(server, 'POST', '/api/v1/images/edit', {
        token: other.key,
        body: { prompt: 'borrowed', model: 'flux-kontext-pro', image_url: image },
      });
      assert.equal(r.status, 400, `${image}: ${r.text}`);
      assert.equal(r.body.error.code, 'invalid_request');
      assert.deepEqual(
        r.body.error.details?.map((d) => d.field),
        ['image_url'],
      );
      assert.equal(await balanceOf(server, other.key), 1_000, 'nothing charged');
    }
    assert.ok(!fal.submissions.some((s) => JSON.stringify(s.input).includes('borrowed')), 'no vendor job');
  });

  test("an input URL is signed with the service's one credential key", async () => {
    const { url } = jobAt('fal-ai/sync-lipsync/v2').read('video_url');
    const parsed = new URL(url);
    const key = parsed.pathname.replace(/^\/media\//, '');
    const expected = server.app.deps.secrets.mac('signed-media', `${key}\n${parsed.searchParams.get('expires')}`);
    assert.equal(parsed.searchParams.get('signature'), expected);
  });

  test('the input copies are deleted with the results when the retention ends', async () => {
    const { url } = jobAt('fal-ai/sync-lipsync/v2').read('video_url');
    const key = new URL(url).pathname.replace(/^\/media\//, '');
    const generationId = key.split('/')[0] as string;
    const { rows } = await server.pool.query<{ input_keys: string[] }>(
      'select input_keys from generations where id = $1',
      [generationId],
    );
    assert.equal(rows[0]?.input_keys.length, 2, 'the video and the audio');
    assert.ok(rows[0]?.input_keys.includes(key));
    const storage = server.app.deps.storage;
    for (const k of rows[0]?.input_keys ?? []) {
      const object = await storage.get(k);
      assert.ok(object, `${k} is stored`);
      object.body.destroy();
    }
    await sweepRetention(server.pool, storage, {
      now: new Date(Date.now() + 31 * 86_400_000),
      recordsRetentionDays: 30,
    });
    for (const k of rows[0]?.input_keys ?? []) assert.equal(await storage.get(k), undefined, `${k} deleted`);
    assert.equal((await fetch(url)).status, 410, 'its signed URL answers gone');
  });
});

/** Every file under a directory, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

describe('input media: a request that is not accepted leaves nothing behind', () => {
  let server: TestServer;
  let files: Awaited<ReturnType<typeof startFlippingServer>>;

  before(async () => {
    const face = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#e0b090' } })
      .png()
      .toBuffer();
    const figure = await sharp({ create: { width: 120, height: 760, channels: 3, background: '#202040' } })
      .png()
      .toBuffer();
    const body = await sharp({ create: { width: 400, height: 800, channels: 3, background: '#ffffff' } })
      .composite([{ input: figure, left: 140, top: 20 }])
      .png()
      .toBuffer();
    const still = (data: Buffer) => ({ first: data, later: data, type: 'image/png' });
    files = await startFlippingServer({
      'face.png': still(face),
      'body.png': still(body),
      'weights.safetensors': {
        first: Buffer.alloc(256, 1),
        later: Buffer.alloc(256, 1),
        type: 'application/octet-stream',
      },
    });
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  const mediaFiles = () => filesUnder(join(server.dataDir, 'media'));

  test('an influencer quoted with Prefer: dry-run or refused for want of credits leaves no file', async () => {
    const rich = await createTeam(server, 10_000);
    const poor = await createTeam(server, 0, 'poor team');
    const body = { image_urls: [files.url('face.png'), files.url('body.png')] };
    const before = await mediaFiles();

    const quoted = await call<{ credits: number }>(server, 'POST', '/api/v1/influencers/create', {
      token: rich.key,
      body,
      headers: { prefer: 'dry-run' },
    });
    assert.equal(quoted.status, 200, quoted.text);
    assert.equal(quoted.headers.get('preference-applied'), 'dry-run');
    assert.deepEqual(await mediaFiles(), before, 'the dry run wrote nothing');

    const refused = await call<ErrorReply>(server, 'POST', '/api/v1/influencers/create', { token: poor.key, body });
    assert.equal(refused.status, 402, refused.text);
    assert.equal(refused.body.error.code, 'insufficient_credits');
    assert.deepEqual(await mediaFiles(), before, 'the refused request wrote nothing');
  });

  test('a team without the credits is refused before its LoRA weights are fetched', async () => {
    const poor = await createTeam(server, 0, 'poor team');
    const r = await call<ErrorReply & { error: { needed?: number; available?: number } }>(
      server,
      'POST',
      '/api/v1/images/generate',
      {
        token: poor.key,
        body: { prompt: 'a lighthouse', model: 'flux-1-dev', lora_url: files.url('weights.safetensors') },
      },
    );
    assert.equal(r.status, 402, r.text);
    assert.equal(r.body.error.code, 'insufficient_credits');
    assert.equal(r.body.error.available, 0);
    assert.ok((r.body.error.needed ?? 0) > 0, r.text);
    assert.match(r.body.error.message, /needs \d+ credits and the team has 0/);
    assert.equal(files.hits('weights.safetensors'), 0, 'the weights server saw no request');
  });
});

describe('input media: the simulator renders from our copy', () => {
  let server: TestServer;
  let team: TeamFixture;
  let files: Awaited<ReturnType<typeof startFlippingServer>>;
  let shortSeconds = 0;

  before(async () => {
    const [short, long] = await Promise.all([clip(1), clip(4)]);
    shortSeconds = (await probeMedia(short)).durationSeconds;
    files = await startFlippingServer({ 'clip.mp4': { first: short, later: long, type: 'video/mp4' } });
    server = await startTestServer();
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  test('an upscale the simulator makes has the length of the clip it was priced for', async () => {
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/videos/upscale', {
      token: team.key,
      body: { model: 'topaz', video_url: files.url('clip.mp4'), upscale_factor: 2 },
    });
    assert.equal(r.status, 200, r.text);
    const done = await waitForGeneration(server, team.key, r.body.generation_id, 60_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    assert.equal(done.credits_used, Math.ceil(6 * shortSeconds));
    const result = await probeMedia(Buffer.from(await (await fetch(done.items[0]?.url ?? '')).arrayBuffer()));
    assert.ok(Math.abs(result.durationSeconds - shortSeconds) < 0.5, `${result.durationSeconds} s, not the 4 s clip`);
    assert.equal(result.height, 96, 'the 48 px clip, doubled');
    assert.equal(files.hits('clip.mp4'), 1);
  });
});

describe('input media: a request whose answer was lost keeps its copies', () => {
  test('a generation committed after its request gave up on COMMIT still has its input, and completes', async () => {
    const [short, long] = await Promise.all([clip(1), clip(4)]);
    const files = await startFlippingServer({ 'slow.mp4': { first: short, later: long, type: 'video/mp4' } });
    // Our side gives up on a query after 3 s; the server commits all the same.
    const server = await startTestServer({ env: { DATABASE_QUERY_TIMEOUT_MS: '3000' } });
    try {
      const team = await createTeam(server, 10_000);
      // This team's generations take 6 s to commit (a deferred trigger runs at COMMIT).
      await server.pool.query(`
        create function slow_commit() returns trigger language plpgsql as $$
        begin
          if new.team_id = '${team.id}' then perform pg_sleep(6); end if;
          return null;
        end $$`);
      await server.pool.query(`
        create constraint trigger slow_commit after insert on generations
        deferrable initially deferred for each row execute function slow_commit()`);

      const r = await call<ErrorReply>(server, 'POST', '/api/v1/videos/upscale', {
        token: team.key,
        body: { model: 'topaz', video_url: files.url('slow.mp4'), upscale_factor: 2 },
      });
      assert.ok(r.status >= 500, `the request did not learn its outcome: ${r.status} ${r.text}`);
      // The generation was committed all the same (and charged).
      const deadline = Date.now() + 30_000;
      let row: { id: string; input_keys: string[] } | undefined;
      while (!row && Date.now() < deadline) {
        ({
          rows: [row],
        } = await server.pool.query<{ id: string; input_keys: string[] }>(
          'select id, input_keys from generations where team_id = $1',
          [team.id],
        ));
        if (!row) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(row, 'the generation was committed');
      assert.equal(row.input_keys.length, 1);
      const stored = await server.app.deps.storage.get(row.input_keys[0] as string);
      assert.ok(stored, 'its input copy is still stored');
      stored.body.destroy();
      const done = await waitForGeneration(server, team.key, row.id, 60_000);
      assert.equal(done.status, 'completed', JSON.stringify(done.items));
      assert.equal(files.hits('slow.mp4'), 1);
    } finally {
      await server.close();
      await files.close();
    }
  });
});

describe('input media: a vendor sent the bytes themselves gets our copy', () => {
  test('a voice clone at ElevenLabs is made from the recording we measured', async () => {
    const [first, later] = await Promise.all([tone(2), tone(6)]);
    const files = await startFlippingServer({ 'sample.wav': { first, later, type: 'audio/wav' } });
    const el = await startFakeElevenLabs();
    const server = await startTestServer({
      env: { ELEVENLABS_API_KEY: el.apiKey, ELEVENLABS_BASE_URL: el.url },
    });
    try {
      const team = await createTeam(server, 10_000);
      const created = await call(server, 'POST', '/api/v2/voice-clone', {
        token: team.key,
        body: { audio_url: files.url('sample.wav'), name: 'From a moving target' },
      });
      assert.equal(created.status, 200, created.text);
      assert.equal(el.clones.length, 1);
      assert.deepEqual(el.clones[0]?.files[0]?.data, first, 'the 2 s recording we measured, not the 6 s one');
      assert.equal(files.hits('sample.wav'), 1);
    } finally {
      await server.close();
      await el.close();
      await files.close();
    }
  });
});
