// Text to speech on ElevenLabs through the whole service: a fake (test/fakes/elevenlabs.ts) on
// 127.0.0.1, selected with ELEVENLABS_BASE_URL; ELEVENLABS_VOICE_MAP maps the presets it serves.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { probeMedia } from '../src/lib/ffmpeg.ts';
import { type FakeElevenLabs, startFakeElevenLabs } from './fakes/elevenlabs.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf } from './media-helpers.ts';

interface SpeechAnswer {
  generation_id: string;
  audio_url: string;
  duration_seconds: number;
  credits_used: number;
}

describe('speech through ElevenLabs', () => {
  let el: FakeElevenLabs;
  let server: TestServer;
  let team: TeamFixture;
  const VOICE = 'JBFqnCBsd6RMkjVDRZzb';

  before(async () => {
    el = await startFakeElevenLabs();
    server = await startTestServer({
      env: {
        ELEVENLABS_API_KEY: el.apiKey,
        ELEVENLABS_BASE_URL: el.url,
        ELEVENLABS_VOICE_MAP: JSON.stringify({ Wise_Woman: VOICE }),
      },
    });
    team = await createTeam(server, 10_000);
  });
  after(async () => {
    await server.close();
    await el.close();
  });

  const speak = (body: Record<string, unknown>) =>
    call<SpeechAnswer>(server, 'POST', '/api/v2/text-to-speech', { token: team.key, body });
  const ttsCalls = () => el.calls.filter((c) => c.path.startsWith('/v1/text-to-speech/'));

  test('a mapped preset is spoken by ElevenLabs in its voice; the audio is ours and measured', async () => {
    const answer = await speak({ voice_id: 'Wise_Woman', text: 'Good evening, and welcome.', emotion: 'happy' });
    assert.equal(answer.status, 200, answer.text);
    const sent = ttsCalls().at(-1);
    assert.equal(sent?.path, `/v1/text-to-speech/${VOICE}`);
    assert.equal(sent?.query.output_format, 'mp3_44100_128');
    assert.equal(sent?.headers['xi-api-key'], el.apiKey);
    assert.equal(sent?.body?.model_id, 'eleven_multilingual_v2');
    assert.equal(sent?.body?.text, 'Good evening, and welcome.');
    assert.ok(answer.body.audio_url.startsWith(`${server.url}/media/`), answer.body.audio_url);
    const audio = Buffer.from(await (await fetch(answer.body.audio_url)).arrayBuffer());
    assert.deepEqual(audio, el.mp3, 'the bytes ElevenLabs made');
    const probe = await probeMedia(audio);
    assert.ok(Math.abs(answer.body.duration_seconds - probe.durationSeconds) < 0.05, 'measured from the file');
  });

  test('an unmapped preset, or a volume ElevenLabs cannot set, is spoken by the service', async () => {
    const before = ttsCalls().length;
    const unmapped = await speak({ voice_id: 'Deep_Voice_Man', text: 'Nobody maps me.' });
    assert.equal(unmapped.status, 200, unmapped.text);
    const louder = await speak({ voice_id: 'Wise_Woman', text: 'A little louder.', volume: 1.5 });
    assert.equal(louder.status, 200, louder.text);
    assert.equal(ttsCalls().length, before);
  });

  test('a refused text is 400 with ElevenLabs’ reason; a spent quota is 500; both refunded', async () => {
    const before = await balanceOf(server, team.key);
    const tooLong = await speak({ voice_id: 'Wise_Woman', text: 'Far too long [el:too-long]' });
    assert.equal(tooLong.status, 400, tooLong.text);
    const quota = await speak({ voice_id: 'Wise_Woman', text: 'No credit left [el:quota]' });
    assert.equal(quota.status, 500, quota.text);
    assert.equal(await balanceOf(server, team.key), before);
  });
});
