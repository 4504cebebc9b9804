import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { decodeAudio } from '../src/render/audio.ts';
import { analyzeSpeech } from '../src/render/speech.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import {
  balanceOf,
  expectError,
  expectInvalid,
  fetchAndProbe,
  generateAndWait,
  waitForGeneration,
  waitForInfluencer,
} from './media-helpers.ts';

interface Influencer {
  id: string;
  name: string;
  face_image: string;
  best_full_image: string;
  training_status: string;
  ready_for_generation: boolean;
  created_at: string;
}

/** Serves test pictures: a square face, a tall full-body figure, a landscape scene, and junk. */
async function startImageServer(): Promise<{ server: Server; url: (name: string) => string }> {
  const face = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#e0b090' } })
    .png()
    .toBuffer();
  // A dark figure spanning the full height of a white portrait frame.
  const figure = await sharp({ create: { width: 120, height: 760, channels: 3, background: '#202040' } })
    .png()
    .toBuffer();
  const body = await sharp({ create: { width: 400, height: 800, channels: 3, background: '#ffffff' } })
    .composite([{ input: figure, left: 140, top: 20 }])
    .png()
    .toBuffer();
  const scene = await sharp({ create: { width: 800, height: 450, channels: 3, background: '#3080c0' } })
    .jpeg()
    .toBuffer();
  const outfit = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();
  const files: Record<string, [string, Buffer]> = {
    '/face.png': ['image/png', face],
    '/body.png': ['image/png', body],
    '/scene.jpg': ['image/jpeg', scene],
    '/outfit.png': ['image/png', outfit],
    '/junk.png': ['image/png', Buffer.from('not really a png')],
  };
  const server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (!file) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url: (name) => `${base}/${name}` };
}

