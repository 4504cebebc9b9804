// ElevenLabs text to speech: one synchronous call per item (`POST /v1/text-to-speech/{voice_id}`),
// answered with the audio bytes themselves, returned as one inline file. Its errors carry their own
// code in `detail.status` (a spent quota comes back as a 401, like a bad key), read before the
// common status mapping.
import { TTS_CONTENT_TYPES, ttsEmotion } from '../../catalog/voices.ts';
import { asRecord, parseObject } from '../../lib/records.ts';
import { wavFromPcm } from '../../lib/wav.ts';
import { checkByGet, noAnswerError, retryAfterMs, statusError } from '../http.ts';
import {
  type Fetch,
  type ProviderCheck,
  ProviderError,
  type SpeechRequest,
  type SubmitRequest,
  type SubmitResult,
} from '../types.ts';

/** ElevenLabs' API, the default base URL. */
export const ELEVENLABS_BASE_URL = 'https://api.elevenlabs.io';

export interface ElevenLabsSettings {
  apiKey: string;
  /** Default ElevenLabs' own API. */
  baseUrl?: string;
  fetch: Fetch;
  /** Fetches a recording to clone under the service's outbound policy: its bytes and audio type. */
  fetchSample?: (url: string) => Promise<{ data: Buffer; contentType: string }>;
  /** The plan's US dollars per 1,000 characters: a speech's cost is its `x-character-count` at it. */
  usdPer1kChars?: number;
}

/** The voice settings of one call (ElevenLabs' `voice_settings`). */
export type ElevenLabsVoiceSettings = {
  stability: number;
  similarity_boost: number;
  style: number;
  speed: number;
};

/** What a TTS item's input holds: the path and query parts, and the JSON body (the model id is the endpoint). */
export type ElevenLabsTtsInput = {
  voice_id: string;
  output_format: string;
  body: {
    text: string;
    model_id?: string;
    language_code: string;
    voice_settings: ElevenLabsVoiceSettings;
    seed?: number;
  };
};

const VENDOR = 'ElevenLabs';
const MAX_SAID = 500;
export const MIN_SPEED = 0.7;
export const MAX_SPEED = 1.2;
const MAX_SEED = 4_294_967_295;

/**
 * Our output format → ElevenLabs' `output_format`: MP3 as MP3; our `pcm` (raw s16le mono at 22 050
 * Hz) as `pcm_22050`, which WAV is made from too (ElevenLabs' own WAV and 44.1 kHz PCM need its Pro
 * tier). The formats it does not make (ogg, flac, aac) come as MP3, converted by the service.
 */
export const ELEVENLABS_OUTPUT_FORMATS: Readonly<Record<string, string>> = {
  mp3: 'mp3_44100_128',
  wav: 'pcm_22050',
  pcm: 'pcm_22050',
};
const FALLBACK_OUTPUT_FORMAT = 'mp3_44100_128';

/**
 * Each TTS emotion as voice settings. ElevenLabs has no emotion parameter: lower `stability` lets a
 * voice range further in delivery, higher `style` exaggerates the voice's own style. Calm is steadier
 * than neutral; the aroused emotions (angry, excited, surprised, fearful) are the least stable and
 * most styled; sad and disgusted sit between. `similarity_boost` stays at ElevenLabs' default.
 */
export const EMOTION_VOICE_SETTINGS: Readonly<Record<string, { stability: number; style: number }>> = {
  neutral: { stability: 0.5, style: 0 },
  calm: { stability: 0.75, style: 0 },
  happy: { stability: 0.4, style: 0.4 },
  sad: { stability: 0.45, style: 0.35 },
  angry: { stability: 0.25, style: 0.65 },
  fearful: { stability: 0.3, style: 0.5 },
  disgusted: { stability: 0.35, style: 0.45 },
  surprised: { stability: 0.3, style: 0.55 },
  excited: { stability: 0.25, style: 0.6 },
};
const SIMILARITY_BOOST = 0.75;

function refused(message: string): ProviderError {
  return new ProviderError(message, false, { kind: 'invalid_input' });
}

