// The simulator's speech synthesis: real, intelligible speech from eSpeak (measured here by
// proxies: voiced energy in proportion to the text, pitch that follows the voice, duration
// that follows the speed), script tags, every output format, designed and cloned voices.
// Standalone (no database): node --test test/simulator-speech.test.ts

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  PRESET_VOICES,
  TTS_CONTENT_TYPES,
  TTS_EMOTIONS,
  TTS_FORMATS,
  type VoiceProfile,
} from '../src/catalog/voices.ts';
import { WorkError } from '../src/lib/errors.ts';
import { decodeAudio } from '../src/render/audio.ts';
import {
  analyzeSpeech,
  parseScript,
  SPEECH_SAMPLE_RATE,
  synthesizeSpeech,
  voiceFromDescription,
  voiceFromSample,
} from '../src/render/speech.ts';

const SENTENCE = 'The meeting starts at nine tomorrow morning in the main hall.';
const DEEP: VoiceProfile = { voice: 'en-us+m3', pitch: 10, rate: 170 };
const HIGH: VoiceProfile = { voice: 'en-us+f5', pitch: 80, rate: 170 };

function preset(id: string): VoiceProfile {
  const found = PRESET_VOICES.find((p) => p.id === id);
  assert.ok(found, id);
  return found.profile;
}

/** Mono samples of a 16-bit mono WAV produced by synthesizeSpeech. */
function wavSamples(wav: Buffer): Float32Array {
  assert.equal(wav.toString('latin1', 0, 4), 'RIFF');
  assert.equal(wav.toString('latin1', 8, 12), 'WAVE');
  assert.equal(wav.readUInt16LE(22), 1, 'mono');
  assert.equal(wav.readUInt32LE(24), SPEECH_SAMPLE_RATE);
  assert.equal(wav.readUInt16LE(34), 16, '16-bit');
  const bytes = wav.readUInt32LE(40);
  assert.equal(bytes, wav.length - 44);
  const out = new Float32Array(bytes / 2);
  for (let i = 0; i < out.length; i++) out[i] = wav.readInt16LE(44 + i * 2) / 32768;
  return out;
}

async function analyse(text: string, profile: VoiceProfile, opts: Parameters<typeof synthesizeSpeech>[2] = {}) {
  const out = await synthesizeSpeech(text, profile, { ...opts, format: 'wav' });
  return { out, analysis: analyzeSpeech(wavSamples(out.data), SPEECH_SAMPLE_RATE) };
}

/** A 16 kHz mono WAV of `samples`. */
function wavOf(samples: Float32Array, rate = 16000): Buffer {
  const pcm = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => {
    pcm.writeInt16LE(Math.round(Math.max(-1, Math.min(1, s)) * 32767), i * 2);
  });
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + pcm.length, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([h, pcm]);
}