describe('influencers and voices', () => {
  let server: TestServer;
  let team: TeamFixture;
  let images: Awaited<ReturnType<typeof startImageServer>>;
  let ready: Influencer;

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 1_000_000);
    images = await startImageServer();
  });
  after(async () => {
    images.server.close();
    await server.close();
  });

  const create = (body: unknown, key = team.key) =>
    call<Record<string, unknown>>(server, 'POST', '/api/v1/influencers/create', { token: key, body });

  test('creation analyses the images, keeps copies, charges 250 credits and trains to ready', async () => {
    const fresh = await createTeam(server, 1000);
    const r = await create(
      { image_urls: [images.url('face.png'), images.url('scene.jpg'), images.url('body.png')] },
      fresh.key,
    );
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), [
      'credits_used',
      'influencer_id',
      'name',
      'ready_for_generation',
      'status',
    ]);
    assert.equal(r.body.status, 'training');
    assert.equal(r.body.ready_for_generation, false);
    assert.equal(r.body.credits_used, 250);
    assert.match(String(r.body.name), /^[A-Z][a-z]+ [A-Z][a-z]+$/);
    assert.equal(await balanceOf(server, fresh.key), 750);
    const influencer = await waitForInfluencer<Influencer>(server, fresh.key, String(r.body.influencer_id));
    assert.equal(influencer.training_status, 'completed');
    assert.deepEqual(Object.keys(influencer).sort(), [
      'best_full_image',
      'created_at',
      'face_image',
      'id',
      'name',
      'ready_for_generation',
      'training_status',
    ]);
    // Our own copies: the first image is the face, the tall full-body one is chosen as best.
    assert.ok(influencer.face_image.startsWith(server.url));
    const face = await sharp(Buffer.from(await (await fetch(influencer.face_image)).arrayBuffer())).metadata();
    assert.deepEqual([face.width, face.height], [512, 512]);
    const full = await sharp(Buffer.from(await (await fetch(influencer.best_full_image)).arrayBuffer())).metadata();
    assert.deepEqual([full.width, full.height], [400, 800]);
  });

  test('1 and 20 images are accepted, 0 and 21 are not; age must be 18 or more', async () => {
    const url = images.url('face.png');
    const one = await create({ image_urls: [url], name: 'Solo' });
    assert.equal(one.status, 200, one.text);
    ready = await waitForInfluencer<Influencer>(server, team.key, String(one.body.influencer_id));
    assert.equal((await create({ image_urls: Array(20).fill(url), name: 'Twenty', age: 18 })).status, 200);
    await expectInvalid(server, team.key, '/api/v1/influencers/create', [
      [{ image_urls: Array(21).fill(url) }, 'image_urls'],
      [{ image_urls: [] }, 'image_urls'],
      [{ image_urls: [url], age: 17 }, 'age'],
    ]);
  });

  test('an image that does not decode is a 400 naming it, and nothing is charged', async () => {
    const before = await balanceOf(server, team.key);
    const r = await expectError(
      server,
      team.key,
      '/api/v1/influencers/create',
      { image_urls: [images.url('face.png'), images.url('junk.png')] },
      400,
      'invalid_request',
      'image_urls[1]',
    );
    assert.match(r.error.message, /image_urls\[1\]/);
    await expectError(
      server,
      team.key,
      '/api/v1/influencers/create',
      { image_urls: [images.url('missing.png')] },
      400,
      'invalid_request',
      'image_urls[0]',
    );
    assert.equal(await balanceOf(server, team.key), before);
  });

  test('names are unique in a team; generated names avoid the taken ones; 402 below 250 credits', async () => {
    await expectError(
      server,
      team.key,
      '/api/v1/influencers/create',
      { image_urls: [images.url('face.png')], name: 'solo' },
      400,
      'invalid_request',
      'name',
    );
    const poor = await createTeam(server, 249);
    const r = await call<{ error: { code: string } }>(server, 'POST', '/api/v1/influencers/create', {
      token: poor.key,
      body: { image_urls: [images.url('face.png')] },
    });
    assert.equal(r.status, 402);
    assert.equal((await call<unknown[]>(server, 'GET', '/api/v1/influencers', { token: poor.key })).body.length, 0);
    const names = new Set<string>();
    for (let i = 0; i < 3; i++) names.add(String((await create({ image_urls: [images.url('face.png')] })).body.name));
    assert.equal(names.size, 3);
  });

  test('an influencer still training is 400 influencer_not_ready; another team’s is 404', async () => {
    // A service with no worker (its own database): the training it accepts stays queued.
    const slow = await startTestServer({ env: { ROLE: 'api' } });
    try {
      const waiting = await createTeam(slow, 1000);
      const r = await call<{ influencer_id: string }>(slow, 'POST', '/api/v1/influencers/create', {
        token: waiting.key,
        body: { image_urls: [images.url('face.png')] },
      });
      const id = r.body.influencer_id;
      await expectError(
        slow,
        waiting.key,
        '/api/v1/influencers/generate',
        { influencer_id: id },
        400,
        'influencer_not_ready',
      );
      await expectError(
        slow,
        waiting.key,
        '/api/v1/images/generate',
        { prompt: 'x', influencer_id: id },
        400,
        'influencer_not_ready',
      );
      await expectError(
        slow,
        waiting.key,
        '/api/v1/influencers/video',
        { influencer_id: id, prompt: 'x' },
        400,
        'influencer_not_ready',
      );
      await expectError(
        slow,
        waiting.key,
        '/api/v1/videos/reference-to-video',
        { prompt: '@Element1 walks', influencer_id: id },
        400,
        'influencer_not_ready',
      );
    } finally {
      await slow.close();
    }
    const other = await createTeam(server, 1000);
    await expectError(server, other.key, '/api/v1/influencers/generate', { influencer_id: ready.id }, 404, 'not_found');
    await expectError(
      server,
      other.key,
      '/api/v1/voices/generate',
      { method: 'design', prompt: 'calm', influencer_id: ready.id },
      404,
      'not_found',
    );
  });

  test('influencer images compose the face with the given references; batch 1-4', async () => {
    const base = await generateAndWait(server, team.key, '/api/v1/influencers/generate', {
      influencer_id: ready.id,
      prompt: 'at the beach',
    });
    const dressed = await generateAndWait(server, team.key, '/api/v1/influencers/generate', {
      influencer_id: ready.id,
      prompt: 'at the beach',
      outfit_image: images.url('outfit.png'),
    });
    const a = await fetch(base.url).then((r) => r.arrayBuffer());
    const b = await fetch(dressed.url).then((r) => r.arrayBuffer());
    assert.ok(!Buffer.from(a).equals(Buffer.from(b)), 'the outfit changes the result');
    assert.equal(base.created.credits_used, 8);
    for (const [batch, status] of [
      [1, 200],
      [4, 200],
      [0, 400],
      [5, 400],
    ] as const) {
      const r = await call(server, 'POST', '/api/v1/influencers/generate', {
        token: team.key,
        body: { influencer_id: ready.id, batch },
      });
      assert.equal(r.status, status, `batch ${batch}`);
    }
    await expectError(
      server,
      team.key,
      '/api/v1/influencers/generate',
      { influencer_id: ready.id, camera_style: 'film' },
      400,
      'invalid_request',
      'camera_style',
    );
    await expectError(
      server,
      team.key,
      '/api/v1/influencers/generate',
      { influencer_id: 'inf_00000000000000000000000000' },
      404,
      'not_found',
    );
    const viaImages = await generateAndWait(server, team.key, '/api/v1/images/generate', {
      prompt: 'portrait',
      influencer_id: ready.id,
    });
    assert.equal(viaImages.created.credits_used, 8);
  });

  test('voices: design and clone, previews in that voice, list, read and association', async () => {
    const deep = await call<Record<string, unknown>>(server, 'POST', '/api/v1/voices/generate', {
      token: team.key,
      body: { method: 'design', prompt: 'a deep, slow, calm male narrator', influencer_id: ready.id },
    });
    assert.equal(deep.status, 200, deep.text);
    assert.deepEqual(Object.keys(deep.body).sort(), [
      'audio_url',
      'credits_used',
      'influencer_id',
      'name',
      'status',
      'type',
      'voice_id',
    ]);
    assert.equal(deep.body.type, 'designed');
    assert.equal(deep.body.influencer_id, ready.id);
    assert.equal(deep.body.credits_used, 50);
    const high = await call<Record<string, unknown>>(server, 'POST', '/api/v1/voices/generate', {
      token: team.key,
      body: { method: 'design', prompt: 'a high, bright, fast young female voice', name: 'Bright' },
    });
    const pitch = async (url: unknown) => {
      const { data } = await fetchAndProbe(String(url));
      const { samples, sampleRate } = await decodeAudio(data, 16000);
      return analyzeSpeech(samples, sampleRate).f0;
    };
    const [low, hi] = await Promise.all([pitch(deep.body.audio_url), pitch(high.body.audio_url)]);
    assert.ok(low > 0 && hi > low * 1.3, `deep ${low} Hz, high ${hi} Hz`);

    const clone = await call<Record<string, unknown>>(server, 'POST', '/api/v1/voices/generate', {
      token: team.key,
      body: { method: 'clone', audio_url: high.body.audio_url, name: 'Clone of bright' },
    });
    assert.equal(clone.status, 200, clone.text);
    assert.equal(clone.body.type, 'cloned');
    assert.equal(clone.body.credits_used, 100);
    const cloned = await pitch(clone.body.audio_url);
    assert.ok(Math.abs(cloned - hi) / hi < 0.25, `clone ${cloned} Hz vs sample ${hi} Hz`);

    await expectInvalid(server, team.key, '/api/v1/voices/generate', [
      [{ method: 'clone' }, 'audio_url'],
      [{ method: 'design' }, 'prompt'],
      [{ method: 'clone', audio_url: images.url('face.png') }, 'audio_url'],
      [{ method: 'sing', prompt: 'x' }, 'method'],
    ]);

    const list = await call<Array<Record<string, unknown>>>(server, 'GET', '/api/v1/voices', { token: team.key });
    assert.ok(list.body.length >= 3);
    for (const v of list.body) assert.ok(!('custom_voice_id' in v));
    const mine = await call<Array<Record<string, unknown>>>(server, 'GET', `/api/v1/voices?influencer_id=${ready.id}`, {
      token: team.key,
    });
    assert.deepEqual(
      mine.body.map((v) => v.id),
      [deep.body.voice_id],
    );
    assert.equal(mine.body[0]?.influencer_name, ready.name);
    const one = await call<Record<string, unknown>>(server, 'GET', `/api/v1/voices/${deep.body.voice_id}`, {
      token: team.key,
    });
    assert.match(String(one.body.custom_voice_id), /^sim_/);
    const other = await createTeam(server, 10);
    assert.equal((await call(server, 'GET', `/api/v1/voices/${deep.body.voice_id}`, { token: other.key })).status, 404);
    assert.equal((await call<unknown[]>(server, 'GET', '/api/v1/voices', { token: other.key })).body.length, 0);
  });

  test('v2 clone and design give voices that text-to-speech speaks with; v2 lists them', async () => {
    const designed = await call<{ voice_id: string; audio_url: string }>(server, 'POST', '/api/v2/voice-design', {
      token: team.key,
      body: { prompt: 'warm and friendly' },
    });
    assert.equal(designed.status, 200, designed.text);
    const cloned = await call<{ voice_id: string }>(server, 'POST', '/api/v2/voice-clone', {
      token: team.key,
      body: { audio_url: designed.body.audio_url },
    });
    assert.equal(cloned.status, 200, cloned.text);
    for (const voice of [designed.body.voice_id, cloned.body.voice_id]) {
      const tts = await call<{ audio_url: string }>(server, 'POST', '/api/v2/text-to-speech', {
        token: team.key,
        body: { voice_id: voice, text: 'Speaking with my own voice.' },
      });
      assert.equal(tts.status, 200, tts.text);
      assert.ok((await fetchAndProbe(tts.body.audio_url)).probe.hasAudio);
    }
    const listed = await call<Array<{ voice_id: string; type: string }>>(server, 'GET', '/api/v2/voices', {
      token: team.key,
    });
    assert.ok(listed.body.some((v) => v.voice_id === designed.body.voice_id && v.type === 'designed'));
    assert.ok(listed.body.some((v) => v.voice_id === cloned.body.voice_id && v.type === 'cloned'));
    const other = await createTeam(server, 100);
    await expectError(
      server,
      other.key,
      '/api/v2/text-to-speech',
      { voice_id: designed.body.voice_id, text: 'x' },
      404,
      'not_found',
    );
  });

  test('influencer video: planned frames first, video later, voice conversion when the influencer has a voice', async () => {
    const fresh = await create({ image_urls: [images.url('face.png')], name: 'Voiceless' });
    const voiceless = await waitForInfluencer<Influencer>(server, team.key, String(fresh.body.influencer_id));
    const path = '/api/v1/influencers/video';
    const plain = await call<Record<string, unknown>>(server, 'POST', path, {
      token: team.key,
      body: { influencer_id: voiceless.id, prompt: 'unboxing a phone', dialog: 'Look at this, it is amazing.' },
    });
    assert.equal(plain.status, 200, plain.text);
    assert.equal(plain.body.video_url, null);
    assert.equal(plain.body.has_voice_conversion, false);
    for (const frame of [plain.body.first_frame_url, plain.body.last_frame_url]) {
      const r = await fetch(String(frame));
      assert.equal(r.status, 200, 'the frames exist when the answer arrives');
      const meta = await sharp(Buffer.from(await r.arrayBuffer())).metadata();
      assert.ok((meta.height ?? 0) > (meta.width ?? 0), '9:16 by default');
    }
    const status = await waitForGeneration(server, team.key, String(plain.body.generation_id));
    assert.equal(status.status, 'completed');
    assert.equal(status.result_urls.length, 3);
    const { probe } = await fetchAndProbe(status.result_urls[2] ?? '');
    assert.ok(probe.hasVideo && probe.hasAudio);
    assert.equal(plain.body.credits_used, 30 * 4);

    const voiced = await call<Record<string, unknown>>(server, 'POST', path, {
      token: team.key,
      body: { influencer_id: ready.id, prompt: 'a morning routine', aspect_ratio: '16:9' },
    });
    assert.equal(voiced.body.has_voice_conversion, true);
    await expectInvalid(server, team.key, path, [
      [{ influencer_id: ready.id }, 'prompt'],
      [{ influencer_id: ready.id, prompt: 'x', aspect_ratio: '1:1' }, 'aspect_ratio'],
    ]);
  });

  test('talking head in generate mode speaks with the influencer’s latest voice, 400 when it has none', async () => {
    const fresh = await create({ image_urls: [images.url('face.png')], name: 'Mute' });
    const mute = await waitForInfluencer<Influencer>(server, team.key, String(fresh.body.influencer_id));
    const r = await expectError(
      server,
      team.key,
      '/api/v1/videos/talking-head',
      { script: 'hello', influencer_id: mute.id, start_image_url: images.url('face.png') },
      400,
      'invalid_request',
      'influencer_id',
    );
    assert.match(r.error.message, /no voice/);
    const done = await generateAndWait(server, team.key, '/api/v1/videos/talking-head', {
      script: 'Hello everyone, welcome back.',
      influencer_id: ready.id,
      start_image_url: images.url('face.png'),
    });
    assert.ok((await fetchAndProbe(done.url)).probe.hasAudio);
    const sheet = server.app.deps.media.talking_head.find((m) => m.sheet_based && m.needs_audio);
    if (sheet) {
      const viaSheet = await call(server, 'POST', '/api/v1/videos/talking-head', {
        token: team.key,
        body: {
          script: 'hi',
          influencer_id: ready.id,
          model: sheet.id,
          static_camera: false,
          camera_motion_prompt: 'slow dolly in',
        },
      });
      assert.equal(viaSheet.status, 200, viaSheet.text);
    }
  });

  test('reference-to-video maps the influencer to @Element1 and numbers elements from @Element2', async () => {
    const path = '/api/v1/videos/reference-to-video';
    const element = { frontal_image_url: images.url('outfit.png'), reference_image_urls: [images.url('outfit.png')] };
    const ok = await call(server, 'POST', path, {
      token: team.key,
      body: { prompt: '@Element1 hands @Element2 to the camera', influencer_id: ready.id, elements: [element] },
    });
    assert.equal(ok.status, 200, ok.text);
    await expectError(
      server,
      team.key,
      path,
      { prompt: '@Element3 waves', influencer_id: ready.id, elements: [element] },
      400,
      'invalid_request',
      'prompt',
    );
  });
});
