import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NodeIO } from '@gltf-transform/core';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import {
  balanceOf,
  expectError,
  expectInvalid,
  fetchAndProbe,
  generateAndWait,
  waitForGeneration,
} from './media-helpers.ts';

describe('music, 3D, text and speech', () => {
  let server: TestServer;
  let team: TeamFixture;
  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 100_000);
  });
  after(() => server.close());

  describe('music', () => {
    test('a generated track is an MP3 whose length follows the lyrics, listed as a music track', async () => {
      const team = await createTeam(server, 1000);
      const before = await balanceOf(server, team.key);
      const lyrics = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
      const done = await generateAndWait(server, team.key, '/api/v1/music/generate', {
        title: 'Night Drive',
        style: 'synthwave',
        lyrics,
        vocal_gender: 'f',
      });
      const model = server.app.deps.media.music.find((m) => m.id === 'V4_5PLUS');
      assert.equal(done.created.credits_used, model?.price.credits_per_track);
      assert.equal(await balanceOf(server, team.key), before - Number(model?.price.credits_per_track));
      const { probe, contentType } = await fetchAndProbe(done.url);
      assert.equal(contentType, 'audio/mpeg');
      assert.equal(probe.audioCodec, 'mp3');
      assert.ok(Math.abs(probe.durationSeconds - (20 + 60 / 2.5)) < 0.5, `duration ${probe.durationSeconds}`);

      const list = await call<Array<Record<string, unknown>>>(server, 'GET', '/api/v1/music', { token: team.key });
      const track = list.body.find((t) => t.generation_id === done.id);
      assert.ok(track, 'the track is listed');
      assert.deepEqual(Object.keys(track).sort(), [
        'created_at',
        'expires_at',
        'generation_id',
        'id',
        'status',
        'style',
        'title',
        'url',
      ]);
      assert.equal(track.status, 'completed');
      assert.equal(track.url, done.url);
      assert.match(String(track.id), /^trk_/);
      const one = await call(server, 'GET', `/api/v1/music/${track.id}`, { token: team.key });
      assert.deepEqual(one.body, track);

      const other = await createTeam(server, 10);
      assert.equal((await call(server, 'GET', `/api/v1/music/${track.id}`, { token: other.key })).status, 404);
      assert.deepEqual((await call(server, 'GET', '/api/v1/music', { token: other.key })).body, []);
    });

    test('the workspace filter lists only that workspace, 403 for another team’s', async () => {
      const ws = await call<{ id: string }>(server, 'POST', '/api/v1/workspaces', {
        token: team.key,
        body: { name: 'album' },
      });
      const done = await generateAndWait(server, team.key, '/api/v1/music/generate', {
        title: 'Calm',
        style: 'ambient',
        instrumental: true,
        workspace_id: ws.body.id,
      });
      const filtered = await call<Array<{ generation_id: string }>>(
        server,
        'GET',
        `/api/v1/music?workspace_id=${ws.body.id}`,
        {
          token: team.key,
        },
      );
      assert.deepEqual(
        filtered.body.map((t) => t.generation_id),
        [done.id],
      );
      const other = await createTeam(server, 10);
      const foreign = await call(server, 'GET', `/api/v1/music?workspace_id=${ws.body.id}`, { token: other.key });
      assert.equal(foreign.status, 403);
    });

    test('model and lyrics limits', async () => {
      await expectError(
        server,
        team.key,
        '/api/v1/music/generate',
        { title: 'x', model: 'V3' },
        400,
        'model_not_found',
        'model',
      );
      await expectInvalid(server, team.key, '/api/v1/music/generate', [
        [{ title: 'x', model: 'V4', lyrics: 'a'.repeat(3001) }, 'lyrics'],
        [{ style: 'x' }, 'title'],
        [{ title: 'x', vocal_gender: 'x' }, 'vocal_gender'],
      ]);
      const ok = await call(server, 'POST', '/api/v1/music/generate', {
        token: team.key,
        body: { title: 'x', model: 'V4', lyrics: 'a'.repeat(3000) },
      });
      assert.equal(ok.status, 200, ok.text);
    });
  });

  describe('3D', () => {
    const io = new NodeIO();
    const triangles = async (url: string) => {
      const r = await fetch(url);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'model/gltf-binary');
      const doc = await io.readBinary(new Uint8Array(await r.arrayBuffer()));
      let count = 0;
      for (const mesh of doc.getRoot().listMeshes()) {
        for (const p of mesh.listPrimitives()) count += (p.getIndices()?.getCount() ?? 0) / 3;
      }
      return count;
    };

    test('model_url is returned at once and serves a GLB near the target polycount', async () => {
      const r = await call<{ generation_id: string; model_url: string; credits_used: number }>(
        server,
        'POST',
        '/api/v1/models-3d/generate',
        {
          token: team.key,
          body: { prompt: 'a teapot', settings: { target_polycount: 5000 } },
        },
      );
      assert.equal(r.status, 200, r.text);
      assert.match(r.body.model_url, /\.glb$/);
      const status = await waitForGeneration(server, team.key, r.body.generation_id);
      assert.equal(status.result_urls[0], r.body.model_url);
      const count = await triangles(r.body.model_url);
      assert.ok(Math.abs(count - 5000) <= 500, `${count} triangles`);
      const model = server.app.deps.media.model_3d.find((m) => m.default);
      assert.equal(r.body.credits_used, model?.price.full);
    });

    test('quad topology counts quads', async () => {
      const done = await generateAndWait(server, team.key, '/api/v1/models-3d/generate', {
        prompt: 'a chair',
        settings: { topology: 'quad', target_polycount: 2000, mode: 'preview' },
      });
      const count = await triangles(done.url);
      assert.ok(Math.abs(count / 2 - 2000) <= 200, `${count / 2} quads`);
    });

    test('polycount and image-only model limits', async () => {
      const path = '/api/v1/models-3d/generate';
      await expectInvalid(server, team.key, path, [
        [{ prompt: 'x', settings: { target_polycount: 999 } }, 'settings.target_polycount'],
        [{ prompt: 'x', settings: { target_polycount: 100_001 } }, 'settings.target_polycount'],
      ]);
      await expectError(server, team.key, path, { prompt: 'x', model: 'nope' }, 400, 'model_not_found', 'model');
      const imageOnly = server.app.deps.media.model_3d.find((m) => !m.capabilities.text_to_3d);
      await expectError(
        server,
        team.key,
        path,
        { prompt: 'x', model: imageOnly?.id },
        400,
        'invalid_request',
        'init_image',
      );
      for (const target of [1000, 100_000]) {
        const ok = await call(server, 'POST', path, {
          token: team.key,
          body: { prompt: '[simulate:fail]', settings: { target_polycount: target } },
        });
        assert.equal(ok.status, 200, ok.text);
      }
    });
  });

  describe('text', () => {
    test('answers synchronously with text, the model and real token counts, charging what the tokens cost', async () => {
      const team = await createTeam(server, 1000);
      const before = await balanceOf(server, team.key);
      const body = {
        prompt: 'Write two sentences about lighthouses.',
        settings: { max_tokens: 200, temperature: 0.2 },
      };
      const r = await call<{
        generation_id: string;
        text: string;
        model: string;
        usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
        credits_used: number;
      }>(server, 'POST', '/api/v1/text/generate', { token: team.key, body });
      assert.equal(r.status, 200, r.text);
      assert.ok(r.body.text.length > 0);
      assert.equal(r.body.model, 'openai/gpt-4o-mini');
      const { prompt_tokens: p, completion_tokens: c, total_tokens: t } = r.body.usage;
      assert.ok(Number.isInteger(p) && p > 5 && p < 40, `prompt tokens ${p}`);
      assert.ok(c > 0 && c <= 200);
      assert.equal(t, p + c);
      assert.equal(await balanceOf(server, team.key), before - r.body.credits_used);
      const status = await call<{ status: string; credits_used: number }>(
        server,
        'GET',
        `/api/v1/generations/${r.body.generation_id}/status`,
        { token: team.key },
      );
      assert.equal(status.body.status, 'completed');
      assert.equal(status.body.credits_used, r.body.credits_used);
      const again = await call<{ text: string }>(server, 'POST', '/api/v1/text/generate', { token: team.key, body });
      assert.equal(again.body.text, r.body.text, 'deterministic');
    });

    test('max_tokens caps the completion', async () => {
      const r = await call<{ usage: { completion_tokens: number } }>(server, 'POST', '/api/v1/text/generate', {
        token: team.key,
        body: { prompt: 'Write a long essay about the sea.', settings: { max_tokens: 5 } },
      });
      assert.equal(r.status, 200, r.text);
      assert.ok(r.body.usage.completion_tokens <= 5);
    });

    test('settings limits', async () => {
      const path = '/api/v1/text/generate';
      await expectInvalid(server, team.key, path, [
        [{ prompt: 'x', settings: { temperature: 2.1 } }, 'settings.temperature'],
        [{ prompt: 'x', settings: { temperature: -0.1 } }, 'settings.temperature'],
        [{ prompt: 'x', settings: { max_tokens: 0 } }, 'settings.max_tokens'],
        [{ prompt: 'x', settings: { max_tokens: 16_001 } }, 'settings.max_tokens'],
      ]);
      await expectError(server, team.key, path, { prompt: 'x', model: 'acme/none' }, 400, 'model_not_found', 'model');
      for (const settings of [
        { temperature: 0, max_tokens: 1 },
        { temperature: 2, max_tokens: 16_000 },
      ]) {
        const ok = await call(server, 'POST', path, { token: team.key, body: { prompt: 'x', settings } });
        assert.equal(ok.status, 200, ok.text);
      }
    });
  });

  describe('text to speech', () => {
    test('speaks with a preset voice, costs 25 credits, and answers with the audio URL', async () => {
      const team = await createTeam(server, 1000);
      const before = await balanceOf(server, team.key);
      const r = await call<Record<string, unknown>>(server, 'POST', '/api/v2/text-to-speech', {
        token: team.key,
        body: { voice_id: 'Deep_Voice_Man', text: 'The quick brown fox jumps over the lazy dog.' },
      });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), [
        'audio_url',
        'credits_used',
        'duration_seconds',
        'generation_id',
        'output_format',
        'status',
        'voice_id',
      ]);
      assert.equal(r.body.credits_used, 25);
      assert.equal(r.body.status, 'completed');
      assert.equal(await balanceOf(server, team.key), before - 25);
      const { probe, contentType } = await fetchAndProbe(String(r.body.audio_url));
      assert.equal(contentType, 'audio/mpeg');
      assert.ok(probe.durationSeconds > 1.5 && probe.durationSeconds < 8);
      assert.ok(Math.abs(probe.durationSeconds - Number(r.body.duration_seconds)) < 0.3);
    });

    test('formats, speed and the limits of every field', async () => {
      const wav = await call<{ audio_url: string }>(server, 'POST', '/api/v2/text-to-speech', {
        token: team.key,
        body: {
          voice_id: 'Calm_Woman',
          text: 'hello',
          output_format: 'wav',
          speed: 1.5,
          volume: 2,
          emotion: 'happy',
          language: 'en',
        },
      });
      assert.equal(wav.status, 200, wav.text);
      assert.equal((await fetchAndProbe(wav.body.audio_url)).contentType, 'audio/wav');
      const path = '/api/v2/text-to-speech';
      await expectInvalid(server, team.key, path, [
        [{ voice_id: 'Calm_Woman', text: 'x', speed: 0.59 }, 'speed'],
        [{ voice_id: 'Calm_Woman', text: 'x', speed: 1.51 }, 'speed'],
        [{ voice_id: 'Calm_Woman', text: 'x', volume: 0.49 }, 'volume'],
        [{ voice_id: 'Calm_Woman', text: 'x', volume: 2.01 }, 'volume'],
        [{ voice_id: 'Calm_Woman', text: 'x', language: 'eng' }, 'language'],
        [{ voice_id: 'Calm_Woman', text: 'x', emotion: 'bored' }, 'emotion'],
        [{ voice_id: 'Calm_Woman', text: 'x', output_format: 'midi' }, 'output_format'],
        [{ voice_id: 'Calm_Woman' }, 'text'],
      ]);
      await expectError(
        server,
        team.key,
        path,
        { voice_id: 'voice_00000000000000000000000000', text: 'x' },
        404,
        'not_found',
      );
      for (const speed of [0.6, 1.5]) {
        const ok = await call(server, 'POST', path, {
          token: team.key,
          body: { voice_id: 'Calm_Woman', text: 'edge', speed },
        });
        assert.equal(ok.status, 200);
      }
    });

    test('GET /api/v2/voices lists the built-in and premium presets', async () => {
      const r = await call<Array<{ voice_id: string; type: string }>>(server, 'GET', '/api/v2/voices', {
        token: team.key,
      });
      assert.equal(r.status, 200);
      assert.ok(r.body.some((v) => v.type === 'builtin'));
      assert.ok(r.body.some((v) => v.type === 'premium'));
      assert.ok(r.body.some((v) => v.voice_id === 'Wise_Woman'));
    });
  });
});