describe('simulator speech', () => {
  test('preset catalogue: 8 built-in and 6 premium voices, each of which speaks', async () => {
    assert.equal(PRESET_VOICES.filter((p) => p.tier === 'builtin').length, 8);
    assert.equal(PRESET_VOICES.filter((p) => p.tier === 'premium').length, 6);
    assert.equal(new Set(PRESET_VOICES.map((p) => p.id)).size, PRESET_VOICES.length);
    for (const p of PRESET_VOICES) {
      const out = await synthesizeSpeech('Hello.', p.profile, { format: 'pcm' });
      assert.ok(out.durationSeconds > 0.2 && out.durationSeconds < 2, `${p.id}: ${out.durationSeconds} s`);
    }
  });

  test('voiced speech in proportion to the text', async () => {
    const short = await analyse('Good morning, everyone.', preset('Casual_Guy'));
    const long = await analyse(
      'Good morning, everyone. Today we will look at the quarterly results, the new product line, and our plans for next year.',
      preset('Casual_Guy'),
    );
    for (const { out, analysis } of [short, long]) {
      assert.ok(analysis.activeSeconds > out.durationSeconds * 0.5, 'mostly speech, not silence');
      assert.ok(analysis.voicedSeconds > analysis.activeSeconds * 0.4, 'periodic (voiced) sound, not noise');
      assert.ok(analysis.syllableRate > 2 && analysis.syllableRate < 10, `${analysis.syllableRate} syllables/s`);
    }
    const ratio = long.analysis.activeSeconds / short.analysis.activeSeconds;
    assert.ok(ratio > 3 && ratio < 8, `5.6x the words gives ${ratio.toFixed(2)}x the speech`);
  });

  test('a high voice measures a higher pitch than a deep one', async () => {
    const deep = await analyse(SENTENCE, DEEP);
    const high = await analyse(SENTENCE, HIGH);
    assert.ok(deep.analysis.f0 > 60 && deep.analysis.f0 < 140, `deep ${deep.analysis.f0} Hz`);
    assert.ok(high.analysis.f0 > 180 && high.analysis.f0 < 400, `high ${high.analysis.f0} Hz`);
    const low = await analyse(SENTENCE, { ...HIGH, pitch: 20 });
    assert.ok(low.analysis.f0 < high.analysis.f0 * 0.85, 'the pitch parameter moves F0 within a voice');
  });

  test('speed, volume and emotion', async () => {
    const slow = await synthesizeSpeech(SENTENCE, HIGH, { speed: 0.6, format: 'pcm' });
    const fast = await synthesizeSpeech(SENTENCE, HIGH, { speed: 1.5, format: 'pcm' });
    assert.ok(fast.durationSeconds < slow.durationSeconds * 0.6, `${fast.durationSeconds} vs ${slow.durationSeconds}`);

    const quiet = await analyse(SENTENCE, HIGH, { volume: 0.5 });
    const loud = await analyse(SENTENCE, HIGH, { volume: 2 });
    assert.ok(loud.analysis.level > quiet.analysis.level * 3, 'volume 2 is ~4x volume 0.5');

    const sad = await analyse(SENTENCE, HIGH, { emotion: 'sad' });
    const excited = await analyse(SENTENCE, HIGH, { emotion: 'excited' });
    const angry = await analyse(SENTENCE, HIGH, { emotion: 'angry' });
    const neutral = await analyse(SENTENCE, HIGH, { emotion: 'neutral' });
    assert.ok(excited.out.durationSeconds < sad.out.durationSeconds * 0.8, 'excited is faster than sad');
    assert.ok(excited.analysis.f0 > sad.analysis.f0 * 1.1, 'excited is higher than sad');
    assert.ok(angry.analysis.level > neutral.analysis.level * 1.2, 'angry is louder');
    assert.equal(TTS_EMOTIONS.length, 9);
  });

  test('script tags: pauses and emotion switches; stage directions are not read', async () => {
    assert.deepEqual(parseScript('Hi. [pause:1.5s] [excited] Wow! <#0.5#> [calm] Breathe. [laughs] Done.'), [
      { kind: 'text', text: 'Hi.', emotion: 'neutral' },
      { kind: 'pause', seconds: 1.5 },
      { kind: 'text', text: 'Wow!', emotion: 'excited' },
      { kind: 'pause', seconds: 0.5 },
      { kind: 'text', text: 'Breathe.', emotion: 'calm' },
      { kind: 'text', text: 'Done.', emotion: 'calm' },
    ]);
    const plain = await synthesizeSpeech('Hello there. General greetings.', HIGH, { format: 'pcm' });
    const paused = await synthesizeSpeech('Hello there. [pause:2s] General greetings.', HIGH, { format: 'pcm' });
    const delta = paused.durationSeconds - plain.durationSeconds;
    assert.ok(delta > 1.8 && delta < 2.3, `a 2 s pause adds ${delta} s`);
    const directed = await synthesizeSpeech('Hello there. [laughs] General greetings.', HIGH, { format: 'pcm' });
    assert.ok(Math.abs(directed.durationSeconds - plain.durationSeconds) < 0.3, '[laughs] is not spoken');
    const tagged = await synthesizeSpeech('[sad] Hello there. General greetings.', HIGH, { format: 'pcm' });
    const sad = await synthesizeSpeech('Hello there. General greetings.', HIGH, { emotion: 'sad', format: 'pcm' });
    assert.ok(tagged.data.equals(sad.data), 'a leading [sad] tag equals emotion: sad');

    // Pauses alone are silence, not an error; no text at all is.
    const silence = await synthesizeSpeech('[pause:1s] [excited]', HIGH, { format: 'pcm' });
    assert.ok(Math.abs(silence.durationSeconds - 1) < 0.01);
    await assert.rejects(
      synthesizeSpeech('   [excited]  ', HIGH),
      (err: unknown) => err instanceof WorkError && !err.retryable,
    );
  });

  test('every format decodes to the same speech, deterministically', async () => {
    const text = 'Formats are checked one by one.';
    let duration = 0;
    for (const format of TTS_FORMATS) {
      const a = await synthesizeSpeech(text, preset('Inspirational_girl'), { format });
      if (format !== 'wav' && format !== 'pcm') {
        const b = await synthesizeSpeech(text, preset('Inspirational_girl'), { format });
        assert.ok(a.data.equals(b.data), `${format} is deterministic`);
      }
      assert.equal(a.contentType, TTS_CONTENT_TYPES[format]);
      assert.equal(a.extension, format);
      duration ||= a.durationSeconds;
      assert.equal(a.durationSeconds, duration);
      if (format === 'pcm') {
        assert.equal(a.data.length, Math.round(duration * SPEECH_SAMPLE_RATE) * 2);
        continue;
      }
      const decoded = (await decodeAudio(a.data, 16000)).samples;
      assert.ok(Math.abs(decoded.length / 16000 - duration) < 0.12, `${format}: ${decoded.length / 16000} s`);
      assert.ok(analyzeSpeech(decoded, 16000).voicedSeconds > 0.4, `${format} holds speech`);
    }
    const other = await synthesizeSpeech('Formats are checked two by two.', preset('Inspirational_girl'));
    assert.ok(!other.data.equals((await synthesizeSpeech(text, preset('Inspirational_girl'))).data));
  });

  test('languages: eSpeak voices where available, English otherwise', async () => {
    const text = 'Bonjour, je suis très content de vous voir aujourd’hui.';
    const en = await synthesizeSpeech(text, HIGH, { format: 'pcm' });
    const fr = await synthesizeSpeech(text, HIGH, { language: 'fr', format: 'pcm' });
    const ja = await synthesizeSpeech(text, HIGH, { language: 'ja', format: 'pcm' });
    assert.ok(!fr.data.equals(en.data), 'French is spoken with the French voice');
    assert.ok(ja.data.equals(en.data), 'an unavailable language falls back to English');
    const es = await synthesizeSpeech('¿Dónde está la estación?', HIGH, { language: 'es-MX', format: 'pcm' });
    assert.ok(es.durationSeconds > 0.5);
  });

  test('designed voices follow the description', () => {
    const deep = voiceFromDescription('A deep, slow, calm male narrator');
    const bright = voiceFromDescription('A bright, young, energetic girl');
    assert.ok(deep.pitch < bright.pitch - 30, `${deep.pitch} vs ${bright.pitch}`);
    assert.ok(deep.rate < bright.rate - 50, `${deep.rate} vs ${bright.rate}`);
    assert.match(deep.voice, /\+m\d$/);
    assert.match(bright.voice, /\+f\d$/);
    assert.match(voiceFromDescription('a whispering woman').voice, /\+whisperf$/);
    assert.match(voiceFromDescription('an old British gentleman').voice, /^en-rp\+m/);
    assert.match(voiceFromDescription('a French woman').voice, /^fr\+f/);
    assert.equal(voiceFromDescription('a warm storyteller').timbre, 'warm');
    assert.deepEqual(voiceFromDescription('a wizard'), voiceFromDescription('a wizard'));
    const seeds = new Set(['a', 'b', 'c', 'd'].map((s) => JSON.stringify(voiceFromDescription('a wizard', s))));
    assert.ok(seeds.size >= 3, 'the seed varies unknown descriptions');
  });

  test('cloned voices measure the sample; bad samples fail, not retryably', async () => {
    const deepSample = (await synthesizeSpeech(SENTENCE, DEEP, { format: 'mp3' })).data;
    const highSample = (await synthesizeSpeech(SENTENCE, HIGH, { format: 'mp3' })).data;
    const fastSample = (await synthesizeSpeech(`${SENTENCE} ${SENTENCE}`, { ...DEEP, rate: 260 }, { format: 'wav' }))
      .data;
    const slowSample = (await synthesizeSpeech(`${SENTENCE} ${SENTENCE}`, { ...DEEP, rate: 120 }, { format: 'wav' }))
      .data;
    const deep = await voiceFromSample(deepSample);
    const high = await voiceFromSample(highSample);
    assert.match(deep.voice, /\+m\d$/);
    assert.match(high.voice, /\+f\d$/);
    const deepF0 = (await analyse(SENTENCE, deep)).analysis.f0;
    const highF0 = (await analyse(SENTENCE, high)).analysis.f0;
    assert.ok(highF0 > deepF0 * 1.6, `the clones keep the pitch gap (${deepF0} vs ${highF0} Hz)`);
    const fast = await voiceFromSample(fastSample);
    const slow = await voiceFromSample(slowSample);
    assert.ok(fast.rate > slow.rate * 1.4, `the clones keep the rate gap (${slow.rate} vs ${fast.rate} wpm)`);

    const notRetryable = (err: unknown): boolean => err instanceof WorkError && !err.retryable;
    await assert.rejects(voiceFromSample(Buffer.from('definitely not audio')), notRetryable);
    await assert.rejects(voiceFromSample(Buffer.alloc(0)), notRetryable);
    await assert.rejects(voiceFromSample(wavOf(new Float32Array(32000))), notRetryable);
    let seed = 1;
    const noise = Float32Array.from({ length: 32000 }, () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return (seed / 2147483648 - 0.5) * 0.6;
    });
    await assert.rejects(voiceFromSample(wavOf(noise)), notRetryable);
  });
});
