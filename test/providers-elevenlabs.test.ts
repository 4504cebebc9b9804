// The ElevenLabs adapter against a fake ElevenLabs API (test/fakes/elevenlabs.ts) built from its
// public shapes: how a speech request becomes a TTS call, the audio it answers, every error class,
// instant voice cloning, voice design and saving, and the key check.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { probeMedia } from '../src/lib/ffmpeg.ts';
import { wavFromPcm } from '../src/lib/wav.ts';
import {
  checkElevenLabs,
  type ElevenLabsSettings,
  ttsInput,
  voiceSettingsFor,
} from '../src/providers/elevenlabs/client.ts';
import { createElevenLabsProvider, ELEVENLABS_MAPPINGS } from '../src/providers/elevenlabs/provider.ts';
import { cloneVoice, designVoice, saveDesignedVoice, voiceInput } from '../src/providers/elevenlabs/voices.ts';
import type { Provider, ProviderOutput, SpeechRequest, SubmitResult } from '../src/providers/types.ts';
import { type FakeElevenLabs, startFakeElevenLabs, tonePcm } from './fakes/elevenlabs.ts';
import { failure } from './provider-helpers.ts';

const MODEL = 'eleven_multilingual_v2';
const VOICE = 'JBFqnCBsd6RMkjVDRZzb';

function doneOutput(result: SubmitResult): ProviderOutput {
  assert.equal(result.kind, 'done', JSON.stringify(result));
  return (result as Extract<SubmitResult, { kind: 'done' }>).output;
}

function inline(output: ProviderOutput): { data: Buffer; contentType: string } {
  assert.equal(output.files.length, 1);
  const file = output.files[0];
  assert.ok(file && 'data' in file, 'the answer is an inline file');
  return file;
}

/** A 16-bit mono WAV of half a second of tone. */
function toneWav(rate: number): Buffer {
  return wavFromPcm(tonePcm(rate), rate);
}

const speech = (fields: Partial<SpeechRequest> = {}): SpeechRequest => ({
  kind: 'speech',
  text: 'The quick brown fox jumps over the lazy dog.',
  voices: { elevenlabs: VOICE, fal: 'Wise_Woman' },
  format: 'mp3',
  speed: 1,
  language: 'en',
  emotion: 'neutral',
  seed: null,
  ...fields,
});

