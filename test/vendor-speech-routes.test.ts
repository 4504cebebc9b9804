// Speech on its routes with both speech vendors configured (fakes of ElevenLabs and of fal's queue on
// 127.0.0.1): a preset ElevenLabs is not given goes to MiniMax on fal, ElevenLabs failing over goes
// there too, and the speech other operations need (a talking head's script, an influencer video's
// dialog) is spoken by the route that speaks the voice.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { probeMedia } from '../src/lib/ffmpeg.ts';
import { type FakeElevenLabs, startFakeElevenLabs } from './fakes/elevenlabs.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { call, createTeam, credentialBecomes, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, waitForGeneration, waitForInfluencer } from './media-helpers.ts';

const MINIMAX = 'fal-ai/minimax/speech-02-hd';

interface SpeechAnswer {
  generation_id: string;
  audio_url: string;
  duration_seconds: number;
  credits_used: number;
}

describe('speech routes: ElevenLabs, then MiniMax on fal', () => {
  let el: FakeElevenLabs;
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;
  const VOICE = 'JBFqnCBsd6RMkjVDRZzb';

  before(async () => {
    el = await startFakeElevenLabs();
    fal = await startFakeFal();
    server = await startTestServer({
      env: {
        ELEVENLABS_API_KEY: el.apiKey,
        ELEVENLABS_BASE_URL: el.url,
        ELEVENLABS_VOICE_MAP: JSON.stringify({ Wise_Woman: VOICE }),
        ...fal.env,
        WORKER_CONCURRENCY: '2',
      },
    });
    team = await createTeam(server, 1_000_000);
  });
  after(async () => {
    await server.close();
    await el.close();
    await fal.close();
  });

  async function post<T>(path: string, body: Record<string, unknown>): Promise<T> {
    const r = await call<T>(server, 'POST', path, { token: team.key, body });
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r.body;
  }
  const ttsCalls = () => el.calls.filter((c) => c.path.startsWith('/v1/text-to-speech/'));
  const minimaxJobs = () => fal.submissions.filter((s) => s.endpoint === MINIMAX);

  /**
   * A team's portrait (made at fal), an influencer trained from it, and a voice designed for it at
   * ElevenLabs: the portrait's URL, the influencer and the voice's ElevenLabs id.
   */
  async function influencerWithVoice(key: string, portrait: string, voicePrompt: string) {
    const as = async <T>(path: string, body: Record<string, unknown>): Promise<T> => {
      const r = await call<T>(server, 'POST', path, { token: key, body });
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      return r.body;
    };
    const image = await as<{ generation_id: string }>('/api/v1/images/generate', {
      prompt: portrait,
      model: 'flux-1-pro',
    });
    const imageUrl = (await waitForGeneration(server, key, image.generation_id)).items[0]?.url ?? '';
    const influencer = await as<{ influencer_id: string }>('/api/v1/influencers/create', { image_urls: [imageUrl] });
    await waitForInfluencer(server, key, influencer.influencer_id);
    const voice = await as<{ voice_id: string }>('/api/v1/voices/generate', {
      method: 'design',
      prompt: voicePrompt,
      influencer_id: influencer.influencer_id,
    });
    const vendorId = (
      await call<{ custom_voice_id: string }>(server, 'GET', `/api/v1/voices/${voice.voice_id}`, { token: key })
    ).body.custom_voice_id;
    return { imageGeneration: image.generation_id, imageUrl, influencerId: influencer.influencer_id, vendorId };
  }

  test('a preset ElevenLabs is not given is spoken by MiniMax on fal, in the format asked for', async () => {
    const before = ttsCalls().length;
    const answer = await post<SpeechAnswer>('/api/v2/text-to-speech', {
      voice_id: 'Deep_Voice_Man',
      text: 'The harbour lights are on.',
      emotion: 'calm',
      speed: 1.3,
      output_format: 'ogg',
    });
    assert.equal(ttsCalls().length, before, 'not ElevenLabs');
    const job = minimaxJobs().at(-1);
    assert.equal(job?.input.text, 'The harbour lights are on.');
    const voice = job?.input.voice_setting as Record<string, unknown>;
    assert.equal(voice.voice_id, 'Deep_Voice_Man');
    assert.equal(voice.speed, 1.3);
    assert.equal(voice.emotion, 'neutral');
    assert.equal(job?.input.output_format, 'url');
    assert.ok(answer.audio_url.endsWith('.ogg'), answer.audio_url);
    const probe = await probeMedia(Buffer.from(await (await fetch(answer.audio_url)).arrayBuffer()));
    assert.equal(probe.audioCodec, 'vorbis', 'converted by the service');
    assert.ok(Math.abs(probe.durationSeconds - answer.duration_seconds) < 0.1);
  });

  test('a mapped preset ElevenLabs cannot speak (its quota spent) fails over to MiniMax, charged once', async () => {
    const before = await balanceOf(server, team.key);
    const answer = await post<SpeechAnswer>('/api/v2/text-to-speech', {
      voice_id: 'Wise_Woman',
      text: 'No credit left at the first vendor [el:quota]',
    });
    assert.equal(ttsCalls().at(-1)?.body?.text, 'No credit left at the first vendor [el:quota]');
    assert.equal(minimaxJobs().at(-1)?.input.text, 'No credit left at the first vendor [el:quota]');
    assert.equal(await balanceOf(server, team.key), before - answer.credits_used);
    assert.ok((await probeMedia(Buffer.from(await (await fetch(answer.audio_url)).arrayBuffer()))).hasAudio);
    // A spent quota takes the key out of service until the operator enables it again.
    const disabled = await credentialBecomes(server, 'env:elevenlabs', 'disabled');
    assert.match(disabled.reason ?? '', /./);
    const enabled = await call(server, 'PATCH', '/admin/v1/credentials/env:elevenlabs', {
      token: server.adminToken,
      body: { enabled: true },
    });
    assert.equal(enabled.status, 200, enabled.text);
    await credentialBecomes(server, 'env:elevenlabs', 'active');
  });

  test("a talking head's script and an influencer video's dialog are spoken in the ElevenLabs voice", async () => {
    const { imageUrl, influencerId, vendorId } = await influencerWithVoice(
      team.key,
      'a portrait of a smiling robot',
      'a warm, bright voice for a friendly robot host',
    );
    assert.match(vendorId, /^designed_/);

    const head = await post<{ generation_id: string }>('/api/v1/videos/talking-head', {
      script: 'Welcome to the show, everyone.',
      influencer_id: influencerId,
      start_image_url: imageUrl,
      model: 'omnihuman-1.5',
    });
    const done = await waitForGeneration(server, team.key, head.generation_id, 30_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    const spoken = ttsCalls().find((c) => c.body?.text === 'Welcome to the show, everyone.');
    assert.equal(spoken?.path, `/v1/text-to-speech/${vendorId}`, 'the script, in the voice made at ElevenLabs');
    const sent = fal.submissions.filter((s) => s.endpoint === 'fal-ai/bytedance/omnihuman/v1.5').at(-1);
    const audio = Buffer.from(await (await fetch(String(sent?.input.audio_url))).arrayBuffer());
    assert.deepEqual(audio, el.mp3, 'fal is given the speech ElevenLabs made, stored by us');

    const video = await post<{ generation_id: string }>('/api/v1/influencers/video', {
      influencer_id: influencerId,
      prompt: 'walking along the pier',
      dialog: 'The sea is calm today.',
    });
    const clip = await waitForGeneration(server, team.key, video.generation_id, 60_000);
    assert.equal(clip.status, 'completed', JSON.stringify(clip.items));
    const dialog = ttsCalls().find((c) => c.body?.text === 'The sea is calm today.');
    assert.equal(dialog?.path, `/v1/text-to-speech/${vendorId}`, 'the dialog, in the same voice');
    const voiced = await probeMedia(Buffer.from(await (await fetch(clip.items[2]?.url ?? '')).arrayBuffer()));
    assert.ok(voiced.hasVideo && voiced.hasAudio);
  });

  test('the speech a talking head needs is sub-work: spoken once, charged nothing of its own, hidden from the team, run in the room of the item that waits for it', async () => {
    const solo = await createTeam(server, 1_000_000, 'one at a time');
    const capped = await call(server, 'PATCH', `/admin/v1/teams/${solo.id}`, {
      token: server.adminToken,
      body: { max_concurrent_items: 1 },
    });
    assert.equal(capped.status, 200, capped.text);
    const as = async <T>(path: string, body: Record<string, unknown>): Promise<T> => {
      const r = await call<T>(server, 'POST', path, { token: solo.key, body });
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      return r.body;
    };
    const { imageGeneration, imageUrl, influencerId, vendorId } = await influencerWithVoice(
      solo.key,
      'a portrait of a lighthouse keeper',
      'a patient, low voice for a lighthouse keeper',
    );
    const before = await balanceOf(server, solo.key);
    const script = 'One item at a time, and still spoken.';
    const head = await as<{ generation_id: string }>('/api/v1/videos/talking-head', {
      script,
      influencer_id: influencerId,
      start_image_url: imageUrl,
      model: 'omnihuman-1.5',
    });
    const done = await waitForGeneration(server, solo.key, head.generation_id, 30_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    const spoken = ttsCalls().filter((c) => c.body?.text === script);
    assert.equal(spoken.length, 1, 'spoken once');
    assert.equal(spoken[0]?.path, `/v1/text-to-speech/${vendorId}`, 'in the voice made at ElevenLabs');
    const sent = fal.submissions.filter((s) => s.endpoint === 'fal-ai/bytedance/omnihuman/v1.5').at(-1);
    assert.deepEqual(
      Buffer.from(await (await fetch(String(sent?.input.audio_url))).arrayBuffer()),
      el.mp3,
      'fal is given the speech ElevenLabs made',
    );
    assert.equal(await balanceOf(server, solo.key), before - done.credits_used, 'charged the head only');
    const history = await call<{ data: Array<{ generation_id: string; operation: string }> }>(
      server,
      'GET',
      '/api/v1/generations',
      { token: solo.key },
    );
    assert.equal(history.status, 200, history.text);
    const listed = history.body.data.map((g) => g.generation_id);
    assert.ok(listed.includes(head.generation_id) && listed.includes(imageGeneration), listed.join());
    assert.deepEqual(
      history.body.data.filter((g) => g.operation === 'speech.tts'),
      [],
      "the speech is not one of the team's generations",
    );
    const made = await server.app.deps.pool.query<{ id: string; credits_charged: string }>(
      `select g.id, g.credits_charged from generations g join generation_items i on i.id = g.parent_item_id
       where i.generation_id = $1 and g.purpose = 'speech'`,
      [head.generation_id],
    );
    assert.equal(made.rows.length, 1, 'one speech for the head');
    assert.equal(Number(made.rows[0]?.credits_charged), 0);
    const hidden = await call(server, 'GET', `/api/v1/generations/${made.rows[0]?.id}/status`, { token: solo.key });
    assert.equal(hidden.status, 404, 'nor can its status be read');
  });

  test('cancelling a talking head stops the speech it is waiting for', async () => {
    const { imageUrl, influencerId } = await influencerWithVoice(
      team.key,
      'a portrait of a radio host',
      'a quick, cheerful voice for a radio host',
    );
    // ElevenLabs answers 429 with Retry-After 2 to this script: the speech keeps waiting to be tried again.
    const script = 'The line is busy [el:429]';
    const head = await post<{ generation_id: string }>('/api/v1/videos/talking-head', {
      script,
      influencer_id: influencerId,
      start_image_url: imageUrl,
      model: 'omnihuman-1.5',
    });
    const pool = server.app.deps.pool;
    const speech = async () =>
      (
        await pool.query<{ status: string; error: string | null }>(
          `select si.status, si.error from generation_items pi
             join generations s on s.parent_item_id = pi.id
             join generation_items si on si.generation_id = s.id
           where pi.generation_id = $1`,
          [head.generation_id],
        )
      ).rows[0];
    for (let tries = 0; !ttsCalls().some((c) => c.body?.text === script); tries++) {
      assert.ok(tries < 300, 'ElevenLabs is asked for the speech');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal((await speech())?.status, 'PROCESSING', 'the speech waits to be tried again');
    const canceled = await call(server, 'POST', `/api/v1/generations/${head.generation_id}/cancel`, {
      token: team.key,
    });
    assert.equal(canceled.status, 200, canceled.text);
    assert.deepEqual(await speech(), { status: 'FAILED', error: 'canceled' });
    const done = await waitForGeneration(server, team.key, head.generation_id);
    assert.equal(done.status, 'failed');
    assert.equal(done.credits_used, 0, 'refunded in full');
  });
});
