// Strict input: a request body field its endpoint does not declare is a 400 `invalid_request`
// naming it (with the field it most likely meant), refused before anything is written or
// charged; a body that is not JSON is told that JSON is expected. Bodies that are open on
// purpose (desktop project payloads, vendor webhooks) still take anything.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { installValidators, validationProblem } from '../src/plugins/validation.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type ErrorReply, generateAndWait, startWeightsServer } from './media-helpers.ts';

const UNKNOWN = 'flux_capacitor';
const IMAGE = 'https://example.com/a.png';
const VIDEO = 'https://example.com/a.mp4';
const AUDIO = 'https://example.com/a.mp3';

/** A body each endpoint's schema accepts (what it would then do with it is not the point here). */
const SCHEMA_VALID: Array<[path: string, body: Record<string, unknown>]> = [
  ['/api/v1/images/generate', { prompt: 'a red fox' }],
  ['/api/v1/images/generate-face', { prompt: 'a friendly face' }],
  ['/api/v1/images/edit', { image_url: IMAGE, prompt: 'make it blue' }],
  ['/api/v1/videos/generate', { prompt: 'waves at dawn' }],
  ['/api/v1/videos/lipsync', { video_url: VIDEO, audio_url: AUDIO }],
  ['/api/v1/videos/motion-control', { video_url: VIDEO, image_url: IMAGE }],
  ['/api/v1/videos/reference-to-video', { prompt: 'a walk on the beach' }],
  ['/api/v1/videos/talking-head', { script: 'Hello there.' }],
  ['/api/v1/videos/upscale', { video_url: VIDEO }],
  ['/api/v1/videos/upscale/seedvr2', { video_url: VIDEO }],
  ['/api/v1/videos/upscale/topaz', { video_url: VIDEO }],
  [
    '/api/v1/videos/wan-2.2-lora',
    { mode: 't2v', prompt: 'x', loras: [{ path: 'https://example.com/a.safetensors', scale: 1, transformer: 'high' }] },
  ],
  ['/api/v1/music/generate', { title: 'Night Drive' }],
  ['/api/v1/models-3d/generate', { prompt: 'a chair' }],
  ['/api/v1/text/generate', { prompt: 'Say hi' }],
  ['/api/v2/text-to-speech', { voice_id: 'Wise_Woman', text: 'Hello.' }],
  ['/api/v1/influencers/create', { image_urls: [IMAGE] }],
  ['/api/v1/influencers/generate', { influencer_id: 'inf_00000000000000000000000000' }],
  ['/api/v1/influencers/video', { influencer_id: 'inf_00000000000000000000000000', prompt: 'x' }],
  ['/api/v1/voices/generate', { method: 'design', prompt: 'a warm voice' }],
  ['/api/v2/voice-clone', { audio_url: AUDIO }],
  ['/api/v2/voice-design', { prompt: 'a warm voice' }],
  ['/api/v1/workspaces', { name: 'Films' }],
  ['/api/v1/billing/top-up', { plan_id: 'starter' }],
];