describe('the ElevenLabs TTS input', () => {
  test('carries the voice, the output format and the body with its voice settings', () => {
    assert.deepEqual(ttsInput(speech({ seed: 42, language: 'fr', speed: 1.1 })), {
      voice_id: VOICE,
      output_format: 'mp3_44100_128',
      body: {
        text: 'The quick brown fox jumps over the lazy dog.',
        language_code: 'fr',
        voice_settings: { stability: 0.5, similarity_boost: 0.75, style: 0, speed: 1.1 },
        seed: 42,
      },
    });
    assert.equal('seed' in ttsInput(speech()).body, false, 'no seed is sent without one');
    // WAV is made from 22 050 Hz PCM (ElevenLabs' own WAV needs its Pro tier); what it does not make comes as MP3.
    assert.equal(ttsInput(speech({ format: 'wav' })).output_format, 'pcm_22050');
    assert.equal(ttsInput(speech({ format: 'pcm' })).output_format, 'pcm_22050');
    for (const format of ['ogg', 'flac', 'aac']) {
      assert.equal(ttsInput(speech({ format })).output_format, 'mp3_44100_128', format);
    }
  });

  test('speaks speeds beyond 0.7-1.2 at the nearest it has; refuses no voice, no speed and bad seeds', async () => {
    const speedOf = (speed: number) => ttsInput(speech({ speed })).body.voice_settings.speed;
    assert.deepEqual([0.5, 0.6, 0.7, 1, 1.2, 1.5, 2].map(speedOf), [0.7, 0.7, 0.7, 1, 1.2, 1.2, 1.2]);
    for (const speed of [0, -1, Number.NaN]) {
      assert.equal((await failure(() => ttsInput(speech({ speed })))).kind, 'invalid_input');
    }
    assert.equal((await failure(() => ttsInput(speech({ voices: { fal: 'Wise_Woman' } })))).kind, 'invalid_input');
    assert.equal((await failure(() => ttsInput(speech({ seed: -1 })))).kind, 'invalid_input');
    assert.equal((await failure(() => ttsInput(speech({ seed: 1.5 })))).kind, 'invalid_input');
    assert.equal((await failure(() => ttsInput(speech({ text: '  ' })))).kind, 'invalid_input');
  });

  test('maps emotions onto stability and style: calm steadier, aroused emotions freer and more styled', () => {
    const neutral = voiceSettingsFor('neutral', 1);
    const calm = voiceSettingsFor('calm', 1);
    assert.ok(calm.stability > neutral.stability);
    assert.equal(calm.style, 0);
    for (const emotion of ['angry', 'excited', 'surprised', 'fearful']) {
      const settings = voiceSettingsFor(emotion, 1);
      assert.ok(settings.stability < neutral.stability, emotion);
      assert.ok(settings.style >= 0.5, emotion);
    }
    for (const emotion of ['happy', 'sad', 'disgusted']) {
      const settings = voiceSettingsFor(emotion, 1);
      assert.ok(settings.stability < neutral.stability && settings.style > 0, emotion);
    }
    // Aliases speak as their emotion; unknown names speak neutral; everything stays in 0..1.
    assert.deepEqual(voiceSettingsFor('enthusiastic', 1), voiceSettingsFor('excited', 1));
    assert.deepEqual(voiceSettingsFor('whatever', 0.9), { ...neutral, speed: 0.9 });
    assert.deepEqual(ttsInput(speech({ emotion: 'angry' })).body.voice_settings, voiceSettingsFor('angry', 1));
  });
});