/** The API base a setting names (ElevenLabs' own when absent or blank), without trailing slashes or `/v1`. */
export function elevenLabsBase(settings: ElevenLabsSettings): string {
  return (settings.baseUrl?.trim() || ELEVENLABS_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** The headers of every call: the key, and JSON when the body is JSON. */
export function elevenLabsHeaders(settings: ElevenLabsSettings, json: boolean): Record<string, string> {
  return { 'xi-api-key': settings.apiKey, ...(json ? { 'content-type': 'application/json' } : {}) };
}

/** The voice settings an emotion and a speed mean (an unknown emotion speaks neutral). */
export function voiceSettingsFor(emotion: string, speed: number): ElevenLabsVoiceSettings {
  const { stability, style } = EMOTION_VOICE_SETTINGS[ttsEmotion(emotion)] ?? { stability: 0.5, style: 0 };
  return { stability, similarity_boost: SIMILARITY_BOOST, style, speed };
}

/**
 * A speech request as an ElevenLabs TTS input, in the voice `voices.elevenlabs`; refuses
 * (invalid_input) what ElevenLabs would refuse. A speed beyond its 0.7-1.2 is spoken at the nearest
 * it has (the service makes up the rest), a format it does not make comes as MP3.
 */
export function ttsInput(request: SpeechRequest): ElevenLabsTtsInput {
  const voiceId = request.voices.elevenlabs ?? '';
  if (request.text.trim() === '') throw refused('ElevenLabs needs some text to speak');
  if (voiceId.trim() === '') throw refused('ElevenLabs needs a voice id');
  if (!Number.isFinite(request.speed) || request.speed <= 0) {
    throw refused(`ElevenLabs needs a positive speed, not ${request.speed}`);
  }
  if (request.seed !== null && !(Number.isInteger(request.seed) && request.seed >= 0 && request.seed <= MAX_SEED)) {
    throw refused(`ElevenLabs takes a seed from 0 to ${MAX_SEED}, not ${request.seed}`);
  }
  return {
    voice_id: voiceId,
    output_format: ELEVENLABS_OUTPUT_FORMATS[request.format] ?? FALLBACK_OUTPUT_FORMAT,
    body: {
      text: request.text,
      language_code: request.language.toLowerCase(),
      voice_settings: voiceSettingsFor(request.emotion, Math.min(MAX_SPEED, Math.max(MIN_SPEED, request.speed))),
      ...(request.seed === null ? {} : { seed: request.seed }),
    },
  };
}

function capped(text: string): string {
  return text.length > MAX_SAID ? `${text.slice(0, MAX_SAID)}…` : text;
}

/**
 * What an error body says: `{detail: {status, message}}` (ElevenLabs' own errors), `{detail: [{loc,
 * msg, type}]}` (a 422 validation error), `{detail: '…'}`.
 */
function readDetail(bodyText: string): { code: string | undefined; said: string | undefined } {
  const body = parseObject(bodyText);
  const detail = body?.detail;
  const record = asRecord(detail);
  if (record) {
    const code =
      typeof record.status === 'string' ? record.status : typeof record.code === 'string' ? record.code : undefined;
    const message = typeof record.message === 'string' ? record.message.trim() : undefined;
    return { code, said: message ? capped(message) : undefined };
  }
  if (Array.isArray(detail)) {
    const parts = detail
      .map((item) => asRecord(item))
      .map((item) => {
        const where = Array.isArray(item?.loc) ? item.loc.filter((l) => l !== 'body').join('.') : '';
        const msg = typeof item?.msg === 'string' ? item.msg : '';
        return where ? `${where}: ${msg}` : msg;
      })
      .filter((part) => part !== '');
    return { code: undefined, said: parts.length > 0 ? capped(parts.join('; ')) : undefined };
  }
  if (typeof detail === 'string' && detail.trim() !== '') return { code: undefined, said: capped(detail.trim()) };
  const plain = body ? undefined : bodyText.trim();
  return { code: undefined, said: plain && !plain.startsWith('<') ? capped(plain) : undefined };
}

/**
 * The ProviderError of an ElevenLabs answer that is not a success. Its own codes first: a spent
 * quota (sent as 401), a refused key, a voice that is gone, a text too long for the model, too many
 * concurrent requests or a busy system (429, retried after its Retry-After); then the common mapping.
 */
export function elevenLabsError(status: number, headers: Headers, bodyText: string): ProviderError {
  const { code, said } = readDetail(bodyText);
  const vendorCode = code ? `${status} ${code}` : String(status);
  const where = (what: string) => `${VENDOR} ${what}${said ? `: ${said}` : ''} (HTTP ${status})`;
  switch (code) {
    case 'quota_exceeded':
      return new ProviderError(where('says the account has no credit left'), false, { kind: 'quota', vendorCode });
    case 'invalid_api_key':
    case 'missing_permissions':
      return new ProviderError(where('refused our credentials'), false, { kind: 'auth', vendorCode });
    case 'voice_not_found':
      // The voice was deleted at ElevenLabs: no retry and no other vendor can speak it.
      return new ProviderError(where('does not know the voice'), false, {
        kind: 'invalid_input',
        failover: false,
        vendorCode,
      });
    case 'max_character_limit_exceeded':
      return new ProviderError(where('refused a text too long for the model'), false, {
        kind: 'invalid_input',
        vendorCode,
      });
    case 'too_many_concurrent_requests':
    case 'system_busy':
      return new ProviderError(where('is rate limiting us'), true, {
        kind: 'rate_limited',
        retryAfterMs: retryAfterMs(headers.get('retry-after')),
        vendorCode,
      });
  }
  return statusError({ vendor: VENDOR, status, headers, said, vendorCode });
}

/** What one call answered: its status, headers and body bytes. */
export interface ElevenLabsAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/**
 * Sends one call to ElevenLabs and reads its whole answer; a failure status becomes its
 * ProviderError, no answer a retryable one.
 */
export async function callElevenLabs(
  settings: ElevenLabsSettings,
  path: string,
  init: { method: string; headers: Record<string, string>; body?: string | FormData; signal?: AbortSignal },
): Promise<ElevenLabsAnswer> {
  let response: Response;
  let body: Buffer;
  try {
    response = await settings.fetch(`${elevenLabsBase(settings)}${path}`, init);
    body = Buffer.from(await response.arrayBuffer());
  } catch (err) {
    throw noAnswerError(VENDOR, err, init.signal);
  }
  if (!response.ok) throw elevenLabsError(response.status, response.headers, body.toString('utf8'));
  return { status: response.status, headers: response.headers, body };
}

function isRiff(data: Buffer): boolean {
  return data.length >= 12 && data.toString('ascii', 0, 4) === 'RIFF' && data.toString('ascii', 8, 12) === 'WAVE';
}

/** The TTS input an item holds, checked: it was persisted as JSON and comes back as plain data. */
function readInput(input: Record<string, unknown>): {
  voiceId: string;
  outputFormat: string;
  body: Record<string, unknown>;
} {
  const body = asRecord(input.body);
  if (typeof input.voice_id !== 'string' || typeof input.output_format !== 'string' || !body) {
    throw new ProviderError('An ElevenLabs input needs voice_id, output_format and body', false, { kind: 'internal' });
  }
  return { voiceId: input.voice_id, outputFormat: input.output_format, body };
}

/** The speed the input's voice settings ask for, when they say. */
function spokenAt(body: Record<string, unknown>): number | null {
  const speed = asRecord(body.voice_settings)?.speed;
  return typeof speed === 'number' ? speed : null;
}

/** Our content type of an ElevenLabs output format (audio/mpeg, audio/wav, audio/pcm). */
function contentTypeOf(outputFormat: string): string {
  const codec = outputFormat.split('_')[0];
  if (codec === 'mp3') return TTS_CONTENT_TYPES.mp3;
  if (codec === 'wav') return TTS_CONTENT_TYPES.wav;
  if (codec === 'pcm') return TTS_CONTENT_TYPES.pcm;
  return 'application/octet-stream';
}

/**
 * One text-to-speech call (`POST /v1/text-to-speech/{voice_id}`, the route's endpoint the model id),
 * answered with the audio itself; metadata `speed` says what speed it was spoken at.
 */
export async function speak(settings: ElevenLabsSettings, request: SubmitRequest): Promise<SubmitResult> {
  const { voiceId, outputFormat, body } = readInput(request.input);
  const query = new URLSearchParams({ output_format: outputFormat });
  const answer = await callElevenLabs(settings, `/v1/text-to-speech/${encodeURIComponent(voiceId)}?${query}`, {
    method: 'POST',
    headers: { ...elevenLabsHeaders(settings, true), accept: 'audio/*' },
    body: JSON.stringify({ ...body, model_id: request.endpoint }),
    signal: request.signal,
  });
  if (answer.body.length === 0) {
    // The speech was made (and billed) but nothing came back: not sent again.
    throw new ProviderError(`${VENDOR} answered no audio (HTTP ${answer.status})`, true, {
      kind: 'unavailable',
      vendorCode: String(answer.status),
      maybeAccepted: true,
    });
  }
  const codec = outputFormat.split('_')[0];
  const sampleRate = Number(outputFormat.split('_')[1]);
  // A WAV asked for is given a header when the bytes came raw (a PCM format served under a wav name).
  const data = codec === 'wav' && !isRiff(answer.body) ? wavFromPcm(answer.body, sampleRate) : answer.body;
  const counted = Number(answer.headers.get('x-character-count'));
  const characters = answer.headers.has('x-character-count') && Number.isFinite(counted) ? counted : null;
  return {
    kind: 'done',
    output: {
      // What ElevenLabs counted against the plan, at the plan's rate (unknown without either).
      ...(characters !== null && settings.usdPer1kChars !== undefined
        ? { vendorCost: (characters * settings.usdPer1kChars) / 1000 }
        : {}),
      files: [{ data, contentType: contentTypeOf(outputFormat) }],
      metadata: {
        voice_id: voiceId,
        model_id: request.endpoint,
        output_format: outputFormat,
        speed: spokenAt(body),
        character_count: characters,
        request_id: answer.headers.get('request-id') ?? answer.headers.get('x-request-id'),
      },
    },
  };
}

/** Whether ElevenLabs answers our key on a call that costs nothing (`GET /v1/user`). */
export async function checkElevenLabs(settings: ElevenLabsSettings): Promise<ProviderCheck> {
  if (settings.apiKey.trim() === '') return { reachable: null, detail: 'No ElevenLabs API key is set' };
  return checkByGet(VENDOR, settings.fetch, `${elevenLabsBase(settings)}/v1/user`, elevenLabsHeaders(settings, false));
}
