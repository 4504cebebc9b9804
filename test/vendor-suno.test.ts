// music/generate on a Suno-compatible API through the whole service: a fake (test/fakes/suno.ts) on
// 127.0.0.1, selected with SUNO_BASE_URL. Its callbacks are not signed: the URL we give carries a
// token, and a callback without the right one changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { probeMedia } from '../src/lib/ffmpeg.ts';
import { type FakeSuno, startFakeSuno } from './fakes/suno.ts';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
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

  /** The task's callbacks once the last one posted is answered (or after 5 s, as they stand). */
  const answeredCallbacks = async (taskId: string) => {
    for (const deadline = Date.now() + 5000; ; await sleep(20)) {
      const posted = suno.callbacks.filter((c) => c.taskId === taskId);
      if (posted.at(-1)?.status !== undefined || Date.now() > deadline) return posted;
    }
  };

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
    // The callbacks finished it: each was posted and accepted. A progress callback (text, first)
    // has the record read once at most; the fake's record shows the songs done only at its fourth
    // read, which never came, so no poll could have finished it.
    const taskId = suno.submissions.at(-1)?.taskId ?? '';
    const posted = await answeredCallbacks(taskId);
    assert.deepEqual(
      posted.map((c) => [JSON.parse(c.body).data.callbackType, c.status]),
      [
        ['text', 200],
        ['first', 200],
        ['complete', 200],
      ],
    );
    assert.ok(suno.reads(taskId) <= 2, `record-info reads: ${suno.reads(taskId)}`);
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

  // Custom mode, the only one that sings lyrics as written, needs a style: the request's is optional.
  test('lyrics without a style are sung as written in the default style, pop, and charged once', async () => {
    const before = await balanceOf(server, team.key);
    const lyrics = '[Verse]\nWe fold the morning into boats';
    const created = await call<{ generation_id: string; credits_used: number }>(
      server,
      'POST',
      '/api/v1/music/generate',
      { token: team.key, body: { title: 'Paper Boats', lyrics, vocal_gender: 'f', model: 'V5' } },
    );
    assert.equal(created.status, 200, created.text);
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    const sent = suno.submissions.at(-1)?.body ?? {};
    assert.equal(sent.customMode, true);
    assert.equal(sent.prompt, lyrics);
    assert.equal(sent.style, 'pop');
    assert.equal(sent.title, 'Paper Boats');
    assert.equal(sent.vocalGender, 'f');
    assert.equal(done.credits_used, created.body.credits_used);
    assert.equal(await balanceOf(server, team.key), before - created.body.credits_used);
  });

  test('an instrumental without a style is described by its title, so Suno picks the genre', async () => {
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/music/generate', {
      token: team.key,
      body: { title: 'Rain on the Window', instrumental: true },
    });
    assert.equal(created.status, 200, created.text);
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    const sent = suno.submissions.at(-1)?.body ?? {};
    assert.equal(sent.customMode, false);
    assert.equal(sent.instrumental, true);
    assert.equal(sent.prompt, 'Rain on the Window');
    assert.equal(sent.style, undefined);
    assert.equal(sent.title, undefined);
  });
});

// The callback is the fast way; polls are the safety net, `VENDOR_POLL_MAX_MS` apart (a minute by
// default, the first one too). Here a second apart (each picked up within the job queue's own 2 s
// poll), so the four record-info reads of a task whose callback never comes take some 8 s, and a
// wait of a third of the default interval shows a regression rather than waiting it out.
describe('music through Suno when the callback never comes', () => {
  let suno: FakeSuno;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    suno = await startFakeSuno();
    server = await startTestServer({
      env: {
        SUNO_API_KEY: suno.apiKey,
        SUNO_BASE_URL: suno.url,
        VENDOR_POLL_MIN_MS: '100',
        VENDOR_POLL_MAX_MS: '1000',
      },
    });
    team = await createTeam(server, 10_000);
  });
  after(async () => {
    await server.close();
    await suno.close();
  });

  test('a song whose callback never comes is finished by polling its record', async () => {
    const before = await balanceOf(server, team.key);
    const created = await call<{ generation_id: string; credits_used: number }>(
      server,
      'POST',
      '/api/v1/music/generate',
      {
        token: team.key,
        body: { title: 'Quiet Line', style: 'lo-fi piano [suno:no-callback]', instrumental: true, model: 'V4_5' },
      },
    );
    assert.equal(created.status, 200, created.text);
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 20_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    const submission = suno.submissions.find((s) => JSON.stringify(s.body).includes('[suno:no-callback]'));
    const taskId = submission?.taskId ?? '';
    assert.ok(taskId, 'the fake started a task for the song');
    // A callback was asked for (so polls were only the safety net), and none was sent.
    assert.match(String(submission?.body.callBackUrl), /\/webhooks\/providers\/suno\?item=.*&key=.*&token=/);
    const posted = suno.callbacks.filter((c) => c.taskId === taskId).map((c) => JSON.parse(c.body).data.callbackType);
    assert.deepEqual(posted, [], 'no callback was posted for the task');
    // PENDING, TEXT_SUCCESS, FIRST_SUCCESS, then SUCCESS: each a read of record-info.
    assert.ok(suno.reads(taskId) >= 4, `record-info reads: ${suno.reads(taskId)}`);
    const url = done.items[0]?.url ?? '';
    assert.ok(url.startsWith(`${server.url}/media/`), url);
    const audio = await probeMedia(Buffer.from(await (await fetch(url)).arrayBuffer()));
    assert.ok(audio.hasAudio, 'the first song, copied in');
    const price = server.app.deps.media.music.find((m) => m.id === 'V4_5')?.price.credits_per_track;
    assert.equal(created.body.credits_used, price);
    assert.equal(done.credits_used, price);
    assert.equal(await balanceOf(server, team.key), before - Number(price));
  });
});

