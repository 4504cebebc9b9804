// GET /api/v1/models, the one model list: every kind, the endpoint that takes each model (checked
// by asking that endpoint), the price (checked against what requests are charged), the filter,
// and the message of a model given to the wrong endpoint.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINT_MODELS } from '../src/catalog/routes.ts';
import { PRESET_VOICES } from '../src/catalog/voices.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import {
  type ErrorReply,
  fetchAndProbe,
  generateAndWait,
  startWeightsServer,
  waitForGeneration,
} from './media-helpers.ts';

const KINDS = [
  'image',
  'edit',
  'face',
  'video',
  'lipsync',
  'reference_video',
  'talking_head',
  'upscale',
  'music',
  'model_3d',
  'text',
  'voice',
] as const;
type Kind = (typeof KINDS)[number];

interface Price {
  credits: number | Record<string, number>;
  unit: string;
  by?: string;
  default?: string;
  multipliers?: Record<string, number>;
}

interface Entry {
  id: string;
  kind: Kind;
  name: string;
  description: string | null;
  endpoint: string;
  field: 'model' | 'voice_id' | null;
  default: boolean;
  capabilities: Record<string, unknown>;
  settings: Record<string, unknown>;
  price: Price;
  available: boolean;
  simulator: boolean;
}

const flat = (price: Price): number => {
  assert.equal(typeof price.credits, 'number', JSON.stringify(price));
  return price.credits as number;
};
const keyed = (price: Price, key: string): number => {
  const value = (price.credits as Record<string, number>)[key];
  assert.equal(typeof value, 'number', `${key} of ${JSON.stringify(price)}`);
  return value as number;
};
/** Per-unit credits times the units, rounded up, at least 1: how every total is rounded. */
const total = (perUnit: number, units: number) => Math.max(1, Math.ceil(perUnit * units));

