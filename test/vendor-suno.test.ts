// music/generate on a Suno-compatible API through the whole service: a fake (test/fakes/suno.ts) on
// 127.0.0.1, selected with SUNO_BASE_URL. Its callbacks are not signed: the URL we give carries a
// token, and a callback without the right one changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { probeMedia } from '../src/lib/ffmpeg.ts';
import { type FakeSuno, startFakeSuno } from './fakes/suno.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, waitForGeneration } from './media-helpers.ts';

describe('music through Suno', () => {
  let suno: FakeSuno;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    suno = await startFakeSuno();
    server = await startTestServer({ env: { SUNO_API_KEY: suno.apiKey, SUNO_BASE_URL: suno.url } });
    team = await createTeam(server, 10_000);
  });
  after(async () => {
    await server.close();
    await suno.close();
  });

  test('a song with lyrics goes in custom mode; its tokened callback finishes it and the track is ours', async () => {
    const before = await balanceOf(server, team.key);
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/music/generate', {
      token: team.key,
      body: {
        title: 'Harbour Lights',
        style: 'warm indie folk',
        lyrics: '[Verse]\nThe boats come home at dusk',
        vocal_gender: 'f',
        model: 'V4_5PLUS',
      },
    });
    assert.equal(created.status, 200, created.text);
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    const sent = suno.submissions.at(-1)?.body ?? {};
    assert.equal(sent.customMode, true);
    assert.equal(sent.model, 'V4_5PLUS');
    assert.equal(sent.style, 'warm indie folk');
    assert.equal(sent.title, 'Harbour Lights');
    assert.equal(sent.vocalGender, 'f');
    assert.match(String(sent.callBackUrl), /\/webhooks\/providers\/suno\?item=.*&key=.*&token=/);
    const url = done.items[0]?.url ?? '';
    assert.ok(url.startsWith(`${server.url}/media/`), url);
    const audio = await probeMedia(Buffer.from(await (await fetch(url)).arrayBuffer()));
    assert.ok(audio.hasAudio, 'the first song, copied in');
    assert.equal(await balanceOf(server, team.key), before - done.credits_used);
  });

  test('a callback without the right token is 401 and changes nothing', async () => {
    const taskId = suno.callbacks.at(-1)?.taskId ?? '';
    const body = suno.callbackBody(taskId, 'complete');
    const forged = await call(server, 'POST', '/webhooks/providers/suno?key=x&token=wrong', {
      raw: body,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(forged.status, 401, forged.text);
    const bare = await call(server, 'POST', '/webhooks/providers/suno', {
      raw: body,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(bare.status, 401);
  });

  test('a sung song without lyrics is described, so Suno writes the words', async () => {
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/music/generate', {
      token: team.key,
      body: { title: 'Night Drive', style: 'synthwave', vocal_gender: 'm' },
    });
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    const sent = suno.submissions.at(-1)?.body ?? {};
    assert.equal(sent.customMode, false);
    assert.equal(sent.prompt, 'Night Drive: synthwave, sung by a male voice');
  });
});