// A callback URL speaks for its own item: the credential in it is bound to the item when the task
// is sent, so one leaked URL (with its valid key and token) cannot report another item's task.
describe("Suno callbacks bound to their item's task", () => {
  let suno: FakeSuno;
  let server: TestServer;
  let teamA: TeamFixture;
  let teamB: TeamFixture;
  const logLines: string[] = [];

  before(async () => {
    suno = await startFakeSuno();
    server = await startTestServer({
      env: { SUNO_API_KEY: suno.apiKey, SUNO_BASE_URL: suno.url, LOG_LEVEL: 'info' },
      logStream: { write: (line) => void logLines.push(line) },
    });
    teamA = await createTeam(server, 10_000);
    teamB = await createTeam(server, 10_000);
  });
  after(async () => {
    await server.close();
    await suno.close();
  });

  const song = (team: TeamFixture, title: string, style: string) =>
    call<{ generation_id: string }>(server, 'POST', '/api/v1/music/generate', {
      token: team.key,
      body: { title, style, instrumental: true, model: 'V4_5' },
    });
  /** The task Suno was given for a song, once the item has recorded it; its callback URL's path and query. */
  const sentTask = async (generationId: string, title: string) => {
    for (const deadline = Date.now() + 10_000; ; await sleep(20)) {
      const { rows } = await server.pool.query<{ vendor_request_id: string | null }>(
        `select vendor_request_id from generation_items where generation_id = $1 and vendor_state = 'accepted'`,
        [generationId],
      );
      const submission = suno.submissions.find((s) => s.body.title === title);
      const taskId = rows[0]?.vendor_request_id;
      if (taskId && submission) {
        const url = new URL(String(submission.body.callBackUrl));
        return { taskId, callbackPath: `${url.pathname}${url.search}`, token: url.searchParams.get('token') ?? '' };
      }
      if (Date.now() > deadline) throw new Error(`the song ${title} never reached Suno`);
    }
  };

  test("team A's callback credential with team B's task is refused and B's song is untouched; B's own callback finishes it", async () => {
    const mine = await song(teamA, 'Own Tune', 'calm piano');
    assert.equal(mine.status, 200, mine.text);
    const leaked = await sentTask(mine.body.generation_id, 'Own Tune');
    assert.equal((await waitForGeneration(server, teamA.key, mine.body.generation_id, 30_000)).status, 'completed');

    // B's song gets no callback from Suno: only a callback (or a poll a minute away) can finish it.
    const balanceB = await balanceOf(server, teamB.key);
    const theirs = await song(teamB, 'Their Tune', 'cool jazz [suno:no-callback]');
    assert.equal(theirs.status, 200, theirs.text);
    const target = await sentTask(theirs.body.generation_id, 'Their Tune');

    const forged = await call<{ error: { code: string } }>(server, 'POST', leaked.callbackPath, {
      raw: suno.callbackBody(target.taskId, 'complete'),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(forged.status, 401, forged.text);
    assert.equal(forged.body.error.code, 'unauthorized');
    const untouched = await call<{ status: string }>(
      server,
      'GET',
      `/api/v1/generations/${theirs.body.generation_id}/status`,
      { token: teamB.key },
    );
    assert.notEqual(untouched.body.status, 'completed', 'the forged callback did not finish B’s song');
    const { rows } = await server.pool.query<{ n: number }>(
      `select count(*)::int as n from generation_items where generation_id = $1 and status = 'PROCESSING'
         and vendor_webhook_at is null`,
      [theirs.body.generation_id],
    );
    assert.equal(rows[0]?.n, 1, 'B’s item is still processing, unmarked');

    // B's own callback URL is believed for B's task.
    const proper = await call(server, 'POST', target.callbackPath, {
      raw: suno.callbackBody(target.taskId, 'complete'),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(proper.status, 200, proper.text);
    const done = await waitForGeneration(server, teamB.key, theirs.body.generation_id, 30_000);
    assert.equal(done.status, 'completed');
    assert.equal(await balanceOf(server, teamB.key), balanceB - done.credits_used);

    // The request log has the callbacks, but none of their credentials.
    const log = logLines.join('');
    assert.match(log, /\/webhooks\/providers\/suno/, 'the callbacks were logged');
    const sig = (path: string) => new URL(`http://x${path}`).searchParams.get('sig');
    for (const secret of [leaked.token, target.token, sig(leaked.callbackPath), sig(target.callbackPath)]) {
      assert.ok(secret && !log.includes(secret), `a callback credential is in the log: ${secret}`);
    }
  });

  test('credentials in a query string stay out of the request log', async () => {
    const forged = await call(
      server,
      'POST',
      '/webhooks/providers/suno?item=itm_x&key=itm_x-1&token=TokenInTheUrl1&sig=SigInTheUrl2',
      {
        raw: '{}',
        headers: { 'content-type': 'application/json' },
      },
    );
    assert.equal(forged.status, 401);
    const listed = await call(server, 'GET', '/api/v1/models?api_key=KeyInTheUrl3&page_token=TokenInTheUrl4', {
      token: teamA.key,
    });
    assert.ok(listed.status < 500, listed.text);
    const lines = logLines.join('');
    assert.match(lines, /\/webhooks\/providers\/suno/);
    assert.match(lines, /\/api\/v1\/models/);
    for (const secret of ['TokenInTheUrl1', 'SigInTheUrl2', 'KeyInTheUrl3', 'TokenInTheUrl4']) {
      assert.ok(!lines.includes(secret), `${secret} is in the log`);
    }
  });
});
