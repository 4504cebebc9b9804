// Text to speech on ElevenLabs through the whole service: a fake (test/fakes/elevenlabs.ts) on
// 127.0.0.1, selected with ELEVENLABS_BASE_URL; ELEVENLABS_VOICE_MAP maps the presets it serves.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { probeMedia } from '../src/lib/ffmpeg.ts';
import { decodeAudio } from '../src/render/audio.ts';
import { type FakeElevenLabs, startFakeElevenLabs } from './fakes/elevenlabs.ts';
import { call, createTeam, credentialBecomes, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
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

  test('an unmapped preset is spoken by the service when no other route can speak it', async () => {
    const before = ttsCalls().length;
    const unmapped = await speak({ voice_id: 'Deep_Voice_Man', text: 'Nobody maps me.' });
    assert.equal(unmapped.status, 200, unmapped.text);
    assert.equal(ttsCalls().length, before);
  });

  test('what ElevenLabs cannot do is made up by the service: every format, a volume, a speed beyond 1.2', async () => {
    const formats: Record<string, { type: string; codec?: string }> = {
      mp3: { type: 'audio/mpeg', codec: 'mp3' },
      wav: { type: 'audio/wav', codec: 'pcm_s16le' },
      ogg: { type: 'audio/ogg', codec: 'vorbis' },
      flac: { type: 'audio/flac', codec: 'flac' },
      aac: { type: 'audio/aac', codec: 'aac' },
      pcm: { type: 'audio/pcm' },
    };
    for (const [format, expected] of Object.entries(formats)) {
      const answer = await speak({ voice_id: 'Wise_Woman', text: `In ${format}.`, output_format: format });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(ttsCalls().at(-1)?.body?.text, `In ${format}.`, `${format}: spoken by ElevenLabs`);
      assert.ok(answer.body.audio_url.endsWith(`.${format}`), answer.body.audio_url);
      const file = await fetch(answer.body.audio_url);
      assert.equal(file.headers.get('content-type')?.split(';')[0], expected.type, format);
      const data = Buffer.from(await file.arrayBuffer());
      if (expected.codec) {
        const probe = await probeMedia(data);
        assert.equal(probe.audioCodec, expected.codec, format);
        assert.ok(Math.abs(probe.durationSeconds - answer.body.duration_seconds) < 0.1, format);
      } else {
        assert.ok(Math.abs(data.length / 2 / 22050 - answer.body.duration_seconds) < 0.01, 'raw 22 050 Hz s16le');
      }
    }
    const level = async (url: string) => {
      const { samples } = await decodeAudio(Buffer.from(await (await fetch(url)).arrayBuffer()));
      return Math.sqrt(samples.reduce((sum, v) => sum + v * v, 0) / samples.length);
    };
    const plain = await speak({ voice_id: 'Wise_Woman', text: 'As loud as it comes.', output_format: 'wav' });
    const louder = await speak({ voice_id: 'Wise_Woman', text: 'Louder.', volume: 1.8, output_format: 'wav' });
    assert.equal(louder.status, 200, louder.text);
    assert.equal(ttsCalls().at(-1)?.body?.text, 'Louder.', 'ElevenLabs speaks it; the service turns it up');
    const gain = (await level(louder.body.audio_url)) / (await level(plain.body.audio_url));
    assert.ok(gain > 1.6 && gain < 2, `louder by ${gain}`);
    const fast = await speak({ voice_id: 'Wise_Woman', text: 'Quickly now.', speed: 1.5, output_format: 'wav' });
    assert.equal(fast.status, 200, fast.text);
    assert.equal((ttsCalls().at(-1)?.body?.voice_settings as { speed: number } | undefined)?.speed, 1.2);
    const ratio = plain.body.duration_seconds / fast.body.duration_seconds;
    assert.ok(Math.abs(ratio - 1.25) < 0.05, `1.2 at ElevenLabs, the rest (1.25) by the service: ${ratio}`);
  });

  test('a refused text is 400 with ElevenLabs’ reason; a spent quota is 500; both refunded', async () => {
    const before = await balanceOf(server, team.key);
    const tooLong = await speak({ voice_id: 'Wise_Woman', text: 'Far too long [el:too-long]' });
    assert.equal(tooLong.status, 400, tooLong.text);
    const quota = await speak({ voice_id: 'Wise_Woman', text: 'No credit left [el:quota]' });
    assert.equal(quota.status, 500, quota.text);
    assert.equal(await balanceOf(server, team.key), before);
    // A spent quota takes the key out of service (a refused text does not) until it is enabled again.
    const disabled = await credentialBecomes(server, 'env:elevenlabs', 'disabled');
    assert.match(disabled.reason ?? '', /quota/);
    const enabled = await call(server, 'PATCH', '/admin/v1/credentials/env:elevenlabs', {
      token: server.adminToken,
      body: { enabled: true },
    });
    assert.equal(enabled.status, 200, enabled.text);
    await credentialBecomes(server, 'env:elevenlabs', 'active');
  });

  test('voices are cloned (from a WAV and from an MP3) and designed at ElevenLabs, and speak there', async () => {
    // Recordings to clone: the service's own speech of an unmapped preset, as WAV and as MP3.
    const sample = async (format: string) =>
      (await speak({ voice_id: 'Deep_Voice_Man', text: 'A recording to clone.', output_format: format })).body
        .audio_url;
    const made: Array<{ voice_id: string; audio_url: string; sample: Buffer }> = [];
    for (const [path, format] of [
      ['/api/v1/voices/generate', 'wav'],
      ['/api/v2/voice-clone', 'mp3'],
    ] as const) {
      const url = await sample(format);
      const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
      const created = await call<{ voice_id: string; audio_url: string; status: string }>(server, 'POST', path, {
        token: team.key,
        // `method` is a field of the v1 endpoint only; the v2 one clones by its path.
        body: {
          ...(path === '/api/v1/voices/generate' ? { method: 'clone' } : {}),
          audio_url: url,
          name: `From ${format}`,
        },
      });
      assert.equal(created.status, 200, created.text);
      const clone = el.clones.at(-1);
      assert.deepEqual(clone?.files[0]?.data, bytes, `the ${format} recording, sent as it is`);
      assert.equal(clone?.files[0]?.contentType, format === 'wav' ? 'audio/wav' : 'audio/mpeg');
      assert.equal(clone?.fields.name, `From ${format}`);
      const preview = Buffer.from(await (await fetch(created.body.audio_url)).arrayBuffer());
      assert.deepEqual(preview, bytes, 'a clone’s preview is its recording');
      const read = await call<{ custom_voice_id: string }>(server, 'GET', `/api/v1/voices/${created.body.voice_id}`, {
        token: team.key,
      });
      assert.equal(read.body.custom_voice_id, clone?.voiceId, 'custom_voice_id is ElevenLabs’ voice id');
      made.push({ ...created.body, sample: bytes });
    }
    const designed = await call<{ voice_id: string }>(server, 'POST', '/api/v2/voice-design', {
      token: team.key,
      body: { prompt: 'gravelly pirate' },
    });
    assert.equal(designed.status, 200, designed.text);
    const design = el.calls.filter((c) => c.path === '/v1/text-to-voice/design').at(-1);
    assert.equal(design?.body?.voice_description, 'gravelly pirate: a clear, natural speaking voice');
    const saved = el.calls.filter((c) => c.path === '/v1/text-to-voice').at(-1);
    const read = await call<{ custom_voice_id: string }>(server, 'GET', `/api/v1/voices/${designed.body.voice_id}`, {
      token: team.key,
    });
    assert.match(read.body.custom_voice_id, /^designed_/);
    assert.equal(saved?.body?.voice_description, 'gravelly pirate: a clear, natural speaking voice');

    // Each voice speaks at ElevenLabs, in its own voice id there.
    for (const voice of [...made.map((m) => m.voice_id), designed.body.voice_id]) {
      const vendorId = (
        await call<{ custom_voice_id: string }>(server, 'GET', `/api/v1/voices/${voice}`, { token: team.key })
      ).body.custom_voice_id;
      const answer = await speak({ voice_id: voice, text: 'In my own voice.' });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(ttsCalls().at(-1)?.path, `/v1/text-to-speech/${vendorId}`);
    }
  });

  test('a voice ElevenLabs refuses to make is refunded and not kept', async () => {
    const url = (await speak({ voice_id: 'Deep_Voice_Man', text: 'Another recording.', output_format: 'mp3' })).body
      .audio_url;
    const before = await balanceOf(server, team.key);
    const voices = (await call<unknown[]>(server, 'GET', '/api/v1/voices', { token: team.key })).body.length;
    const refused = await call(server, 'POST', '/api/v1/voices/generate', {
      token: team.key,
      body: { method: 'clone', audio_url: url, name: 'Broke [el:quota]' },
    });
    assert.equal(refused.status, 500, refused.text);
    assert.equal(await balanceOf(server, team.key), before);
    assert.equal((await call<unknown[]>(server, 'GET', '/api/v1/voices', { token: team.key })).body.length, voices);
  });
});
