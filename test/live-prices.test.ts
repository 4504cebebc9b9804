// Live prices of everything priced: upscalers and the provider family of video models (priced by
// tier and by quality), motion control, the LoRA video model, the influencer model (images,
// training) and influencer videos, speech and voices. An override applies to quotes and to
// requests accepted after it; a request accepted before keeps the price it was charged. A team's
// price multiplier shows in the model list as it is charged.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import {
  fetchAndProbe,
  generateAndWait,
  startWeightsServer,
  waitForGeneration,
  waitForInfluencer,
} from './media-helpers.ts';

interface ListEntry {
  id: string;
  kind: string;
  price: { credits: number | Record<string, number>; unit: string; multiplier?: number };
}

describe('live prices of every priced model', () => {
  let server: TestServer;
  let team: TeamFixture;
  let weights: Awaited<ReturnType<typeof startWeightsServer>>;
  let pictures: Server;
  let faceUrl: string;
  /** A short clip (the LoRA video model's), measured. */
  let clip: { url: string; duration: number };

  before(async () => {
    weights = await startWeightsServer();
    const face = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#e0b090' } })
      .png()
      .toBuffer();
    pictures = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(face));
    await new Promise<void>((r) => pictures.listen(0, '127.0.0.1', r));
    faceUrl = `http://127.0.0.1:${(pictures.address() as AddressInfo).port}/face.png`;
    server = await startTestServer({ env: { WORKER_CONCURRENCY: '2' } });
    team = await createTeam(server, 1_000_000);
    const lora = await call<{ video_url: string }>(server, 'POST', '/api/v1/videos/wan-2.2-lora', {
      token: team.key,
      body: loraBody(),
    });
    assert.equal(lora.status, 200, lora.text);
    const { probe } = await fetchAndProbe(lora.body.video_url);
    clip = { url: lora.body.video_url, duration: probe.durationSeconds };
  });
  after(async () => {
    weights?.close();
    pictures?.close();
    await server?.close();
  });

  const loraBody = () => ({
    mode: 't2v',
    prompt: 'a small clip',
    loras: [{ path: weights.url('a.safetensors'), scale: 1, transformer: 'high' }],
    settings: { resolution: '480p', num_frames: 32, frames_per_second: 16 },
  });
  const admin = <T = unknown>(method: string, path: string, body?: unknown) =>
    call<T>(server, method, path, { token: server.adminToken, ...(body === undefined ? {} : { body }) });
  const post = (who: TeamFixture, path: string, body: unknown) =>
    call<Record<string, unknown>>(server, 'POST', path, { token: who.key, body });
  const quote = async (who: TeamFixture, path: string, body: unknown) => {
    const reply = await call<{ credits: number }>(server, 'POST', path, {
      token: who.key,
      body,
      headers: { prefer: 'dry-run' },
    });
    assert.equal(reply.status, 200, `${path}: ${reply.text}`);
    return reply.body.credits;
  };
  /** Waits (bounded) until the quote of `body` is `expected`: the change has reached this process. */
  const quoteBecomes = async (who: TeamFixture, path: string, body: unknown, expected: number) => {
    const deadline = Date.now() + 5000;
    let last = await quote(who, path, body);
    while (last !== expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      last = await quote(who, path, body);
    }
    assert.equal(last, expected, `${path} is quoted ${expected}`);
  };
  const setPrice = async (kind: string, model: string, price: unknown) => {
    const reply = await admin<{ price: unknown; catalog_price: unknown }>(
      'PATCH',
      `/admin/v1/models/${kind}/${model}`,
      { price },
    );
    assert.equal(reply.status, 200, reply.text);
    return reply.body;
  };
  const charged = async (generationId: string) =>
    Number(
      (await server.pool.query('select credits_charged from generations where id = $1', [generationId])).rows[0]
        .credits_charged,
    );
  const listed = async (who: TeamFixture, kind: string, id: string) => {
    const reply = await call<{ data: ListEntry[] }>(server, 'GET', `/api/v1/models?kind=${kind}`, { token: who.key });
    const entry = reply.body.data.find((m) => m.id === id);
    assert.ok(entry, `${kind} ${id} is listed`);
    return entry;
  };

  test('the provider family by quality: new requests and quotes at once, a request accepted before keeps its price', async () => {
    const who = await createTeam(server, 100_000);
    const family = server.app.deps.media.video.find((m) => m.provider_family);
    assert.ok(family);
    const duration = family.settings.durations[0] as number;
    const body = { prompt: 'a lighthouse', model: family.id, settings: { duration, quality: 'basic' } };
    const earlier = await post(who, '/api/v1/videos/generate', body);
    assert.equal(earlier.status, 200, earlier.text);
    assert.equal(earlier.body.credits_used, 40 * duration);

    const set = await setPrice('video', family.id, { credits_per_second_by_quality: { basic: 3, high: 5.5 } });
    assert.deepEqual(set.catalog_price, { credits_per_second_by_quality: { basic: 40, high: 90 } });
    await quoteBecomes(who, '/api/v1/videos/generate', body, 3 * duration);
    const high = { ...body, settings: { duration, quality: 'high' } };
    assert.equal(await quote(who, '/api/v1/videos/generate', high), Math.ceil(5.5 * duration));
    const later = await post(who, '/api/v1/videos/generate', body);
    assert.equal(later.body.credits_used, 3 * duration);
    assert.deepEqual((await listed(who, 'video', family.id)).price.credits, { basic: 3, high: 5.5 });

    await waitForGeneration(server, who.key, String(earlier.body.generation_id));
    assert.equal(
      await charged(String(earlier.body.generation_id)),
      40 * duration,
      'the earlier request keeps its price',
    );
    await setPrice('video', family.id, null);
    await quoteBecomes(who, '/api/v1/videos/generate', body, 40 * duration);
  });

  test('upscalers by output tier and by output megapixel, and motion control by input second', async () => {
    const who = await createTeam(server, 100_000);
    const upscale = { video_url: clip.url, upscale_factor: 2 };
    const earlier = await post(who, '/api/v1/videos/upscale', upscale);
    assert.equal(earlier.status, 200, earlier.text);
    const before = await charged(String(earlier.body.generation_id));

    const tiers = { '720p': 0.5, '1080p': 0.5, '1440p': 0.5, '2160p': 0.5 };
    const set = await setPrice('upscale', 'topaz', {
      credits_per_second_by_tier: tiers,
      credits_per_output_megapixel: 1,
    });
    assert.deepEqual(Object.keys(set.catalog_price as object).sort(), [
      'credits_per_output_megapixel',
      'credits_per_second_by_tier',
    ]);
    const expected = Math.max(1, Math.ceil(0.5 * clip.duration));
    assert.notEqual(expected, before);
    await quoteBecomes(who, '/api/v1/videos/upscale', upscale, expected);
    const later = await post(who, '/api/v1/videos/upscale', upscale);
    assert.equal(await charged(String(later.body.generation_id)), expected);
    assert.deepEqual((await listed(who, 'upscale', 'topaz')).price.credits, tiers);

    // The deprecated upscaler-named endpoint prices by its upscaler's megapixel rate.
    const seedvr = server.app.deps.media.upscalers.find((u) => u.id === 'seedvr2');
    assert.ok(seedvr);
    await setPrice('upscale', 'seedvr2', {
      credits_per_second_by_tier: seedvr.credits_per_second_by_tier,
      credits_per_output_megapixel: 1000,
    });
    const { probe } = await fetchAndProbe(clip.url);
    const megapixels = ((probe.width ?? 0) * 2 * (probe.height ?? 0) * 2) / 1e6;
    await quoteBecomes(
      who,
      '/api/v1/videos/upscale/seedvr2',
      { video_url: clip.url, upscale_factor: 2 },
      Math.ceil(1000 * megapixels * clip.duration),
    );

    const image = await generateAndWait(server, who.key, '/api/v1/images/generate', {
      prompt: 'a dancer',
      model: 'flux-1-schnell',
    });
    const motion = { video_url: clip.url, image_url: image.url };
    assert.equal(await quote(who, '/api/v1/videos/motion-control', motion), Math.max(1, Math.ceil(14 * clip.duration)));
    await setPrice('video', 'kling-2.6-motion-control', { credits_per_second: 100 });
    await quoteBecomes(who, '/api/v1/videos/motion-control', motion, Math.ceil(100 * clip.duration));
    const moved = await post(who, '/api/v1/videos/motion-control', motion);
    assert.equal(await charged(String(moved.body.generation_id)), Math.ceil(100 * clip.duration));

    await waitForGeneration(server, who.key, String(earlier.body.generation_id));
    assert.equal(await charged(String(earlier.body.generation_id)), before, 'the earlier upscale keeps its price');
    for (const [kind, model] of [
      ['upscale', 'topaz'],
      ['upscale', 'seedvr2'],
      ['video', 'kling-2.6-motion-control'],
    ]) {
      await setPrice(kind as string, model as string, null);
    }
  });

  test('the LoRA video model by resolution', async () => {
    const who = await createTeam(server, 100_000);
    const path = '/api/v1/videos/wan-2.2-lora';
    const seconds = 32 / 16;
    const first = await post(who, path, loraBody());
    assert.equal(first.status, 200, first.text);
    assert.equal(await charged(String(first.body.generation_id)), 6 * seconds);
    await setPrice('video', 'wan-2.2-lora', {
      credits_per_second_by_resolution: { '480p': 20, '580p': 30, '720p': 40 },
    });
    await quoteBecomes(who, path, loraBody(), 20 * seconds);
    const second = await post(who, path, loraBody());
    assert.equal(await charged(String(second.body.generation_id)), 20 * seconds);
    assert.equal(await charged(String(first.body.generation_id)), 6 * seconds, 'the earlier request keeps its price');
    assert.deepEqual((await listed(who, 'video', 'wan-2.2-lora')).price.credits, {
      '480p': 20,
      '580p': 30,
      '720p': 40,
    });
    await setPrice('video', 'wan-2.2-lora', null);
  });

  test('the influencer model (training, images) and influencer videos', async () => {
    const who = await createTeam(server, 100_000);
    const create = { image_urls: [faceUrl] };
    const first = await post(who, '/api/v1/influencers/create', create);
    assert.equal(first.body.credits_used, 250);
    const influencer = await waitForInfluencer(server, who.key, String(first.body.influencer_id));

    await setPrice('image', 'influencer-v1', {
      credits_per_image: 3,
      credits_per_lora_image: 5,
      credits_per_training: 70,
    });
    await quoteBecomes(who, '/api/v1/influencers/create', create, 70);
    const second = await post(who, '/api/v1/influencers/create', create);
    assert.equal(second.body.credits_used, 70);
    const training = (await admin<Array<{ amount: number }>>('GET', `/admin/v1/teams/${who.id}/ledger`)).body
      .filter((e) => e.amount < 0)
      .map((e) => e.amount);
    assert.deepEqual(training.sort(), [-250, -70].sort(), 'the earlier training keeps its price');

    const images = { influencer_id: influencer.id, batch: 2 };
    assert.equal(await quote(who, '/api/v1/influencers/generate', images), 6);
    assert.equal(
      await quote(who, '/api/v1/images/generate', { prompt: 'on a beach', influencer_id: influencer.id }),
      3,
    );
    assert.equal(
      await quote(who, '/api/v1/influencers/generate', { ...images, lora_url: weights.url('face.safetensors') }),
      10,
    );
    assert.deepEqual((await listed(who, 'image', 'influencer-v1')).price.credits, { standard: 3, lora: 5 });

    const video = { influencer_id: influencer.id, prompt: 'waving' };
    const seconds = 8; // no dialog
    assert.equal(await quote(who, '/api/v1/influencers/video', video), 30 * seconds);
    await setPrice('video', 'influencer-video', { credits_per_second: 2.5 });
    await quoteBecomes(who, '/api/v1/influencers/video', video, 20);
    const made = await post(who, '/api/v1/influencers/video', video);
    assert.equal(made.status, 200, made.text);
    assert.equal(await charged(String(made.body.generation_id)), 20);
    for (const [kind, model] of [
      ['image', 'influencer-v1'],
      ['video', 'influencer-video'],
    ]) {
      await setPrice(kind as string, model as string, null);
    }
  });

  test('speech and voices (clone, design), and the voices of the model list follow the speech price', async () => {
    const who = await createTeam(server, 100_000);
    const speech = { voice_id: 'Wise_Woman', text: 'Hello there.' };
    const first = await post(who, '/api/v2/text-to-speech', speech);
    assert.equal(first.body.credits_used, 25);
    await setPrice('voice', 'tts', { credits_per_generation: 4 });
    await quoteBecomes(who, '/api/v2/text-to-speech', speech, 4);
    const second = await post(who, '/api/v2/text-to-speech', speech);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.credits_used, 4);
    assert.equal((await listed(who, 'voice', 'tts')).price.credits, 4);
    assert.equal((await listed(who, 'voice', 'Wise_Woman')).price.credits, 4);

    const design = { method: 'design', prompt: 'a calm, warm narrator' };
    const designed = await post(who, '/api/v1/voices/generate', design);
    assert.equal(designed.body.credits_used, 50);
    await setPrice('voice', 'voice-design-v1', { credits_per_voice: 7 });
    await setPrice('voice', 'voice-clone-v1', { credits_per_voice: 9 });
    await quoteBecomes(who, '/api/v1/voices/generate', design, 7);
    const again = await post(who, '/api/v1/voices/generate', design);
    assert.equal(again.body.credits_used, 7);
    assert.equal(
      await quote(who, '/api/v1/voices/generate', { method: 'clone', audio_url: String(first.body.audio_url) }),
      9,
    );
    const amounts = (await admin<Array<{ amount: number }>>('GET', `/admin/v1/teams/${who.id}/ledger`)).body
      .filter((e) => e.amount < 0)
      .map((e) => e.amount)
      .sort((x, y) => x - y);
    assert.deepEqual(amounts, [-50, -25, -7, -4], 'each request charged the price of its time');
    for (const model of ['tts', 'voice-design-v1', 'voice-clone-v1']) await setPrice('voice', model, null);
  });

  test('bad price objects are 400 naming the field; endpoint models are not switched off here; nothing written', async () => {
    const family = server.app.deps.media.video.find((m) => m.provider_family);
    assert.ok(family);
    const cases: Array<[string, unknown, string]> = [
      [`video/${family.id}`, { credits_per_second: 3 }, 'price'],
      [`video/${family.id}`, { credits_per_second_by_quality: { basic: 3 } }, 'price.credits_per_second_by_quality'],
      ['upscale/topaz', { credits_per_second_by_tier: { '720p': 1 } }, 'price'],
      ['upscale/topaz', { credits_per_second_by_tier: { '720p': 0 }, credits_per_output_megapixel: 1 }, 'price'],
      ['voice/tts', { credits_per_generation: 2.5 }, 'price.credits_per_generation'],
      ['voice/voice-clone-v1', { credits_per_generation: 2 }, 'price'],
      ['image/influencer-v1', { credits_per_image: 3 }, 'price'],
      ['video/wan-2.2-lora', { credits_per_second_by_resolution: { '480p': 1, '580p': 1 } }, 'price'],
    ];
    const audit = async () => (await admin<{ data: unknown[] }>('GET', '/admin/v1/audit?limit=100')).body.data.length;
    const count = await audit();
    for (const [path, price, field] of cases) {
      const reply = await admin<{ error: { details?: Array<{ field: string }> } }>(
        'PATCH',
        `/admin/v1/models/${path}`,
        { price },
      );
      assert.equal(reply.status, 400, `${path} ${JSON.stringify(price)}: ${reply.text}`);
      assert.ok(
        reply.body.error.details?.some((d) => d.field === field || d.field.startsWith(`${field}.`)),
        `${path} names ${field}: ${reply.text}`,
      );
    }
    const off = await admin('PATCH', '/admin/v1/models/voice/tts', { available: false });
    assert.equal(off.status, 400, off.text);
    assert.equal((await admin('PATCH', '/admin/v1/models/voice/no-such-voice', { price: null })).status, 404);
    assert.equal(await audit(), count, 'no audit row');
    const read = await admin<{ price: unknown; catalog_price: unknown }>('GET', '/admin/v1/models/voice/tts');
    assert.deepEqual(
      [read.body.price, read.body.catalog_price],
      [{ credits_per_generation: 25 }, { credits_per_generation: 25 }],
    );
  });

  test('the configuration file exports and applies the new price objects', async () => {
    const tts = await setPrice('voice', 'tts', { credits_per_generation: 11 });
    assert.deepEqual(tts.price, { credits_per_generation: 11 });
    const exported = await admin<{ models: Record<string, Record<string, { price?: unknown }>> }>(
      'GET',
      '/admin/v1/config',
    );
    assert.deepEqual(exported.body.models.voice?.tts?.price, { credits_per_generation: 11 });
    const document = structuredClone(exported.body);
    document.models.upscale = {
      topaz: { price: { credits_per_second_by_tier: { '720p': 2 }, credits_per_output_megapixel: 1 } },
    };
    delete document.models.voice;
    const applied = await admin<{ changes: Array<{ target: string }> }>('POST', '/admin/v1/config/apply', { document });
    assert.equal(applied.status, 200, applied.text);
    assert.deepEqual(applied.body.changes.map((c) => c.target).sort(), ['model upscale:topaz', 'model voice:tts']);
    assert.deepEqual((await admin<{ price: unknown }>('GET', '/admin/v1/models/upscale/topaz')).body.price, {
      credits_per_second_by_tier: { '720p': 2 },
      credits_per_output_megapixel: 1,
    });
    const bad = structuredClone(document);
    bad.models.voice = { tts: { price: { credits_per_voice: 3 } } };
    const refused = await admin<{ error: { details: Array<{ field: string }> } }>('POST', '/admin/v1/config/apply', {
      document: bad,
    });
    assert.equal(refused.status, 400, refused.text);
    assert.ok(refused.body.error.details.some((d) => d.field.startsWith('document.models.voice.tts.price')));
    await setPrice('upscale', 'topaz', null);
  });

  test('the model list shows what a team with a multiplier is charged', async () => {
    const who = await createTeam(server, 100_000);
    const changed = await admin('PATCH', `/admin/v1/teams/${who.id}`, { price_multiplier: 1.5 });
    assert.equal(changed.status, 200, changed.text);
    // An image model: 4 credits an image, 6 for this team, listed and charged alike.
    await quoteBecomes(who, '/api/v1/images/generate', { prompt: 'a fox', model: 'flux-1-dev' }, 6);
    const image = await listed(who, 'image', 'flux-1-dev');
    assert.deepEqual([image.price.credits, image.price.multiplier], [6, 1.5]);
    const made = await post(who, '/api/v1/images/generate', { prompt: 'a fox', model: 'flux-1-dev', batch: 2 });
    assert.equal(made.body.credits_used, 2 * (image.price.credits as number));
    const contract = await call<Array<{ id: string; category: string; price: Record<string, number> }>>(
      server,
      'GET',
      '/api/v1/models/images',
      { token: who.key },
    );
    assert.deepEqual(contract.body.find((m) => m.id === 'flux-1-dev' && m.category === 'image')?.price, {
      credits_per_image: 6,
    });
    // Speech: one generation, rounded up as charged (25 × 1.5 = 37.5 → 38), and the voices alike.
    const speech = await listed(who, 'voice', 'tts');
    assert.equal(speech.price.credits, 38);
    assert.equal((await listed(who, 'voice', 'Wise_Woman')).price.credits, 38);
    const spoken = await post(who, '/api/v2/text-to-speech', { voice_id: 'Wise_Woman', text: 'Hi.' });
    assert.equal(spoken.body.credits_used, 38);
    // A rate per second: shown times the multiplier; the request is its list total times it, rounded up.
    const video = await listed(who, 'video', 'kling-2.0-master');
    const rate = server.app.deps.media.video.find((m) => m.id === 'kling-2.0-master')?.price.credits_per_second ?? 0;
    assert.equal(video.price.credits, rate * 1.5);
    const body = { prompt: 'a fox', model: 'kling-2.0-master', settings: { duration: 5 } };
    assert.equal(await quote(who, '/api/v1/videos/generate', body), Math.ceil(Math.ceil(rate * 5) * 1.5));
    assert.equal(await quote(team, '/api/v1/videos/generate', body), Math.ceil(rate * 5), 'other teams: list prices');
    assert.equal((await listed(team, 'voice', 'tts')).price.multiplier, undefined);
  });
});
