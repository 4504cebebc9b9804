import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { extractFrame } from '../src/lib/ffmpeg.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import {
  balanceOf,
  expectError,
  expectInvalid,
  fetchAndProbe,
  generateAndWait,
  startWeightsServer,
} from './media-helpers.ts';
import { difference } from './pixel-helpers.ts';

describe('videos', () => {
  let server: TestServer;
  let team: TeamFixture;
  let video5s: { url: string; width: number; height: number };
  /** A small 2 s clip, cheap to upscale and sync. */
  let clip: { url: string; width: number; height: number; duration: number };
  let imageUrl: string;
  let speechUrl: string;
  /** Serves the LoRA weights requests name (copied in when a request is accepted). */
  let weights: Awaited<ReturnType<typeof startWeightsServer>>;

  before(async () => {
    weights = await startWeightsServer();
    server = await startTestServer({ env: { WORKER_CONCURRENCY: '2' } });
    team = await createTeam(server, 1_000_000);
    const image = await generateAndWait(server, team.key, '/api/v1/images/generate', {
      prompt: 'a portrait of a smiling robot',
      model: 'flux-1-schnell',
      settings: { aspect_ratio: '16:9' },
    });
    imageUrl = image.url;
    const tts = await call<{ audio_url: string }>(server, 'POST', '/api/v2/text-to-speech', {
      token: team.key,
      body: { voice_id: 'Wise_Woman', text: 'Hello there, this is a short test of the voice.' },
    });
    assert.equal(tts.status, 200, tts.text);
    speechUrl = tts.body.audio_url;
    const lora = await call<{ video_url: string }>(server, 'POST', '/api/v1/videos/wan-2.2-lora', {
      token: team.key,
      body: {
        mode: 't2v',
        prompt: 'a small clip',
        loras: [{ path: weights.url('a.safetensors'), scale: 1, transformer: 'high' }],
        settings: { resolution: '480p', num_frames: 32, frames_per_second: 16 },
      },
    });
    assert.equal(lora.status, 200, lora.text);
    const { probe } = await fetchAndProbe(lora.body.video_url);
    clip = {
      url: lora.body.video_url,
      width: probe.width ?? 0,
      height: probe.height ?? 0,
      duration: probe.durationSeconds,
    };
  });
  after(async () => {
    await server.close();
    weights.close();
  });

  test('the models list has every video model family with capabilities and settings', async () => {
    const r = await call<Array<Record<string, unknown>>>(server, 'GET', '/api/v1/models/videos', { token: team.key });
    assert.equal(r.status, 200);
    const count = (c: string) => r.body.filter((m) => m.category === c).length;
    assert.deepEqual(['video', 'lipsync', 'talking_head', 'reference_video', 'upscale'].map(count), [29, 5, 12, 3, 2]);
    const family = r.body.filter((m) => (m.capabilities as { provider_family?: boolean }).provider_family);
    assert.ok(family.length > 0 && family.every((m) => (m.providers as unknown[]).length === 5));
    const images = await call<Array<Record<string, unknown>>>(server, 'GET', '/api/v1/models/images', {
      token: team.key,
    });
    assert.equal(images.body.filter((m) => m.category === 'image').length, 43);
    assert.equal(images.body.filter((m) => m.category === 'edit').length, 16);
    for (const m of images.body) {
      assert.equal(typeof m.supports_lora, 'boolean');
      assert.equal('lora_types' in m, m.supports_lora === true, String(m.id));
    }
  });

  test('text-to-video makes an H.264 MP4 of the requested duration, ratio and rate, priced per second', async () => {
    const model = server.app.deps.media.video.find((m) => m.default);
    assert.ok(model);
    const before = await balanceOf(server, team.key);
    const done = await generateAndWait(server, team.key, '/api/v1/videos/generate', { prompt: 'waves at dawn' });
    assert.deepEqual(Object.keys(done.created).sort(), [
      'credits_used',
      'estimated_time',
      'generation_id',
      'status',
      'videos',
    ]);
    const price = Math.ceil(model.price.credits_per_second * 5);
    assert.equal(done.created.credits_used, price);
    assert.equal(await balanceOf(server, team.key), before - price);
    const { probe, contentType } = await fetchAndProbe(done.url);
    assert.equal(contentType, 'video/mp4');
    assert.equal(probe.videoCodec, 'h264');
    assert.ok(Math.abs(probe.durationSeconds - 5) < 0.15, `duration ${probe.durationSeconds}`);
    assert.equal(probe.fps, model.settings.fps);
    assert.ok(Math.abs((probe.width ?? 0) / (probe.height ?? 1) - 16 / 9) < 0.02);
    video5s = { url: done.url, width: probe.width ?? 0, height: probe.height ?? 0 };
  });

  test('image-to-video starts from the given frame', async () => {
    const model = server.app.deps.media.video.find(
      (m) => m.capabilities.image_to_video && m.settings.durations.includes(2),
    );
    assert.ok(model, 'a model doing 2 s image-to-video');
    const done = await generateAndWait(server, team.key, '/api/v1/videos/generate', {
      prompt: 'the robot waves',
      model: model.id,
      first_frame_image: imageUrl,
      settings: {
        duration: 2,
        aspect_ratio: model.settings.aspect_ratios.includes('16:9') ? '16:9' : model.settings.aspect_ratios[0],
      },
    });
    const { data } = await fetchAndProbe(done.url);
    const frame = await extractFrame(data, 0);
    const source = Buffer.from(await (await fetch(imageUrl)).arrayBuffer());
    const other = await sharp({ create: { width: 64, height: 36, channels: 3, background: '#204080' } })
      .png()
      .toBuffer();
    const close = await difference(frame, source);
    assert.ok(close < 25 && close < (await difference(frame, other)), `first frame differs from the image by ${close}`);
  });

  test('model, ratio and duration rules name the allowed values and charge nothing', async () => {
    const before = await balanceOf(server, team.key);
    const narrow = server.app.deps.media.video.find((m) => !m.settings.aspect_ratios.includes('4:3'));
    const fixed = server.app.deps.media.video.find((m) => !m.settings.durations.includes(7));
    const path = '/api/v1/videos/generate';
    await expectError(server, team.key, path, { prompt: 'x', model: 'nope' }, 400, 'model_not_found', 'model');
    const ratio = await expectError(
      server,
      team.key,
      path,
      { prompt: 'x', model: narrow?.id, settings: { aspect_ratio: '4:3' } },
      400,
      'invalid_request',
      'settings.aspect_ratio',
    );
    assert.match(ratio.error.message, new RegExp(narrow?.settings.aspect_ratios.join(', ') ?? ''));
    const duration = await expectError(
      server,
      team.key,
      path,
      { prompt: 'x', model: fixed?.id, settings: { duration: 7 } },
      400,
      'invalid_request',
      'settings.duration',
    );
    assert.match(duration.error.message, new RegExp(fixed?.settings.durations.join(', ') ?? ''));
    await expectInvalid(server, team.key, path, [
      [{ prompt: 'x', settings: { duration: 0 } }, 'settings.duration'],
      [{ prompt: 'x', settings: { duration: 16 } }, 'settings.duration'],
      [{ prompt: 'x', settings: { aspect_ratio: '2:1' } }, 'settings.aspect_ratio'],
    ]);
    assert.equal(await balanceOf(server, team.key), before);
  });

  test('the provider family is priced 40/s at 720p and 90/s at 1080p; its settings are ignored elsewhere', async () => {
    const family = server.app.deps.media.video.find((m) => m.provider_family);
    assert.ok(family);
    const duration = family.settings.durations[0] ?? 4;
    const price = async (body: unknown) => {
      const r = await call<{ credits_used: number }>(server, 'POST', '/api/v1/videos/generate', {
        token: team.key,
        body,
      });
      assert.equal(r.status, 200, r.text);
      return r.body.credits_used;
    };
    assert.equal(
      await price({ prompt: '[simulate:fail]', model: family.id, settings: { duration, quality: 'basic' } }),
      40 * duration,
    );
    assert.equal(await price({ prompt: '[simulate:fail]', model: family.id, settings: { duration } }), 90 * duration);
    await expectError(
      server,
      team.key,
      '/api/v1/videos/generate',
      { prompt: 'x', model: family.id, settings: { duration, provider: 'nobody' } },
      400,
      'invalid_request',
      'settings.provider',
    );
    const other = server.app.deps.media.video.find((m) => !m.provider_family && m.settings.durations.includes(5));
    assert.ok(other);
    assert.equal(
      await price({
        prompt: '[simulate:fail]',
        model: other.id,
        settings: { provider: 'nobody', quality: 'basic', remove_watermark: false },
      }),
      Math.ceil(other.price.credits_per_second * 5),
    );
  });

  test('lip sync keeps the video and carries the given audio; an unknown generation_id is 404', async () => {
    const done = await generateAndWait(server, team.key, '/api/v1/videos/lipsync', {
      video_url: clip.url,
      audio_url: speechUrl,
    });
    const { probe } = await fetchAndProbe(done.url);
    assert.ok(probe.hasAudio && probe.hasVideo);
    assert.ok(Math.abs(probe.durationSeconds - clip.duration) < 0.2);
    const model = server.app.deps.media.lipsync.find((m) => m.default);
    assert.equal(done.created.credits_used, Math.ceil((model?.price.credits_per_second ?? 0) * clip.duration));
    await expectError(
      server,
      team.key,
      '/api/v1/videos/lipsync',
      { video_url: video5s.url, audio_url: speechUrl, generation_id: 'gen_00000000000000000000000000' },
      404,
      'not_found',
    );
    await expectError(
      server,
      team.key,
      '/api/v1/videos/lipsync',
      { video_url: imageUrl, audio_url: speechUrl },
      400,
      'invalid_request',
      'video_url',
    );
  });

  test("motion control measures the reference: ≤ 10 s for 'image', ≤ 30 s for 'video'; element only with 'video'", async () => {
    const long = server.app.deps.media.video.find(
      (m) => m.settings.durations.some((d) => d > 10 && d <= 12) && m.capabilities.text_to_video,
    );
    assert.ok(long);
    const seconds = long.settings.durations.find((d) => d > 10 && d <= 12) as number;
    const twelve = await generateAndWait(server, team.key, '/api/v1/videos/generate', {
      prompt: 'a dancer',
      model: long.id,
      settings: { duration: seconds, quality: 'basic', aspect_ratio: long.settings.aspect_ratios[0] },
    });
    const path = '/api/v1/videos/motion-control';
    const tooLong = await expectError(
      server,
      team.key,
      path,
      { video_url: twelve.url, image_url: imageUrl, character_orientation: 'image' },
      400,
      'invalid_request',
      'video_url',
    );
    assert.match(tooLong.error.message, /at most 10 s/);
    await expectInvalid(server, team.key, path, [
      [
        {
          video_url: video5s.url,
          image_url: imageUrl,
          character_orientation: 'image',
          element: { frontal_image_url: imageUrl },
        },
        'element',
      ],
      [{ video_url: video5s.url, image_url: imageUrl, prompt: 'move like @Element1' }, 'prompt'],
    ]);
    const done = await generateAndWait(server, team.key, path, {
      video_url: twelve.url,
      image_url: imageUrl,
      prompt: '@Element1 dances',
      element: { frontal_image_url: imageUrl, reference_image_urls: [imageUrl] },
    });
    const { probe } = await fetchAndProbe(done.url);
    assert.ok(Math.abs(probe.durationSeconds - seconds) < 0.25, `duration ${probe.durationSeconds}`);
  });

  test('reference-to-video numbers elements and images and applies each model’s limits', async () => {
    const path = '/api/v1/videos/reference-to-video';
    const [first, second] = server.app.deps.media.reference_video;
    const element = { frontal_image_url: imageUrl, reference_image_urls: [imageUrl] };
    await expectInvalid(server, team.key, path, [
      [{ prompt: '@Element1 walks' }, 'prompt'],
      [{ prompt: '@Element2 walks', elements: [element] }, 'prompt'],
      [{ prompt: 'in @Image3', image_urls: [imageUrl, imageUrl] }, 'prompt'],
      [{ prompt: 'x', image_urls: [imageUrl, imageUrl, imageUrl] }, 'image_urls'],
    ]);
    await expectError(
      server,
      team.key,
      path,
      { prompt: 'x', elements: [{ frontal_image_url: imageUrl, reference_image_urls: [] }] },
      400,
      'invalid_request',
    );
    await expectInvalid(server, team.key, path, [
      [{ prompt: 'x', duration: '4' }, 'duration'],
      [{ prompt: 'x', resolution: '1080p' }, 'resolution'],
      [{ prompt: 'x', aspect_ratio: '4:3' }, 'aspect_ratio'],
      [
        {
          prompt: 'x',
          multi_prompt: [
            { prompt: 'a', duration: '8' },
            { prompt: 'b', duration: '8' },
          ],
        },
        'multi_prompt',
      ],
    ]);
    await expectError(
      server,
      team.key,
      path,
      { prompt: 'x', influencer_id: 'inf_00000000000000000000000000' },
      404,
      'not_found',
    );
    await expectError(
      server,
      team.key,
      path,
      { prompt: 'x', model: second?.id, resolution: '4k' },
      400,
      'invalid_request',
      'resolution',
    );

    const accepted = await call<Record<string, unknown>>(server, 'POST', path, {
      token: team.key,
      body: { prompt: '[simulate:fail]', model: second?.id, duration: '3', aspect_ratio: '4:3' },
    });
    assert.equal(accepted.status, 200, accepted.text);
    assert.deepEqual(Object.keys(accepted.body).sort(), ['estimated_time', 'generation_id', 'status']);

    const shots = await generateAndWait(server, team.key, path, {
      prompt: 'ignored',
      model: first?.id,
      elements: [element],
      image_urls: [imageUrl],
      multi_prompt: [
        { prompt: '@Element1 enters @Image1', duration: '3' },
        { prompt: '@Element1 sits down', duration: '3' },
      ],
    });
    const { probe } = await fetchAndProbe(shots.url);
    assert.ok(Math.abs(probe.durationSeconds - 6) < 0.25, `duration ${probe.durationSeconds}`);
  });

  test('talking head: audio_mode rules, conditional influencer, templates and sheet-only settings', async () => {
    const path = '/api/v1/videos/talking-head';
    const media = server.app.deps.media;
    const def = media.talking_head.find((m) => m.default);
    const sheet = media.talking_head.find((m) => m.sheet_based);
    const scriptOnly = media.talking_head.find((m) => !m.needs_audio && !m.sheet_based);
    const long = media.talking_head.find((m) => m.settings.durations.includes(30));
    const template = media.talking_head_templates[0];
    assert.ok(def && sheet && scriptOnly && long && template);
    await expectInvalid(server, team.key, path, [
      [{ start_image_url: imageUrl }, 'script'],
      [{ audio_mode: 'upload', start_image_url: imageUrl }, 'audio_url'],
      [{ script: 'hi', start_image_url: imageUrl }, 'influencer_id'],
      [{ script: 'hi', model: sheet.id }, 'influencer_id'],
      [
        { audio_mode: 'upload', audio_url: speechUrl, start_image_url: imageUrl, static_camera: false },
        'static_camera',
      ],
    ]);
    await expectError(
      server,
      team.key,
      path,
      {
        audio_mode: 'upload',
        audio_url: speechUrl,
        template_id: 'nowhere',
        angle_id: 'front',
        influencer_id: 'inf_00000000000000000000000000',
      },
      404,
      'not_found',
    );
    await expectInvalid(server, team.key, path, [
      [
        {
          audio_mode: 'upload',
          audio_url: speechUrl,
          template_id: template.id,
          angle_id: 'upside-down',
          influencer_id: 'inf_00000000000000000000000000',
        },
        'angle_id',
      ],
      [
        { audio_mode: 'upload', audio_url: speechUrl, template_id: template.id, angle_id: template.angles[0]?.id },
        'influencer_id',
      ],
      [
        {
          audio_mode: 'upload',
          audio_url: speechUrl,
          start_image_url: imageUrl,
          template_id: template.id,
          angle_id: template.angles[0]?.id,
        },
        'start_image_url',
      ],
      [{ audio_mode: 'upload', audio_url: speechUrl, start_image_url: imageUrl, duration: '30' }, 'duration'],
    ]);
    const thirty = await call(server, 'POST', path, {
      token: team.key,
      body: {
        audio_mode: 'upload',
        audio_url: speechUrl,
        start_image_url: imageUrl,
        model: long.id,
        duration: '30',
        script: '[simulate:fail]',
      },
    });
    assert.equal(thirty.status, 200, thirty.text);

    const upload = await generateAndWait(server, team.key, path, {
      audio_mode: 'upload',
      audio_url: speechUrl,
      start_image_url: imageUrl,
      aspect_ratio: '16:9',
    });
    const { probe } = await fetchAndProbe(upload.url);
    assert.ok(probe.hasAudio && probe.hasVideo);
    assert.ok(probe.durationSeconds <= def.settings.default_duration + 0.2);
    assert.ok((probe.width ?? 0) > (probe.height ?? 0), '16:9');

    const spoken = await generateAndWait(server, team.key, path, {
      script: 'Welcome! [pause:1s] [excited] This is great.',
      model: scriptOnly.id,
      start_image_url: imageUrl,
    });
    assert.ok((await fetchAndProbe(spoken.url)).probe.hasAudio);
    // Every emotion the endpoint offers is spoken, those that TTS names otherwise too.
    for (const emotion of ['curious', 'frustrated', 'enthusiastic']) {
      const felt = await generateAndWait(server, team.key, path, {
        script: 'Is it really?',
        model: scriptOnly.id,
        start_image_url: imageUrl,
        audio_settings: { emotion },
      });
      assert.ok((await fetchAndProbe(felt.url)).probe.hasAudio, emotion);
    }
  });

  test('upscale multiplies the resolution, honours target_fps, and prices by output tier', async () => {
    const topaz = server.app.deps.media.upscalers.find((u) => u.id === 'topaz');
    assert.ok(topaz);
    const path = '/api/v1/videos/upscale';
    const created = await generateAndWait(server, team.key, path, {
      video_url: clip.url,
      upscale_factor: 2,
      target_fps: 30,
    });
    const { probe } = await fetchAndProbe(created.url);
    assert.equal(probe.width, clip.width * 2);
    assert.equal(probe.height, clip.height * 2);
    assert.equal(probe.fps, 30);
    const base = await call<{ generation_id: string }>(server, 'POST', path, {
      token: team.key,
      body: { video_url: clip.url },
    });
    const { rows } = await server.pool.query('select id, credits_charged from generations where id = any($1)', [
      [created.id, base.body.generation_id],
    ]);
    const charged = new Map(rows.map((r) => [r.id, Number(r.credits_charged)]));
    assert.equal(
      charged.get(created.id),
      2 * (charged.get(base.body.generation_id) ?? 0),
      'target_fps doubles the cost',
    );

    const other = topaz.video_models.find((v) => v.id !== topaz.default_video_model)?.id;
    await expectInvalid(server, team.key, path, [
      [{ video_url: clip.url, upscale_factor: 3 }, 'upscale_factor'],
      [{ video_url: clip.url, compression: 0.5 }, 'compression'],
      [{ video_url: clip.url, topaz_video_model: other, softness: 2 }, 'softness'],
      [{ video_url: clip.url, softness: 6 }, 'softness'],
      [{ video_url: clip.url, topaz_video_model: other, noise: 1.1 }, 'noise'],
      [{ video_url: clip.url, model: 'seedvr2', target_fps: 30 }, 'target_fps'],
      [{ video_url: clip.url, target_fps: 61 }, 'target_fps'],
    ]);
    const ok = await call(server, 'POST', path, {
      token: team.key,
      body: { video_url: clip.url, topaz_video_model: other, noise: 1, softness: undefined },
    });
    assert.equal(ok.status, 200, ok.text);
  });

  test('the deprecated upscaler endpoints keep their own pricing and limits', async () => {
    const seedvr = server.app.deps.media.upscalers.find((u) => u.id === 'seedvr2');
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/videos/upscale/seedvr2', {
      token: team.key,
      body: { video_url: clip.url, upscale_mode: 'target', target_resolution: '1080p' },
    });
    assert.equal(r.status, 200, r.text);
    const { rows } = await server.pool.query('select credits_charged from generations where id = $1', [
      r.body.generation_id,
    ]);
    const outWidth = Math.round(clip.width * (1080 / clip.height));
    const expected = Math.ceil((seedvr?.credits_per_output_megapixel ?? 0) * ((outWidth * 1080) / 1e6) * clip.duration);
    assert.ok(Math.abs(Number(rows[0].credits_charged) - expected) <= 1, `${rows[0].credits_charged} vs ${expected}`);
    await expectError(
      server,
      team.key,
      '/api/v1/videos/upscale/seedvr2',
      { video_url: clip.url, upscale_mode: 'target' },
      400,
      'invalid_request',
      'target_resolution',
    );
    await expectError(
      server,
      team.key,
      '/api/v1/videos/upscale/topaz',
      { video_url: clip.url, upscale_factor: 5 },
      400,
      'invalid_request',
      'upscale_factor',
    );
    const one = await call(server, 'POST', '/api/v1/videos/upscale/topaz', {
      token: team.key,
      body: { video_url: clip.url, upscale_factor: 1, target_fps: 24 },
    });
    assert.equal(one.status, 200, one.text);
  });

  test('the LoRA video endpoint answers synchronously with the video, and refunds a failure with 500', async () => {
    const path = '/api/v1/videos/wan-2.2-lora';
    const loras = [
      { path: weights.url('high.safetensors'), scale: 1, transformer: 'high' },
      { path: weights.url('low.safetensors'), scale: 1, transformer: 'low' },
    ];
    const r = await call<{ generation_id: string; video_url: string; mode: string }>(server, 'POST', path, {
      token: team.key,
      body: {
        mode: 't2v',
        prompt: 'a paper boat',
        loras,
        settings: { num_frames: 33, frames_per_second: 16, resolution: '480p' },
      },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['generation_id', 'mode', 'video_url']);
    assert.equal(r.body.mode, 't2v');
    const { probe } = await fetchAndProbe(r.body.video_url);
    assert.ok(Math.abs(probe.durationSeconds - 33 / 16) < 0.1, `duration ${probe.durationSeconds}`);
    assert.equal(probe.fps, 16);

    await expectInvalid(server, team.key, path, [
      [{ mode: 'i2v', prompt: 'x', loras }, 'image_url'],
      [{ mode: 't2v', prompt: 'x', loras: [] }, 'loras'],
      [{ mode: 't2v', prompt: 'x' }, 'loras'],
    ]);
    for (const [field, value] of [
      ['num_frames', 16],
      ['num_frames', 162],
      ['frames_per_second', 3],
      ['frames_per_second', 61],
    ] as const) {
      await expectError(
        server,
        team.key,
        path,
        { mode: 't2v', prompt: 'x', loras, settings: { [field]: value } },
        400,
        'invalid_request',
        `settings.${field}`,
      );
    }
    for (const [field, value] of [
      ['num_frames', 17],
      ['frames_per_second', 60],
    ] as const) {
      const edge = await call(server, 'POST', path, {
        token: team.key,
        body: { mode: 't2v', prompt: 'x', loras, settings: { [field]: value, resolution: '480p' } },
      });
      assert.equal(edge.status, 200, `${field}=${value}: ${edge.text}`);
    }
    const before = await balanceOf(server, team.key);
    const failed = await call<{ error: { code: string } }>(server, 'POST', path, {
      token: team.key,
      body: { mode: 't2v', prompt: '[simulate:fail]', loras },
    });
    assert.equal(failed.status, 500);
    assert.equal(failed.body.error.code, 'generation_failed');
    assert.equal(await balanceOf(server, team.key), before);
  });
});