describe('the one model list', () => {
  let server: TestServer;
  let team: TeamFixture;
  let all: Entry[];
  let imageUrl: string;
  let speechUrl: string;
  let clip: { url: string; height: number; duration: number };
  let weights: Awaited<ReturnType<typeof startWeightsServer>>;

  const list = async (query = '', key = team.key) =>
    call<{ data: Entry[] }>(server, 'GET', `/api/v1/models${query}`, { token: key });
  const entry = (kind: Kind, id: string) => {
    const found = all.find((e) => e.kind === kind && e.id === id);
    assert.ok(found, `${kind} ${id} is listed`);
    return found;
  };
  const defaultOf = (kind: Kind) => {
    const found = all.find((e) => e.kind === kind && e.default);
    assert.ok(found, `${kind} has a default`);
    return found;
  };
  const post = (path: string, body: unknown, key = team.key) =>
    call<Record<string, unknown> & ErrorReply>(server, 'POST', path, { token: key, body });
  const pathOf = (e: Entry) => e.endpoint.replace(/^POST /, '');

  before(async () => {
    // One request per listed model is more than a team may write in a minute by default.
    server = await startTestServer({ env: { WORKER_CONCURRENCY: '4', RATE_LIMIT_WRITES_PER_MINUTE: '0' } });
    team = await createTeam(server, 1_000_000);
    const r = await list();
    assert.equal(r.status, 200, r.text);
    all = r.body.data;
    const image = await generateAndWait(server, team.key, '/api/v1/images/generate', {
      prompt: 'a portrait of a smiling robot',
      model: 'flux-1-schnell',
      settings: { aspect_ratio: '16:9' },
    });
    imageUrl = image.url;
    const tts = await post('/api/v2/text-to-speech', { voice_id: 'Wise_Woman', text: 'Hello there, a short test.' });
    assert.equal(tts.status, 200, tts.text);
    speechUrl = String(tts.body.audio_url);
    weights = await startWeightsServer();
    // A short clip from the LoRA video endpoint: cheap to sync, upscale and transfer motion from.
    const lora = await post('/api/v1/videos/wan-2.2-lora', {
      mode: 't2v',
      prompt: 'a small clip',
      loras: [{ path: weights.url('a.safetensors'), scale: 1, transformer: 'high' }],
      settings: { resolution: '480p', num_frames: 32, frames_per_second: 16 },
    });
    assert.equal(lora.status, 200, lora.text);
    const { probe } = await fetchAndProbe(String(lora.body.video_url));
    clip = { url: String(lora.body.video_url), height: probe.height ?? 0, duration: probe.durationSeconds };
    const status = await waitForGeneration(server, team.key, String(lora.body.generation_id));
    const wan = entry('video', 'wan-2.2-lora');
    assert.equal(wan.price.by, 'settings.resolution');
    assert.equal(status.credits_used, total(keyed(wan.price, '480p'), 32 / 16), 'the LoRA video is charged as listed');
  });
  after(async () => {
    await server.close();
    weights.close();
  });

  test('needs an API key like the other model lists', async () => {
    for (const token of [undefined, 'gms_not-a-key']) {
      const r = await call<ErrorReply>(server, 'GET', '/api/v1/models', token === undefined ? {} : { token });
      assert.equal(r.status, 401, r.text);
      assert.equal(r.body.error.code, 'unauthorized');
    }
  });

  test('lists every model of every kind, as many as the catalogs have, each once per kind', async () => {
    const { catalog, media } = server.app.deps;
    const named = (kinds: string[]) => Object.values(ENDPOINT_MODELS).filter((m) => kinds.includes(m.kind)).length;
    const expected: Record<Kind, number> = {
      image: catalog.image.length + 1, // and the influencer model behind influencers/generate
      edit: catalog.edit.length,
      face: catalog.face.length,
      video: media.video.length + named(['video']),
      lipsync: media.lipsync.length,
      reference_video: media.reference_video.length,
      talking_head: media.talking_head.length,
      upscale: media.upscalers.length,
      music: media.music.length,
      model_3d: media.model_3d.length,
      text: media.text.length,
      voice: PRESET_VOICES.length + named(['speech', 'voice']),
    };
    assert.deepEqual(
      Object.fromEntries(KINDS.map((kind) => [kind, all.filter((e) => e.kind === kind).length])),
      expected,
    );
    assert.equal(
      all.length,
      Object.values(expected).reduce((a, b) => a + b, 0),
      'no other kind',
    );
    const keys = all.map((e) => `${e.kind}:${e.id}`);
    assert.equal(new Set(keys).size, keys.length, 'no id twice within a kind');
    // An id of two catalogs is two entries.
    assert.deepEqual(
      all.filter((e) => e.id === 'nano-banana').map((e) => [e.kind, e.endpoint]),
      [
        ['image', 'POST /api/v1/images/generate'],
        ['edit', 'POST /api/v1/images/edit'],
      ],
    );
    const routes = new Set(server.routes.map((r) => `${r.method} ${r.url}`));
    for (const e of all) {
      assert.deepEqual(Object.keys(e).sort(), [
        'available',
        'capabilities',
        'default',
        'description',
        'endpoint',
        'field',
        'id',
        'kind',
        'name',
        'price',
        'settings',
        'simulator',
      ]);
      // The suite's servers let the simulator serve every model it has no vendor for.
      assert.equal(e.available, true, `${e.kind} ${e.id}`);
      assert.ok(routes.has(e.endpoint), `${e.kind} ${e.id}: ${e.endpoint} is an endpoint of the API`);
      assert.doesNotMatch(JSON.stringify(e), /"routes"|"mapping"|fal-ai\//, `${e.id} shows no vendor routing`);
      assert.ok(e.price.credits !== undefined && e.price.unit, `${e.id} has a price`);
    }
    for (const kind of KINDS) {
      const defaults = all.filter((e) => e.kind === kind && e.default);
      assert.equal(defaults.length, ['face', 'voice'].includes(kind) ? 0 : 1, `${kind} defaults`);
    }
    assert.equal(entry('image', catalog.defaults.image.id).default, true);
    assert.equal(entry('edit', 'flux-kontext-pro').name, catalog.edit.find((m) => m.id === 'flux-kontext-pro')?.name);
  });

  test('?kind= keeps one kind; an unknown kind is a 400 naming the allowed ones', async () => {
    for (const kind of KINDS) {
      const r = await list(`?kind=${kind}`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        r.body.data,
        all.filter((e) => e.kind === kind),
      );
    }
    const r = await list('?kind=speech');
    assert.equal(r.status, 400, r.text);
    const body = r.body as unknown as ErrorReply;
    assert.equal(body.error.code, 'invalid_request');
    const detail = body.error.details?.find((d) => d.field === 'kind');
    assert.ok(detail, r.text);
    for (const kind of KINDS) assert.match(detail.message, new RegExp(`\\b${kind}\\b`));
  });

  test('the two lists of the contract keep their shape, and an id repeats there only across image, edit and face', async () => {
    const images = await call<Array<{ id: string; category: string }>>(server, 'GET', '/api/v1/models/images', {
      token: team.key,
    });
    const videos = await call<Array<{ id: string; category: string; price: unknown; capabilities: unknown }>>(
      server,
      'GET',
      '/api/v1/models/videos',
      { token: team.key },
    );
    assert.equal(images.status, 200);
    assert.equal(videos.status, 200);
    const pairs = (l: Array<{ id: string; category: string }>) => l.map((m) => `${m.category}:${m.id}`);
    assert.equal(new Set(pairs(images.body)).size, images.body.length, 'no id twice in one category');
    const videoIds = videos.body.map((m) => m.id);
    assert.equal(new Set(videoIds).size, videoIds.length, 'the video list has no id twice');
    assert.ok(!images.body.some((m) => videoIds.includes(m.id)), 'no id in both lists');
    // The image list has the image, edit and face catalogs: an id of two of them is there twice,
    // once per category (the same pairs the one list has).
    const count = new Map<string, number>();
    for (const m of images.body) count.set(m.id, (count.get(m.id) ?? 0) + 1);
    const repeated = [...count].filter(([, n]) => n > 1).map(([id]) => id);
    const inTwoKinds = [...new Set(all.map((e) => e.id))].filter(
      (id) => all.filter((e) => e.id === id && ['image', 'edit', 'face'].includes(e.kind)).length > 1,
    );
    assert.deepEqual(repeated.sort(), inTwoKinds.sort());
    for (const m of images.body)
      assert.ok(
        all.some((e) => e.kind === m.category && e.id === m.id),
        m.id,
      );
    // The provider family's price as the contract gives it.
    const family = videos.body.find((m) => (m.capabilities as { provider_family?: boolean }).provider_family);
    assert.deepEqual(family?.price, { credits_per_second: { '720p': 40, '1080p': 90 } });
  });

  test('every model named by a request field is taken by the endpoint listed for it', async () => {
    // A team without credits: a model the endpoint takes gets as far as the charge (402) and
    // nothing runs; a model it does not take would be 400 model_not_found.
    const broke = await createTeam(server, 0, 'broke');
    const bodies: Record<Kind, ((e: Entry) => Record<string, unknown>) | undefined> = {
      image: (e) => ({
        prompt: 'x',
        model: e.id,
        ...(e.capabilities.text_to_image ? {} : { images: [imageUrl] }),
      }),
      edit: (e) => ({ prompt: 'x', image_url: imageUrl, model: e.id }),
      face: undefined,
      video: (e) => ({
        prompt: 'x',
        model: e.id,
        settings: {
          aspect_ratio: (e.settings.aspect_ratios as string[])[0],
          duration: e.settings.default_duration,
        },
        ...((e.capabilities.text_to_video as boolean) ? {} : { first_frame_image: imageUrl }),
      }),
      lipsync: (e) => ({ video_url: clip.url, audio_url: speechUrl, model: e.id }),
      reference_video: (e) => ({
        prompt: 'x',
        model: e.id,
        duration: String(Math.max(5, e.settings.min_duration as number)),
        aspect_ratio: (e.settings.aspect_ratios as string[])[0],
      }),
      talking_head: (e) => ({
        model: e.id,
        audio_mode: 'upload',
        audio_url: speechUrl,
        ...(e.capabilities.sheet_based ? {} : { start_image_url: imageUrl }),
      }),
      upscale: (e) => ({ video_url: clip.url, model: e.id }),
      music: (e) => ({ title: 'x', model: e.id }),
      model_3d: (e) => ({
        prompt: 'x',
        model: e.id,
        ...((e.capabilities.text_to_3d as boolean) ? {} : { init_image: imageUrl }),
      }),
      text: (e) => ({ prompt: 'x', model: e.id }),
      voice: (e) => ({ voice_id: e.id, text: 'x' }),
    };
    const named = all.filter((e) => e.field !== null);
    assert.ok(named.length > 150);
    for (const e of named) {
      const body = bodies[e.kind]?.(e);
      assert.ok(body, `${e.kind} has a request`);
      const r = await post(pathOf(e), body, broke.key);
      if (e.kind === 'talking_head' && e.capabilities.sheet_based) {
        // Sheet-based models need an influencer: refused for that, after the model was found.
        assert.equal(r.status, 400, `${e.id}: ${r.text}`);
        assert.deepEqual(
          r.body.error.details?.map((d) => d.field),
          ['influencer_id'],
          `${e.id}: ${r.text}`,
        );
      } else {
        assert.equal(r.status, 402, `${e.kind} ${e.id} on ${e.endpoint}: ${r.text}`);
        assert.equal(r.body.error.code, 'insufficient_credits');
      }
    }
  });

  test('the listed price is what a request is charged, for a model of every kind', async (t) => {
    const { media } = server.app.deps;
    // The charge is made when a request is accepted: asynchronous requests go to a second server
    // without a worker, which charges them and renders nothing (the media they name are the main
    // server's); the synchronous ones to the main server.
    const quiet = await startTestServer({ worker: false });
    t.after(() => quiet.close());
    const quietTeam = await createTeam(quiet, 1_000_000);
    const chargedOn = (target: TestServer, key: string) => async (path: string, body: unknown) => {
      const r = await call<Record<string, unknown>>(target, 'POST', path, { token: key, body });
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      const id = String(r.body.generation_id);
      if (typeof r.body.credits_used === 'number') return { id, credits: r.body.credits_used, body: r.body };
      // Endpoints that answer no price (motion control, upscale): the status record has the charge.
      const status = await call<{ credits_used: number }>(target, 'GET', `/api/v1/generations/${id}/status`, {
        token: key,
      });
      assert.equal(status.status, 200, status.text);
      return { id, credits: status.body.credits_used, body: r.body };
    };
    const charged = chargedOn(quiet, quietTeam.key);
    const chargedNow = chargedOn(server, team.key);

    // Images: per image, times the batch.
    const image = entry('image', 'flux-1-dev');
    assert.equal(image.price.unit, 'image');
    assert.equal(
      (await charged('/api/v1/images/generate', { prompt: 'x', model: image.id, batch: 2 })).credits,
      2 * flat(image.price),
    );
    const edit = defaultOf('edit');
    assert.equal(
      (await charged('/api/v1/images/edit', { prompt: 'x', image_url: imageUrl })).credits,
      flat(edit.price),
    );
    // Faces: each image priced by the face model the endpoint picked for it.
    const face = await charged('/api/v1/images/generate-face', { prompt: 'x', batch: 5 });
    const { rows } = await quiet.pool.query<{ model: string; price: string }>(
      'select model, price from generation_items where generation_id = $1',
      [face.id],
    );
    assert.equal(rows.length, 5);
    for (const row of rows) assert.equal(Number(row.price), flat(entry('face', row.model).price), row.model);
    assert.equal(
      face.credits,
      rows.reduce((sum, row) => sum + flat(entry('face', row.model).price), 0),
    );

    // Videos: per second of the default 5 s; the provider family by quality, 'high' by default.
    const video = defaultOf('video');
    assert.equal(video.price.unit, 'second');
    assert.ok((video.settings.durations as number[]).includes(5));
    assert.equal((await charged('/api/v1/videos/generate', { prompt: 'x' })).credits, total(flat(video.price), 5));
    const family = all.find((e) => e.kind === 'video' && e.capabilities.provider_family);
    assert.ok(family);
    assert.equal(family.price.by, 'settings.quality');
    // Its shortest duration, to keep the 1080p render small.
    const seconds = Math.min(...(family.settings.durations as number[]));
    for (const quality of [undefined, 'basic']) {
      const r = await charged('/api/v1/videos/generate', {
        prompt: 'x',
        model: family.id,
        settings: { duration: seconds, ...(quality ? { quality } : {}) },
      });
      assert.equal(r.credits, total(keyed(family.price, quality ?? family.price.default ?? ''), seconds), quality);
    }

    // Lip sync and motion control: per second of the video given.
    const lipsync = defaultOf('lipsync');
    assert.equal(lipsync.price.unit, 'input_second');
    assert.equal(
      (await charged('/api/v1/videos/lipsync', { video_url: clip.url, audio_url: speechUrl })).credits,
      total(flat(lipsync.price), clip.duration),
    );
    const motion = entry('video', 'kling-2.6-motion-control');
    assert.equal(motion.endpoint, 'POST /api/v1/videos/motion-control');
    assert.equal(
      (await charged(pathOf(motion), { video_url: clip.url, image_url: imageUrl })).credits,
      total(flat(motion.price), clip.duration),
    );

    // Reference-to-video and talking heads: per second of the duration asked (or the default).
    const reference = defaultOf('reference_video');
    assert.equal(
      (await charged('/api/v1/videos/reference-to-video', { prompt: 'a walk', duration: '5' })).credits,
      total(flat(reference.price), 5),
    );
    const [head] = all
      .filter((e) => e.kind === 'talking_head' && !e.capabilities.sheet_based)
      .sort((a, b) => (a.settings.default_duration as number) - (b.settings.default_duration as number));
    assert.ok(head);
    assert.equal(
      (
        await charged('/api/v1/videos/talking-head', {
          model: head.id,
          audio_mode: 'upload',
          audio_url: speechUrl,
          start_image_url: imageUrl,
        })
      ).credits,
      total(flat(head.price), head.settings.default_duration as number),
    );

    // Upscaling: per second of the video, at the tier of the output height; target_fps doubles it.
    const upscaler = defaultOf('upscale');
    assert.equal(upscaler.price.by, 'output_height');
    const tiers = Object.entries(upscaler.price.credits as Record<string, number>).sort(
      ([a], [b]) => Number.parseInt(a, 10) - Number.parseInt(b, 10),
    );
    const tierOf = (height: number) => (tiers.find(([t]) => height <= Number.parseInt(t, 10)) ?? tiers.at(-1))?.[1];
    const perSecond = tierOf(clip.height * 2) ?? 0;
    assert.equal(
      (await charged('/api/v1/videos/upscale', { video_url: clip.url })).credits,
      total(perSecond, clip.duration),
    );
    assert.equal(
      (await charged('/api/v1/videos/upscale', { video_url: clip.url, target_fps: 30 })).credits,
      total(perSecond * (upscaler.price.multipliers?.target_fps ?? 0), clip.duration),
    );

    // Music per track; 3D per model by mode, 'full' by default; speech per generation; voices each.
    const music = defaultOf('music');
    assert.equal(music.price.unit, 'track');
    assert.equal((await charged('/api/v1/music/generate', { title: 'x' })).credits, flat(music.price));
    const model3d = defaultOf('model_3d');
    assert.equal(model3d.price.by, 'settings.mode');
    assert.equal(
      (await charged('/api/v1/models-3d/generate', { prompt: 'a chair' })).credits,
      keyed(model3d.price, model3d.price.default ?? ''),
    );
    assert.equal(
      (await charged('/api/v1/models-3d/generate', { prompt: 'a chair', settings: { mode: 'preview' } })).credits,
      keyed(model3d.price, 'preview'),
    );
    const premium = all.find((e) => e.kind === 'voice' && e.settings.tier === 'premium');
    assert.ok(premium);
    assert.equal(premium.price.unit, 'generation');
    assert.equal(
      (await chargedNow(pathOf(premium), { voice_id: premium.id, text: 'Hello.' })).credits,
      flat(premium.price),
    );
    assert.equal(flat(entry('voice', 'tts').price), flat(premium.price));
    const design = entry('voice', 'voice-design-v1');
    assert.equal(
      (await chargedNow(pathOf(design), { method: 'design', prompt: 'a warm low voice' })).credits,
      flat(design.price),
    );

    // Text: prompt and completion tokens at the per-1k prices (net of the unused reservation).
    const text = defaultOf('text');
    assert.equal(text.price.unit, '1k_tokens');
    const reply = await chargedNow('/api/v1/text/generate', { prompt: 'Say hello.' });
    const usage = reply.body.usage as { prompt_tokens: number; completion_tokens: number };
    assert.equal(
      reply.credits,
      total(
        (usage.prompt_tokens * keyed(text.price, 'input') + usage.completion_tokens * keyed(text.price, 'output')) /
          1000,
        1,
      ),
    );
    assert.ok(media.text.some((m) => m.id === text.id));
  });

  test('a model given to an endpoint of another kind is a 400 model_not_found naming the endpoint that takes it', async () => {
    const cases: Array<[path: string, body: Record<string, unknown>, expected: RegExp]> = [
      [
        '/api/v1/images/generate',
        { prompt: 'x', model: 'flux-kontext-pro' },
        /Model 'flux-kontext-pro' is not an image model: it is an edit model: use POST \/api\/v1\/images\/edit\./,
      ],
      [
        '/api/v1/images/edit',
        { prompt: 'x', image_url: 'https://example.com/a.png', model: 'flux-1-dev' },
        /an image model: use POST \/api\/v1\/images\/generate/,
      ],
      [
        '/api/v1/images/generate',
        { prompt: 'x', model: 'veo-3' },
        /a video model: use POST \/api\/v1\/videos\/generate/,
      ],
      ['/api/v1/videos/generate', { prompt: 'x', model: 'topaz' }, /an upscaler: use POST \/api\/v1\/videos\/upscale/],
      [
        '/api/v1/videos/generate',
        { prompt: 'x', model: 'kling-2.6-motion-control' },
        /a video model that POST \/api\/v1\/videos\/motion-control uses on its own/,
      ],
      [
        '/api/v1/videos/generate',
        { prompt: 'x', model: 'flux-1.1-pro' },
        /an image model: use POST \/api\/v1\/images\/generate; also a face model that POST \/api\/v1\/images\/generate-face uses on its own/,
      ],
      [
        '/api/v1/text/generate',
        { prompt: 'x', model: 'Wise_Woman' },
        /a voice: give it as voice_id to POST \/api\/v2\/text-to-speech/,
      ],
      [
        '/api/v1/music/generate',
        { title: 'x', model: 'openai/gpt-4o' },
        /a text model: use POST \/api\/v1\/text\/generate/,
      ],
    ];
    for (const [path, body, expected] of cases) {
      const r = await post(path, body);
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assert.equal(r.body.error.code, 'model_not_found');
      assert.match(r.body.error.message, expected);
      assert.match(r.body.error.message, /Known .* models: /);
      assert.equal(r.body.error.details?.[0]?.field, 'model');
      assert.match(r.body.error.details?.[0]?.message ?? '', /^is an? /);
    }
    // An id of no catalog keeps the plain message.
    const unknown = await post('/api/v1/images/generate', { prompt: 'x', model: 'no-such-model' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, 'model_not_found');
    assert.match(unknown.body.error.message, /^Unknown image model 'no-such-model'\. Known models: /);
  });
});
