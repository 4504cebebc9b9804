// Speech through the native endpoint (POST /api/v2/text-to-speech, synchronous): OpenAI's voices,
// models, formats and speeds as ours, and the audio the client asked for.
import type { Static } from 'typebox';
import type { TtsFormat } from '../../catalog/voices.ts';
import { convertAudio } from '../../lib/audio.ts';
import { AppError, invalidField } from '../../lib/errors.ts';
import { readOutput, runFfmpeg, tempInput, withTempDir } from '../../lib/ffmpeg.ts';
import type { TextToSpeechBody } from '../speech/service.ts';
import type { SpeechBody, SpeechFormat } from './schemas.ts';

/** Native speech request fields → OpenAI speech request fields, for the `param` of an error. */
export const SPEECH_PARAMS: Record<string, string> = {
  text: 'input',
  voice_id: 'voice',
  speed: 'speed',
  output_format: 'response_format',
};

/** The speech models the door answers to; every one is the service's one text-to-speech. */
export const SPEECH_MODELS = ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'tts-v2'] as const;

/**
 * OpenAI's voices as our presets, by what they sound like; any other voice (a preset id such as
 * `Wise_Woman`, or a voice of the team's) is passed on as it is.
 */
export const OPENAI_VOICES: Record<string, string> = {
  alloy: 'Wise_Woman',
  ash: 'Casual_Guy',
  ballad: 'Elegant_Man',
  coral: 'Inspirational_girl',
  echo: 'Decent_Boy',
  fable: 'Young_Knight',
  onyx: 'Deep_Voice_Man',
  nova: 'Lively_Girl',
  sage: 'Calm_Woman',
  shimmer: 'Lovely_Girl',
  verse: 'Determined_Man',
  marin: 'Abbess',
  cedar: 'Patient_Man',
};

/** The speeds the service speaks at (the native endpoint's range). */
const SPEED_RANGE = { min: 0.6, max: 1.5 };

/**
 * What the native endpoint makes for each OpenAI format: ours where we have it; opus and pcm are
 * made from WAV by the door (Ogg Opus, and OpenAI's raw 24 kHz 16-bit mono PCM).
 */
const NATIVE_FORMAT: Record<SpeechFormat, TtsFormat> = {
  mp3: 'mp3',
  aac: 'aac',
  flac: 'flac',
  wav: 'wav',
  ogg: 'ogg',
  opus: 'wav',
  pcm: 'wav',
};

export const SPEECH_CONTENT_TYPES: Record<SpeechFormat, string> = {
  mp3: 'audio/mpeg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  opus: 'audio/ogg; codecs=opus',
  pcm: 'audio/pcm',
};

/** OpenAI's pcm: raw signed 16-bit little-endian mono at 24 kHz. */
const OPENAI_PCM_RATE = 24_000;

/** The native body of an OpenAI speech request. */
export function nativeSpeechRequest(body: Static<typeof SpeechBody>): Static<typeof TextToSpeechBody> {
  if (!(SPEECH_MODELS as readonly string[]).includes(body.model)) {
    throw new AppError(
      'model_not_found',
      `Unknown speech model '${body.model}'. Known models: ${SPEECH_MODELS.join(', ')} (all the same voice engine)`,
      [{ field: 'model', message: 'is not a known speech model' }],
    );
  }
  if (body.stream_format === 'sse') throw invalidField('stream_format', "only 'audio' is supported");
  const speed = body.speed ?? undefined;
  if (speed !== undefined && (speed < SPEED_RANGE.min || speed > SPEED_RANGE.max)) {
    throw invalidField(
      'speed',
      `this service speaks at ${SPEED_RANGE.min}-${SPEED_RANGE.max}; ${speed} is outside that (OpenAI's 0.25-4.0 is wider)`,
    );
  }
  const voice = typeof body.voice === 'string' ? body.voice : body.voice.id;
  const format = body.response_format ?? 'mp3';
  return {
    voice_id: OPENAI_VOICES[voice.toLowerCase()] ?? voice,
    text: body.input,
    ...(speed !== undefined ? { speed } : {}),
    output_format: NATIVE_FORMAT[format],
  };
}

/** The audio in the OpenAI format asked for, from what the native endpoint made for it. */
export async function speechInFormat(audio: Buffer, format: SpeechFormat): Promise<Buffer> {
  if (format === 'pcm') {
    const pcm = await convertAudio(
      { data: audio, contentType: 'audio/wav' },
      { format: 'pcm', pcmRate: OPENAI_PCM_RATE, gain: 1, tempo: 1 },
    );
    return pcm.data;
  }
  if (format !== 'opus') return audio;
  return withTempDir(async (dir) => {
    const input = await tempInput(dir, 'speech.wav', audio);
    const output = `${dir}/speech.opus`;
    await runFfmpeg(
      ['-i', input, '-vn', '-ac', '1', '-ar', '48000', '-c:a', 'libopus', '-b:a', '64k', '-f', 'ogg', '-y', output],
      {
        what: 'opus encoding',
      },
    );
    return readOutput(output, 'opus encoding');
  });
}