describe('the ElevenLabs adapter on a fake API', () => {
  let fake: FakeElevenLabs;
  let settings: ElevenLabsSettings;
  let provider: Provider;

  before(async () => {
    fake = await startFakeElevenLabs();
    settings = { apiKey: fake.apiKey, baseUrl: fake.url, fetch };
    provider = createElevenLabsProvider(settings);
  });
  after(async () => {
    await fake.close();
  });

  const say = (fields: Partial<SpeechRequest> = {}, target: Provider = provider) =>
    target.submit({ endpoint: MODEL, input: ttsInput(speech(fields)), idempotencyKey: 'item_1-attempt_1' });

  test('posts the text to /v1/text-to-speech/{voice} with the format, the key and the model id', async () => {
    await say({ emotion: 'happy', seed: 7 });
    const call = fake.calls.at(-1);
    assert.equal(call?.method, 'POST');
    assert.equal(call?.path, `/v1/text-to-speech/${VOICE}`);
    assert.deepEqual(call?.query, { output_format: 'mp3_44100_128' });
    assert.equal(call?.headers['xi-api-key'], fake.apiKey);
    assert.equal(call?.headers['content-type'], 'application/json');
    assert.deepEqual(call?.body, {
      text: 'The quick brown fox jumps over the lazy dog.',
      language_code: 'en',
      voice_settings: voiceSettingsFor('happy', 1),
      seed: 7,
      model_id: MODEL,
    });
    assert.equal(provider.id, 'elevenlabs');
    assert.equal(provider.idempotentSubmit, false);
  });

  test('the cost is the characters ElevenLabs counted at the plan rate; unknown without a rate', async () => {
    assert.equal(doneOutput(await say()).vendorCost, undefined, 'no plan rate: the cost is unknown, not 0');
    const priced = createElevenLabsProvider({ ...settings, usdPer1kChars: 0.3 });
    const output = doneOutput(await say({}, priced));
    // The fake answers `x-character-count` with the text's length, as ElevenLabs counts it.
    assert.equal(output.metadata.character_count, speech().text.length);
    assert.ok(Math.abs((output.vendorCost ?? Number.NaN) - (speech().text.length * 0.3) / 1000) < 1e-12);
  });

  test('answers an MP3 that decodes, with the voice, character count and request id', async () => {
    const output = doneOutput(await say());
    const file = inline(output);
    assert.equal(file.contentType, 'audio/mpeg');
    assert.deepEqual(file.data, fake.mp3);
    const probe = await probeMedia(file.data);
    assert.equal(probe.format, 'mp3');
    assert.ok(probe.hasAudio && probe.durationSeconds > 0.9);
    assert.equal(output.metadata.voice_id, VOICE);
    assert.equal(output.metadata.model_id, MODEL);
    assert.equal(output.metadata.character_count, speech().text.length);
    assert.match(String(output.metadata.request_id), /^req_/);
  });

  test('asks 22 050 Hz PCM for a WAV (the service adds the header), and wraps raw bytes served for a wav_ format', async () => {
    const pcm = inline(doneOutput(await say({ format: 'wav' })));
    assert.equal(fake.calls.at(-1)?.query.output_format, 'pcm_22050');
    assert.equal(pcm.contentType, 'audio/pcm');
    assert.deepEqual(pcm.data, tonePcm(22050));
    // An input recorded with ElevenLabs' own WAV format (wav_44100) is still read as a WAV.
    for (const text of ['Say it as a wave.', 'Say it raw. [el:raw-wav]']) {
      const input = { ...ttsInput(speech({ text })), output_format: 'wav_44100' };
      const file = inline(doneOutput(await provider.submit({ endpoint: MODEL, input, idempotencyKey: 'item_2-a' })));
      assert.equal(fake.calls.at(-1)?.query.output_format, 'wav_44100');
      assert.equal(file.contentType, 'audio/wav');
      assert.equal(file.data.toString('ascii', 0, 4), 'RIFF');
      assert.equal(file.data.toString('ascii', 8, 12), 'WAVE');
      assert.equal(file.data.readUInt32LE(24), 44100);
      assert.equal(file.data.length, 44 + tonePcm(44100).length);
      const probe = await probeMedia(file.data);
      assert.equal(probe.audioCodec, 'pcm_s16le');
      assert.equal(probe.sampleRate, 44100);
    }
  });

  test('says the speed it spoke at, so the service can make up the rest', async () => {
    assert.equal(doneOutput(await say({ speed: 1.5 })).metadata.speed, 1.2);
    assert.equal(doneOutput(await say({ speed: 0.9 })).metadata.speed, 0.9);
  });

  test('answers raw PCM at 22 050 Hz for pcm', async () => {
    const file = inline(doneOutput(await say({ format: 'pcm' })));
    assert.equal(fake.calls.at(-1)?.query.output_format, 'pcm_22050');
    assert.equal(file.contentType, 'audio/pcm');
    assert.deepEqual(file.data, tonePcm(22050));
  });

  test('reads each ElevenLabs error into its class', async () => {
    const cases: Array<[string, string, boolean, string]> = [
      ['[el:quota]', 'quota', false, '401 quota_exceeded'],
      ['[el:invalid-key]', 'auth', false, '401 invalid_api_key'],
      ['[el:voice-not-found]', 'invalid_input', false, '404 voice_not_found'],
      ['[el:too-long]', 'invalid_input', false, '400 max_character_limit_exceeded'],
      ['[el:429]', 'rate_limited', true, '429 too_many_concurrent_requests'],
      ['[el:busy]', 'rate_limited', true, '429 system_busy'],
      ['[el:422]', 'invalid_input', false, '422'],
      ['[el:500]', 'unavailable', true, '500'],
    ];
    for (const [tag, kind, retryable, vendorCode] of cases) {
      const err = await failure(() => say({ text: `Hello ${tag}` }));
      assert.equal(err.kind, kind, tag);
      assert.equal(err.retryable, retryable, tag);
      assert.equal(err.vendorCode, vendorCode, tag);
    }
    const limited = await failure(() => say({ text: 'Hello [el:429]' }));
    assert.equal(limited.retryAfterMs, 2000);
    assert.equal(limited.failover, true);
    const gone = await failure(() => say({ text: 'Hello [el:voice-not-found]' }));
    assert.equal(gone.failover, false, 'no other vendor speaks an ElevenLabs voice');
    assert.match(gone.message, /was not found/);
    const quota = await failure(() => say({ text: 'Hello [el:quota]' }));
    assert.match(quota.message, /0 credits remaining/);
    const validation = await failure(() => say({ text: 'Hello [el:422]' }));
    assert.match(validation.message, /voice_settings\.speed: Input should be less than or equal to 1\.2/);
  });

  test('a wrong key is refused as auth; a server that cannot be reached is unavailable and retryable', async () => {
    const wrong = createElevenLabsProvider({ ...settings, apiKey: 'xi-wrong' });
    const auth = await failure(() => say({}, wrong));
    assert.equal(auth.kind, 'auth');
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise((r) => probe.close(r));
    const down = createElevenLabsProvider({ ...settings, baseUrl: `http://127.0.0.1:${port}` });
    const err = await failure(() => say({}, down));
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);
    assert.equal(err.maybeAccepted, false, 'a refused connection never reached ElevenLabs');
  });

  test('has nothing to poll', async () => {
    const result = await provider.poll({ id: 'x' });
    assert.equal(result.kind, 'failed');
    assert.ok(result.kind === 'failed' && result.error.kind === 'internal' && !result.error.retryable);
  });

  test('clones a voice from a WAV and from an MP3: the fields and bytes arrive as sent', async () => {
    const wav = toneWav(16000);
    const fromWav = await cloneVoice(settings, {
      name: 'Narrator',
      description: 'A calm narrator',
      removeBackgroundNoise: true,
      files: [{ data: wav, fileName: 'take-1.wav', contentType: 'audio/wav' }],
    });
    assert.match(fromWav.voiceId, /^clone_/);
    assert.equal(fromWav.requiresVerification, false);
    const first = fake.clones.at(-1);
    assert.equal(fake.calls.at(-1)?.path, '/v1/voices/add');
    assert.equal(fake.calls.at(-1)?.headers['xi-api-key'], fake.apiKey);
    assert.match(String(fake.calls.at(-1)?.headers['content-type']), /^multipart\/form-data; boundary=/);
    assert.deepEqual(first?.fields, {
      name: 'Narrator',
      description: 'A calm narrator',
      remove_background_noise: 'true',
    });
    assert.equal(first?.files.length, 1);
    assert.equal(first?.files[0]?.fileName, 'take-1.wav');
    assert.equal(first?.files[0]?.contentType, 'audio/wav');
    assert.deepEqual(first?.files[0]?.data, wav);

    const fromMp3 = await cloneVoice(settings, {
      name: 'Host',
      files: [
        { data: fake.mp3, fileName: 'a.mp3', contentType: 'audio/mpeg' },
        { data: wav, fileName: 'b.wav', contentType: 'audio/wav' },
      ],
    });
    assert.notEqual(fromMp3.voiceId, fromWav.voiceId);
    const second = fake.clones.at(-1);
    assert.deepEqual(second?.fields, { name: 'Host' });
    assert.deepEqual(
      second?.files.map((f) => [f.fileName, f.contentType]),
      [
        ['a.mp3', 'audio/mpeg'],
        ['b.wav', 'audio/wav'],
      ],
    );
    assert.deepEqual(second?.files[0]?.data, fake.mp3);
    assert.deepEqual(second?.files[1]?.data, wav);
  });

  test('refuses a clone without recordings or name locally, and reads a clone’s errors', async () => {
    const calls = fake.calls.length;
    assert.equal((await failure(() => cloneVoice(settings, { name: 'x', files: [] }))).kind, 'invalid_input');
    const file = { data: fake.mp3, fileName: 'a.mp3', contentType: 'audio/mpeg' };
    assert.equal((await failure(() => cloneVoice(settings, { name: ' ', files: [file] }))).kind, 'invalid_input');
    assert.equal(fake.calls.length, calls, 'nothing was sent');
    assert.equal((await failure(() => cloneVoice(settings, { name: 'x [el:quota]', files: [file] }))).kind, 'quota');
    assert.equal(
      (await failure(() => cloneVoice(settings, { name: 'x [el:500]', files: [file] }))).kind,
      'unavailable',
    );
  });

  test('designs a voice (two MP3 previews that decode) and saves one of them', async () => {
    const description = 'A warm, elderly storyteller with a slight Scottish accent.';
    const designed = await designVoice(settings, { description, seed: 11 });
    const call = fake.calls.at(-1);
    assert.equal(call?.path, '/v1/text-to-voice/design');
    assert.deepEqual(call?.query, { output_format: 'mp3_44100_128' });
    assert.deepEqual(call?.body, { voice_description: description, auto_generate_text: true, seed: 11 });
    assert.equal(designed.previews.length, 2);
    for (const preview of designed.previews) {
      assert.match(preview.generatedVoiceId, /^gen_/);
      assert.equal(preview.mediaType, 'audio/mpeg');
      assert.equal(preview.durationSeconds, 1.03);
      assert.deepEqual(preview.audio, fake.mp3);
      assert.equal((await probeMedia(preview.audio)).format, 'mp3');
    }
    const text =
      'Once upon a time, in a village by the sea, there lived an old fisherman who told the very finest tales.';
    await designVoice(settings, { description, text });
    assert.deepEqual(fake.calls.at(-1)?.body, { voice_description: description, text });

    const chosen = designed.previews[1]?.generatedVoiceId ?? '';
    const saved = await saveDesignedVoice(settings, { name: 'Storyteller', description, generatedVoiceId: chosen });
    assert.match(saved.voiceId, /^designed_/);
    assert.equal(fake.calls.at(-1)?.path, '/v1/text-to-voice');
    assert.deepEqual(fake.calls.at(-1)?.body, {
      voice_name: 'Storyteller',
      voice_description: description,
      generated_voice_id: chosen,
    });
  });

  test('refuses descriptions and texts of the wrong length locally, and reads design errors', async () => {
    const calls = fake.calls.length;
    const long = 'x'.repeat(1001);
    for (const call of [
      () => designVoice(settings, { description: 'too short' }),
      () => designVoice(settings, { description: long }),
      () => designVoice(settings, { description: 'A perfectly fine voice description.', text: 'too short' }),
      () => designVoice(settings, { description: 'A perfectly fine voice description.', text: long }),
      () => saveDesignedVoice(settings, { name: 'n', description: 'short', generatedVoiceId: 'g' }),
    ]) {
      const err = await failure(call);
      assert.equal(err.kind, 'invalid_input');
      assert.match(err.message, /characters/);
    }
    assert.equal(fake.calls.length, calls, 'nothing was sent');
    const err = await failure(() => designVoice(settings, { description: 'A very busy voice description [el:429]' }));
    assert.equal(err.kind, 'rate_limited');
    const saveErr = await failure(() =>
      saveDesignedVoice(settings, {
        name: 'x [el:invalid-key]',
        description: 'A perfectly fine voice description.',
        generatedVoiceId: 'g',
      }),
    );
    assert.equal(saveErr.kind, 'auth');
  });

  test('a voice request is mapped to a clone or a design input; a short description is completed', async () => {
    const base = { kind: 'voice' as const, name: 'Narrator', description: null, sampleUrl: null };
    assert.deepEqual(voiceInput({ ...base, method: 'clone', sampleUrl: 'https://example.com/a.wav' }), {
      name: 'Narrator',
      description: '',
      sample_url: 'https://example.com/a.wav',
    });
    const short = voiceInput({ ...base, method: 'design', description: 'deep and gravelly' });
    assert.equal(short.description, 'deep and gravelly: a clear, natural speaking voice');
    assert.ok(short.description.length >= 20);
    const long = voiceInput({ ...base, method: 'design', description: `${'word '.repeat(400)}end` });
    assert.ok(long.description.length <= 1000 && long.description.endsWith('word'), long.description.slice(-20));
    assert.equal((await failure(() => voiceInput({ ...base, method: 'clone' }))).kind, 'invalid_input');
    assert.equal(
      (await failure(() => voiceInput({ ...base, method: 'design', description: ' ' }))).kind,
      'invalid_input',
    );
    const clone = ELEVENLABS_MAPPINGS.clone;
    assert.ok(clone);
    assert.equal((await failure(() => clone(speech()))).kind, 'internal', 'a speech request is not a voice');
  });

  test('the provider clones from the fetched recording and designs then saves: the voice and its preview', async () => {
    const wav = toneWav(16000);
    const fetched: string[] = [];
    const voices = createElevenLabsProvider({
      ...settings,
      fetchSample: async (url) => {
        fetched.push(url);
        return { data: wav, contentType: 'audio/wav' };
      },
    });
    const cloned = doneOutput(
      await voices.submit({
        endpoint: 'voices/add',
        input: { name: 'Narrator', description: '', sample_url: 'https://example.com/take.wav' },
        idempotencyKey: 'item_3-a',
      }),
    );
    assert.deepEqual(fetched, ['https://example.com/take.wav']);
    assert.deepEqual(fake.clones.at(-1)?.files[0]?.data, wav);
    assert.equal(fake.clones.at(-1)?.files[0]?.fileName, 'sample.wav');
    assert.deepEqual(fake.clones.at(-1)?.fields, { name: 'Narrator' });
    const cloneVoiceId = (cloned.metadata.vendor_voice as { voice_id: string }).voice_id;
    assert.match(cloneVoiceId, /^clone_/);
    assert.equal((cloned.metadata.vendor_voice as { provider: string }).provider, 'elevenlabs');
    assert.deepEqual(inline(cloned).data, wav, 'the recording is the preview');

    const description = 'A warm, elderly storyteller with a slight Scottish accent.';
    const designed = doneOutput(
      await voices.submit({
        endpoint: 'text-to-voice',
        input: { name: 'Teller', description, sample_url: null },
        idempotencyKey: 'item_4-a',
      }),
    );
    const paths = fake.calls.slice(-2).map((c) => c.path);
    assert.deepEqual(paths, ['/v1/text-to-voice/design', '/v1/text-to-voice']);
    assert.equal(fake.calls.at(-1)?.body?.generated_voice_id, designed.metadata.generated_voice_id);
    assert.match(String((designed.metadata.vendor_voice as { voice_id: string }).voice_id), /^designed_/);
    assert.deepEqual(inline(designed).data, fake.mp3);
    assert.equal(inline(designed).contentType, 'audio/mpeg');

    const noFetcher = await failure(() =>
      provider.submit({
        endpoint: 'voices/add',
        input: { name: 'n', description: '', sample_url: 'https://x/a.wav' },
        idempotencyKey: 'k',
      }),
    );
    assert.equal(noFetcher.kind, 'internal');
  });

  test('checks the key with GET /v1/user', async () => {
    assert.deepEqual(await checkElevenLabs(settings), {
      reachable: true,
      detail: 'ElevenLabs answered with our credentials',
    });
    assert.equal(fake.calls.at(-1)?.method, 'GET');
    assert.equal(fake.calls.at(-1)?.path, '/v1/user');
    assert.equal(fake.calls.at(-1)?.headers['xi-api-key'], fake.apiKey);
    const wrong = await checkElevenLabs({ ...settings, apiKey: 'xi-wrong' });
    assert.equal(wrong.reachable, false);
    assert.match(wrong.detail, /refused our credentials/);
    assert.equal((await checkElevenLabs({ ...settings, apiKey: '' })).reachable, null);
    assert.equal((await provider.check?.())?.reachable, true);
  });
});