describe('strict input', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 1_000_000);
  });
  after(() => server.close());

  const generations = async (teamId = team.id) =>
    Number(
      (await server.pool.query<{ n: string }>('select count(*) as n from generations where team_id = $1', [teamId]))
        .rows[0]?.n,
    );

  const post = (path: string, body: unknown, token = team.key) =>
    call<ErrorReply>(server, 'POST', path, { token, body });

  /** The details of a 400 `invalid_request`, sorted by field. */
  const refusal = async (path: string, body: unknown, token = team.key) => {
    const r = await post(path, body, token);
    assert.equal(r.status, 400, `${path} ${JSON.stringify(body)} → ${r.text}`);
    assert.equal(r.body.error.code, 'invalid_request', r.text);
    return [...(r.body.error.details ?? [])].sort((a, b) => a.field.localeCompare(b.field));
  };

  test('a top-level duration on videos/generate is refused with a hint to settings.duration; nothing is charged', async () => {
    const balance = await balanceOf(server, team.key);
    const made = await generations();
    const r = await post('/api/v1/videos/generate', { prompt: 'waves at dawn', duration: 10 });
    assert.equal(r.status, 400, r.text);
    assert.deepEqual(r.body, {
      error: {
        code: 'invalid_request',
        message: "Invalid request: unknown field 'duration' (did you mean 'settings.duration'?)",
        details: [{ field: 'duration', message: "unknown field; did you mean 'settings.duration'?" }],
      },
    });
    // With an Idempotency-Key, or when the balance is short, it is still the same 400.
    const keyed = await call<ErrorReply>(server, 'POST', '/api/v1/videos/generate', {
      token: team.key,
      body: { prompt: 'waves at dawn', duration: 10 },
      headers: { 'idempotency-key': 'strict-input-1' },
    });
    assert.deepEqual(keyed.body, r.body);
    const poor = await createTeam(server, 0);
    assert.deepEqual((await post('/api/v1/videos/generate', { prompt: 'x', duration: 10 }, poor.key)).body, r.body);
    assert.equal(await balanceOf(server, team.key), balance);
    assert.equal(await generations(), made);
    // The key was not used up: the right body with it is a new generation, charged once.
    const right = await call<{ credits_used: number }>(server, 'POST', '/api/v1/videos/generate', {
      token: team.key,
      body: { prompt: 'waves at dawn', settings: { duration: 10 } },
      headers: { 'idempotency-key': 'strict-input-1' },
    });
    assert.equal(right.status, 200, right.text);
    assert.equal(await balanceOf(server, team.key), balance - right.body.credits_used);
    assert.equal(await generations(), made + 1);
  });

  test('a misspelt field names the declared field it resembles', async () => {
    assert.deepEqual(await refusal('/api/v1/images/generate', { promt: 'a red fox' }), [
      { field: 'prompt', message: 'is required' },
      { field: 'promt', message: "unknown field; did you mean 'prompt'?" },
    ]);
    assert.deepEqual(
      await refusal('/api/v1/images/generate', { prompt: 'x', modle: 'flux-1-schnell', workspaceId: 'ws_1' }),
      [
        { field: 'modle', message: "unknown field; did you mean 'model'?" },
        { field: 'workspaceId', message: "unknown field; did you mean 'workspace_id'?" },
      ],
    );
    const r = await post('/api/v1/images/generate', { promt: 'a red fox' });
    assert.equal(
      r.body.error.message,
      "Invalid request: prompt is required; unknown field 'promt' (did you mean 'prompt'?)",
    );
  });

  test('an unknown field inside an object or array item is named by its path', async () => {
    assert.deepEqual(
      await refusal('/api/v1/videos/generate', { prompt: 'x', settings: { duraton: 5, colour: 'red', prompt: 'y' } }),
      [
        { field: 'settings.colour', message: 'unknown field' },
        { field: 'settings.duraton', message: "unknown field; did you mean 'settings.duration'?" },
        { field: 'settings.prompt', message: "unknown field; did you mean 'prompt'?" },
      ],
    );
    assert.deepEqual(
      await refusal('/api/v1/videos/talking-head', { script: 'hi', speed: 1.2, audio_settings: { volum: 1 } }),
      [
        { field: 'audio_settings.volum', message: "unknown field; did you mean 'audio_settings.volume'?" },
        { field: 'speed', message: "unknown field; did you mean 'audio_settings.speed'?" },
      ],
    );
    assert.deepEqual(
      await refusal('/api/v1/videos/reference-to-video', {
        prompt: 'x',
        elements: [
          { frontal_image_url: IMAGE, reference_image_urls: [IMAGE] },
          { frontal_image_url: IMAGE, reference_image_urls: [IMAGE], reference_image_url: IMAGE },
        ],
        multi_prompt: [{ prompt: 'a', duration: '5', seconds: '5' }],
      }),
      [
        {
          field: 'elements[1].reference_image_url',
          message: "unknown field; did you mean 'elements[1].reference_image_urls'?",
        },
        { field: 'multi_prompt[0].seconds', message: 'unknown field' },
      ],
    );
    // Bodies that were strict before keep naming the place, now in the same words.
    assert.deepEqual(
      await refusal(
        `/admin/v1/teams/${team.id}/storyboards`,
        { name: 'x', scenes: [{ title: 'a', shot: [] }] },
        server.adminToken,
      ),
      [{ field: 'scenes[0].shot', message: "unknown field; did you mean 'scenes[0].shots'?" }],
    );
  });

  test('a field no level of the body knows is refused without a hint', async () => {
    const r = await post('/api/v1/videos/generate', { prompt: 'x', [UNKNOWN]: true });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, {
      error: {
        code: 'invalid_request',
        message: `Invalid request: unknown field '${UNKNOWN}'`,
        details: [{ field: UNKNOWN, message: 'unknown field' }],
      },
    });
  });

  test('a body of many or very long unknown fields is answered at once, listing the first 20', async () => {
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`field_${i}`, i]));
    const started = performance.now();
    const r = await post('/api/v1/videos/generate', { prompt: 'x', ...many, ['settings'.repeat(20_000)]: 1 });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.error.details?.length, 20);
    assert.deepEqual(r.body.error.details?.[0], { field: 'field_0', message: 'unknown field' });
    assert.match(r.body.error.message, /\(and 4981 more problems not listed\)$/);
    assert.ok(performance.now() - started < 5000, `took ${performance.now() - started} ms`);
  });

  test('every API endpoint with a body refuses an unknown field, and writes or charges nothing', async () => {
    const balance = await balanceOf(server, team.key);
    const made = await generations();
    for (const [path, body] of SCHEMA_VALID) {
      assert.deepEqual(await refusal(path, { ...body, [UNKNOWN]: 1 }), [{ field: UNKNOWN, message: 'unknown field' }]);
    }
    const admin = server.adminToken;
    const teamsBefore = (await call<unknown[]>(server, 'GET', '/admin/v1/teams?limit=500', { token: admin })).body;
    const keysBefore = (await call<unknown[]>(server, 'GET', `/admin/v1/teams/${team.id}/api-keys`, { token: admin }))
      .body;
    for (const [path, body] of [
      ['/admin/v1/teams', { name: 'x', credits: 5, credit: 5 }],
      [`/admin/v1/teams/${team.id}/api-keys`, { name: 'ci', scopes: ['all'] }],
      [`/admin/v1/teams/${team.id}/credits`, { amount: 100, reason: 'gift', reasons: 'x' }],
      [`/admin/v1/teams/${team.id}/workspaces`, { name: 'x', description: 'y' }],
      [`/admin/v1/teams/${team.id}/storyboards`, { name: 'x', title: 'y' }],
    ] as const) {
      const details = await refusal(path, body, admin);
      assert.equal(details.length, 1, JSON.stringify(details));
      assert.match(details[0]?.message ?? '', /^unknown field/);
    }
    assert.deepEqual(
      await refusal('/api/v1/desktop-projects', {
        desktop_project_id: 'p1',
        payload: { storyboards: [], timelines: [], metadata: {} },
        version: 3,
      }),
      [{ field: 'version', message: 'unknown field' }],
    );
    assert.deepEqual(
      (await call<unknown[]>(server, 'GET', '/admin/v1/teams?limit=500', { token: admin })).body,
      teamsBefore,
    );
    assert.deepEqual(
      (await call<unknown[]>(server, 'GET', `/admin/v1/teams/${team.id}/api-keys`, { token: admin })).body,
      keysBefore,
    );
    assert.deepEqual((await call(server, 'GET', '/api/v1/workspaces', { token: team.key })).body, []);
    assert.deepEqual((await call(server, 'GET', '/api/v1/storyboard', { token: team.key })).body, []);
    assert.deepEqual((await call(server, 'GET', '/api/v1/desktop-projects', { token: team.key })).body, []);
    assert.equal(await balanceOf(server, team.key), balance);
    assert.equal(await generations(), made);
  });

  test('bodies open on purpose still take any field: desktop project payloads, the body of a quote', async () => {
    const pushed = await post('/api/v1/desktop-projects', {
      desktop_project_id: 'open-payload',
      payload: {
        storyboards: [{ anything: { goes: [1, 2] } }],
        timelines: [],
        metadata: { app_version: '2.1', window: { w: 1200, h: 800 } },
        editor_state: { zoom: 2 },
      },
    });
    assert.equal(pushed.status, 200, pushed.text);
    const read = await call<{ payload: Record<string, unknown> }>(
      server,
      'GET',
      '/api/v1/desktop-projects/open-payload',
      {
        token: team.key,
      },
    );
    assert.deepEqual(read.body.payload.editor_state, { zoom: 2 });
    assert.deepEqual(read.body.payload.metadata, { app_version: '2.1', window: { w: 1200, h: 800 } });
    // The quote's `body` is any object; the endpoint it is priced as refuses the unknown field.
    const quoted = await post('/api/v1/quote', {
      endpoint: '/api/v1/videos/generate',
      body: { prompt: 'x', duration: 10 },
    });
    assert.equal(quoted.status, 400, quoted.text);
    assert.deepEqual(quoted.body.error.details, [
      { field: 'duration', message: "unknown field; did you mean 'settings.duration'?" },
    ]);
  });

  test('a body that is not JSON is told that JSON is expected; nothing is written', async () => {
    const balance = await balanceOf(server, team.key);
    const made = await generations();
    const cases: Array<[string, string | Buffer, Record<string, string>, RegExp]> = [
      ['text/plain', '{"prompt": "x"}', { 'content-type': 'text/plain' }, /'text\/plain'/],
      ['a form', 'prompt=x', { 'content-type': 'application/x-www-form-urlencoded' }, /urlencoded/],
      ['no content type', Buffer.from('{"prompt": "x"}'), {}, /Missing Content-Type/],
      ['XML', '<prompt>x</prompt>', { 'content-type': 'application/xml' }, /'application\/xml'/],
    ];
    for (const path of ['/api/v1/images/generate', '/api/v1/workspaces']) {
      for (const [label, raw, headers, names] of cases) {
        const r = await call<ErrorReply>(server, 'POST', path, { token: team.key, raw, headers });
        assert.equal(r.status, 400, `${label}: ${r.text}`);
        assert.equal(r.body.error.code, 'invalid_request');
        assert.match(r.body.error.message, /the body must be JSON, sent as application\/json/, label);
        assert.match(r.body.error.message, names, label);
      }
    }
    const admin = await call<ErrorReply>(server, 'POST', '/admin/v1/teams', {
      token: server.adminToken,
      raw: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(admin.status, 400);
    assert.match(admin.body.error.message, /JSON/);
    // The upload route takes multipart, and says so.
    const upload = await call<ErrorReply>(server, 'POST', '/api/v1/desktop-projects/p1/media', {
      token: team.key,
      raw: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(upload.status, 400);
    assert.match(upload.body.error.message, /send the body as multipart\/form-data/);
    // JSON with a charset is JSON.
    const charset = await call(server, 'POST', '/api/v1/workspaces', {
      token: team.key,
      raw: JSON.stringify({ name: 'Charset' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(charset.status, 201, charset.text);
    assert.equal(await balanceOf(server, team.key), balance);
    assert.equal(await generations(), made);
  });

  describe('contract bodies still pass', () => {
    let imageUrl: string;
    let clipUrl: string;
    let speechUrl: string;
    let weights: Awaited<ReturnType<typeof startWeightsServer>>;

    before(async () => {
      weights = await startWeightsServer();
      imageUrl = (await generateAndWait(server, team.key, '/api/v1/images/generate', { prompt: 'a smiling robot' }))
        .url;
      const tts = await call<{ audio_url: string }>(server, 'POST', '/api/v2/text-to-speech', {
        token: team.key,
        body: { voice_id: 'Wise_Woman', text: 'Hello there, this is a short test of the voice.' },
      });
      assert.equal(tts.status, 200, tts.text);
      speechUrl = tts.body.audio_url;
      const clip = await call<{ video_url: string }>(server, 'POST', '/api/v1/videos/wan-2.2-lora', {
        token: team.key,
        body: {
          mode: 't2v',
          prompt: 'a small clip',
          loras: [{ path: weights.url('a.safetensors'), scale: 1, transformer: 'high' }],
          settings: { resolution: '480p', num_frames: 32, frames_per_second: 16 },
        },
      });
      assert.equal(clip.status, 200, clip.text);
      clipUrl = clip.body.video_url;
    });
    after(() => weights.close());

    test('every generation endpoint takes a body with the contract fields (priced as a dry run)', async () => {
      const { media, catalog } = server.app.deps;
      const family = media.video.find((m) => m.provider_family);
      const lora = catalog.image.find((m) => m.capabilities.supports_lora && m.capabilities.negative_prompt);
      const edit = catalog.edit.find((m) => m.capabilities.max_reference_images > 1);
      const topaz = media.upscalers.find((m) => m.id === 'topaz');
      assert.ok(family && lora && edit && topaz);
      const bodies: Array<[string, Record<string, unknown>]> = [
        [
          '/api/v1/images/generate',
          {
            prompt: 'a red fox',
            negative_prompt: 'blurry',
            model: lora.id,
            lora_url: 'https://example.com/style.safetensors',
            lora_type: lora.capabilities.lora_types?.[0],
            batch: 2,
            settings: { aspect_ratio: '1:1', num_inference_steps: 20 },
            webhook: 'https://example.com/hook',
          },
        ],
        ['/api/v1/images/generate', { prompt: 'a red fox', images: [imageUrl] }],
        ['/api/v1/images/generate', { prompt: 'a red fox', init_image: imageUrl }],
        [
          '/api/v1/images/generate-face',
          {
            prompt: 'a face',
            negative_prompt: 'hat',
            batch: 2,
            gender: 'female',
            ethnicity: 'any',
            hair_color: 'red',
            seed: 7,
          },
        ],
        [
          '/api/v1/images/edit',
          {
            image_url: imageUrl,
            prompt: 'make it blue',
            model: edit.id,
            additional_images: [imageUrl],
            width: 512,
            height: 512,
            webhook: 'https://example.com/hook',
          },
        ],
        [
          '/api/v1/videos/generate',
          {
            prompt: 'waves',
            model: family.id,
            settings: {
              aspect_ratio: family.settings.aspect_ratios[0],
              duration: family.settings.durations[0],
              provider: media.video_providers[0]?.id,
              quality: 'basic',
              remove_watermark: false,
            },
            first_frame_image: imageUrl,
            webhook: 'https://example.com/hook',
          },
        ],
        ['/api/v1/videos/lipsync', { video_url: clipUrl, audio_url: speechUrl }],
        [
          '/api/v1/videos/motion-control',
          {
            video_url: clipUrl,
            image_url: imageUrl,
            prompt: 'dance like @Element1',
            character_orientation: 'video',
            element: { frontal_image_url: imageUrl, reference_image_urls: [imageUrl] },
          },
        ],
        [
          '/api/v1/videos/reference-to-video',
          {
            prompt: '@Element1 walks through @Image1',
            elements: [{ frontal_image_url: imageUrl, reference_image_urls: [imageUrl] }],
            image_urls: [imageUrl],
            start_image_url: imageUrl,
            duration: '5',
            aspect_ratio: '16:9',
            product_image_urls: [imageUrl],
            location_image_urls: [imageUrl],
          },
        ],
        [
          '/api/v1/videos/reference-to-video',
          {
            prompt: 'ignored',
            multi_prompt: [
              { prompt: 'first', duration: '5' },
              { prompt: 'then', duration: '5' },
            ],
          },
        ],
        [
          '/api/v1/videos/talking-head',
          {
            audio_mode: 'upload',
            audio_url: speechUrl,
            start_image_url: imageUrl,
            aspect_ratio: '16:9',
            audio_settings: { speed: 1, volume: 1, emotion: 'calm', language: 'en' },
          },
        ],
        [
          '/api/v1/videos/upscale',
          {
            video_url: clipUrl,
            model: 'topaz',
            topaz_video_model: topaz.video_models.find((v) => v.id !== topaz.default_video_model)?.id,
            upscale_factor: 2,
            output_format: 'X264 (.mp4)',
            output_quality: 'high',
            target_fps: 24,
            h264_output: true,
            compression: 0.5,
            noise: 0.5,
            halo: 0.5,
            grain: 0.5,
            recover_detail: 0.5,
          },
        ],
        ['/api/v1/videos/upscale', { video_url: clipUrl, softness: 2 }],
        [
          '/api/v1/videos/upscale/seedvr2',
          { video_url: clipUrl, upscale_mode: 'factor', upscale_factor: 2, output_quality: 'high' },
        ],
        [
          '/api/v1/videos/upscale/topaz',
          { video_url: clipUrl, upscale_mode: 'target', target_resolution: '1080p', target_fps: 30, h264_output: true },
        ],
        [
          '/api/v1/videos/wan-2.2-lora',
          {
            mode: 'i2v',
            prompt: 'x',
            image_url: imageUrl,
            loras: [
              { path: 'https://example.com/high.safetensors', scale: 1, transformer: 'high' },
              { path: 'https://example.com/low.safetensors', scale: 1, transformer: 'low' },
            ],
            settings: {
              resolution: '480p',
              aspect_ratio: '16:9',
              num_frames: 81,
              frames_per_second: 16,
              num_inference_steps: 20,
              guidance_scale: 3.5,
              enable_prompt_expansion: false,
              seed: 1,
            },
          },
        ],
        [
          '/api/v1/music/generate',
          {
            title: 'Night Drive',
            style: 'synthwave',
            lyrics: 'la la',
            instrumental: false,
            vocal_gender: 'f',
            model: 'V4_5PLUS',
          },
        ],
        [
          '/api/v1/models-3d/generate',
          {
            prompt: 'a chair',
            settings: {
              mode: 'preview',
              art_style: 'realistic',
              topology: 'quad',
              target_polycount: 5000,
              symmetry_mode: 'auto',
              should_remesh: true,
              is_a_t_pose: false,
              enable_prompt_expansion: false,
            },
            webhook: 'https://example.com/hook',
          },
        ],
        [
          '/api/v1/text/generate',
          { prompt: 'Say hi', settings: { temperature: 0.5, max_tokens: 100, system_prompt: 'Be brief.' } },
        ],
        [
          '/api/v2/text-to-speech',
          {
            voice_id: 'Wise_Woman',
            text: 'Hello.',
            language: 'en',
            speed: 1.2,
            volume: 1.5,
            emotion: 'neutral',
            output_format: 'mp3',
          },
        ],
        ['/api/v1/voices/generate', { method: 'design', prompt: 'a warm low voice', name: 'Warm' }],
        ['/api/v1/voices/generate', { method: 'clone', audio_url: speechUrl, name: 'Mine' }],
        ['/api/v2/voice-clone', { audio_url: speechUrl, description: 'mine', name: 'Mine' }],
        ['/api/v2/voice-design', { prompt: 'a bright voice', name: 'Bright' }],
      ];
      const made = await generations();
      const refused: string[] = [];
      for (const [path, body] of bodies) {
        const r = await call(server, 'POST', path, { token: team.key, body, headers: { prefer: 'dry-run' } });
        if (r.status !== 200 || r.headers.get('preference-applied') !== 'dry-run') refused.push(`${path} → ${r.text}`);
      }
      assert.deepEqual(refused, []);
      assert.equal(await generations(), made);
    });

    test('the other endpoints take their contract bodies', async () => {
      const admin = server.adminToken;
      const created = await call<{ id: string }>(server, 'POST', '/admin/v1/teams', {
        token: admin,
        body: { name: 'Strict', credits: 10 },
      });
      assert.equal(created.status, 201, created.text);
      const id = created.body.id;
      for (const [path, body, status] of [
        [`/admin/v1/teams/${id}/api-keys`, { name: 'ci' }, 201],
        [`/admin/v1/teams/${id}/credits`, { amount: 5, reason: 'gift' }, 201],
        [`/admin/v1/teams/${id}/workspaces`, { name: 'Films' }, 201],
        [`/admin/v1/teams/${id}/webhook-secret`, undefined, 201],
        [
          `/admin/v1/teams/${id}/storyboards`,
          {
            name: 'Film',
            description: 'x',
            aspect_ratio: '16:9',
            outfits: [{ name: 'Coat', description: 'red', image_urls: [IMAGE] }],
            scenes: [
              {
                title: 'One',
                shots: [
                  {
                    description: 'wide',
                    duration_seconds: 3,
                    camera: 'dolly',
                    frames: [{ image_versions: [{ url: IMAGE, prompt: 'x', selected: true }] }],
                    video_versions: [{ url: VIDEO, duration_seconds: 3 }],
                  },
                ],
              },
            ],
          },
          201,
        ],
      ] as const) {
        const r = await call(server, 'POST', path, { token: admin, body });
        assert.equal(r.status, status, `${path} → ${r.text}`);
      }
      const key = await call<{ key: string }>(server, 'POST', `/admin/v1/teams/${id}/api-keys`, {
        token: admin,
        body: { name: 'user' },
      });
      const ws = await call<{ id: string }>(server, 'POST', '/api/v1/workspaces', {
        token: key.body.key,
        body: { name: 'Mine' },
      });
      assert.equal(ws.status, 201, ws.text);
      const pushed = await call(server, 'POST', '/api/v1/desktop-projects', {
        token: key.body.key,
        body: {
          desktop_project_id: 'contract',
          name: 'Contract',
          workspace_id: ws.body.id,
          payload: { storyboards: [], timelines: [], metadata: {} },
        },
      });
      assert.equal(pushed.status, 200, pushed.text);
      const plans = await call<Array<{ id: string; variants: Array<{ id: string }> }>>(
        server,
        'GET',
        '/api/v1/billing/plans',
        { token: key.body.key },
      );
      const plan = plans.body[0];
      assert.ok(plan);
      const topUp = await call(server, 'POST', '/api/v1/billing/top-up', {
        token: key.body.key,
        body: {
          plan_id: plan.id,
          variant_id: plan.variants[0]?.id,
          success_url: 'https://example.com/ok',
          cancel_url: 'https://example.com/cancel',
          dispute_policy_acknowledged: true,
          signature_name: 'Ada Lovelace',
        },
      });
      assert.equal(topUp.status, 200, topUp.text);
    });
  });
});

describe('vendor webhooks stay open', () => {
  let fal: FakeFal;
  let server: TestServer;

  before(async () => {
    fal = await startFakeFal();
    server = await startTestServer({ env: fal.env });
  });
  after(async () => {
    await server.close();
    await fal.close();
  });

  test('a signed vendor webhook with fields of its own is acknowledged', async () => {
    const body = JSON.stringify({
      request_id: 'req_unknown',
      gateway_request_id: 'gw_1',
      status: 'OK',
      payload: { images: [], timings: { inference: 1.2 } },
      some_future_field: { nested: true },
    });
    const r = await call(server, 'POST', '/webhooks/providers/fal?trace=abc&source=fal', {
      raw: body,
      headers: fal.signWebhook('req_unknown', body),
    });
    assert.equal(r.status, 200, r.text);
  });
});

describe('unknown fields in composed schemas', () => {
  const Base = Type.Object({ prompt: Type.String(), settings: Type.Optional(Type.Object({ seed: Type.Integer() })) });
  const Extra = Type.Object({ batch: Type.Optional(Type.Integer()) });
  const Clone = Type.Object({ method: Type.Literal('clone'), audio_url: Type.String() });
  const Design = Type.Object({ method: Type.Literal('design'), prompt: Type.String() });
  let app: FastifyInstance;

  before(async () => {
    app = Fastify();
    installValidators(app, []);
    app.setErrorHandler((error, _request, reply) => {
      const { validation, validationContext } = error as { validation?: unknown; validationContext?: string };
      return reply.code(400).send(validationProblem(validation as never, validationContext, 20));
    });
    const ok = async () => ({ ok: true });
    app.post('/api/intersect', { schema: { body: Type.Intersect([Base, Extra]) } }, ok);
    app.post('/api/union', { schema: { body: Type.Union([Clone, Design]) } }, ok);
    app.post('/api/open', { schema: { body: Type.Object({ a: Type.String() }, { additionalProperties: true }) } }, ok);
    app.post('/other/intersect', { schema: { body: Type.Intersect([Base, Extra]) } }, ok);
    await app.ready();
  });
  after(() => app.close());

  const send = async (url: string, payload: unknown) => {
    const r = await app.inject({ method: 'POST', url, payload: payload as Record<string, unknown> });
    return { status: r.statusCode, body: r.json() as { details?: Array<{ field: string; message: string }> } };
  };

  test('an intersection takes the fields of all its parts and refuses others, at every level', async () => {
    assert.equal((await send('/api/intersect', { prompt: 'x', batch: 2, settings: { seed: 1 } })).status, 200);
    const r = await send('/api/intersect', { prompt: 'x', batch: 2, seed: 1, settings: { seed: 1, sed: 2 } });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.details, [
      { field: 'settings.sed', message: "unknown field; did you mean 'settings.seed'?" },
      { field: 'seed', message: "unknown field; did you mean 'settings.seed'?" },
    ]);
  });

  test('each alternative of a union is a whole body', async () => {
    assert.equal((await send('/api/union', { method: 'clone', audio_url: 'a' })).status, 200);
    assert.equal((await send('/api/union', { method: 'design', prompt: 'p' })).status, 200);
    assert.equal((await send('/api/union', { method: 'clone', audio_url: 'a', colour: 'red' })).status, 400);
  });

  test('an object that allows any property, and bodies outside /api and /admin, are left as written', async () => {
    assert.equal((await send('/api/open', { a: 'x', b: 1 })).status, 200);
    assert.equal((await send('/other/intersect', { prompt: 'x', anything: 1 })).status, 200);
  });
});
