// ElevenLabs' own voices: an instant clone from recordings (`POST /v1/voices/add`, multipart), and a
// voice designed from a description (`POST /v1/text-to-voice/design`: previews to listen to), one of
// whose previews is then saved as a voice (`POST /v1/text-to-voice`). Errors read as TTS errors do.

import { WorkError } from '../../lib/errors.ts';
import { parseObject } from '../../lib/records.ts';
import { ProviderError, type SubmitRequest, type SubmitResult, type VoiceRequest } from '../types.ts';
import { callElevenLabs, type ElevenLabsSettings, elevenLabsHeaders } from './client.ts';

/** A recording of the voice to clone. */
export interface VoiceSample {
  data: Buffer;
  fileName: string;
  contentType: string;
}

export interface CloneVoiceRequest {
  name: string;
  files: VoiceSample[];
  description?: string;
  removeBackgroundNoise?: boolean;
  signal?: AbortSignal;
}

export interface DesignVoiceRequest {
  /** 20-1000 characters. */
  description: string;
  /** What the previews say, 100-1000 characters; absent: ElevenLabs writes a text for the description. */
  text?: string;
  seed?: number;
  signal?: AbortSignal;
}

/** One voice ElevenLabs designed: listen to it, then save it by its generated id. */
export interface VoicePreview {
  generatedVoiceId: string;
  audio: Buffer;
  mediaType: string;
  durationSeconds: number;
}

export interface SaveDesignedVoiceRequest {
  name: string;
  /** 20-1000 characters. */
  description: string;
  generatedVoiceId: string;
  signal?: AbortSignal;
}

const DESIGN_FORMAT = 'mp3_44100_128';
const DESCRIPTION_CHARS = { min: 20, max: 1000 };
const TEXT_CHARS = { min: 100, max: 1000 };

function refused(message: string): ProviderError {
  return new ProviderError(message, false, { kind: 'invalid_input' });
}

function within(what: string, value: string, limits: { min: number; max: number }): void {
  const length = value.trim().length;
  if (length < limits.min || length > limits.max) {
    throw refused(`ElevenLabs takes a ${what} of ${limits.min} to ${limits.max} characters, not ${length}`);
  }
}

/** An answer that is not the JSON ElevenLabs documents: the work may be done, so not sent again. */
function malformed(what: string): ProviderError {
  return new ProviderError(`ElevenLabs answered ${what} without the expected fields`, true, {
    kind: 'unavailable',
    maybeAccepted: true,
  });
}

/** Clones a voice from recordings (instant voice cloning): the new voice's id. */
export async function cloneVoice(
  settings: ElevenLabsSettings,
  request: CloneVoiceRequest,
): Promise<{ voiceId: string; requiresVerification: boolean }> {
  if (request.name.trim() === '') throw refused('A cloned voice needs a name');
  if (request.files.length === 0) throw refused('A cloned voice needs at least one recording');
  const form = new FormData();
  form.append('name', request.name);
  for (const file of request.files) {
    if (file.data.length === 0) throw refused(`The recording ${file.fileName} is empty`);
    form.append('files', new Blob([Uint8Array.from(file.data)], { type: file.contentType }), file.fileName);
  }
  if (request.description !== undefined) form.append('description', request.description);
  if (request.removeBackgroundNoise !== undefined) {
    form.append('remove_background_noise', String(request.removeBackgroundNoise));
  }
  const answer = await callElevenLabs(settings, '/v1/voices/add', {
    method: 'POST',
    // fetch writes the multipart content type with its boundary.
    headers: elevenLabsHeaders(settings, false),
    body: form,
    signal: request.signal,
  });
  const body = parseObject(answer.body.toString('utf8'));
  if (typeof body?.voice_id !== 'string') throw malformed('a clone');
  return { voiceId: body.voice_id, requiresVerification: body.requires_verification === true };
}

/** Designs voices from a description: previews (MP3) to choose one from. */
export async function designVoice(
  settings: ElevenLabsSettings,
  request: DesignVoiceRequest,
): Promise<{ previews: VoicePreview[]; text: string | null }> {
  within('voice description', request.description, DESCRIPTION_CHARS);
  if (request.text !== undefined) within('preview text', request.text, TEXT_CHARS);
  if (request.seed !== undefined && !(Number.isInteger(request.seed) && request.seed >= 0)) {
    throw refused(`ElevenLabs takes a whole, non-negative seed, not ${request.seed}`);
  }
  const answer = await callElevenLabs(settings, `/v1/text-to-voice/design?output_format=${DESIGN_FORMAT}`, {
    method: 'POST',
    headers: elevenLabsHeaders(settings, true),
    body: JSON.stringify({
      voice_description: request.description,
      ...(request.text === undefined ? { auto_generate_text: true } : { text: request.text }),
      ...(request.seed === undefined ? {} : { seed: request.seed }),
    }),
    signal: request.signal,
  });
  const body = parseObject(answer.body.toString('utf8'));
  if (!Array.isArray(body?.previews)) throw malformed('a design');
  const previews = body.previews.map((item: unknown): VoicePreview => {
    const preview = item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    if (typeof preview.generated_voice_id !== 'string' || typeof preview.audio_base_64 !== 'string') {
      throw malformed('a design preview');
    }
    return {
      generatedVoiceId: preview.generated_voice_id,
      audio: Buffer.from(preview.audio_base_64, 'base64'),
      mediaType: typeof preview.media_type === 'string' ? preview.media_type : 'audio/mpeg',
      durationSeconds: typeof preview.duration_secs === 'number' ? preview.duration_secs : 0,
    };
  });
  return { previews, text: typeof body.text === 'string' ? body.text : null };
}

/** Saves a designed voice's preview as a voice of the account: its voice id. */
export async function saveDesignedVoice(
  settings: ElevenLabsSettings,
  request: SaveDesignedVoiceRequest,
): Promise<{ voiceId: string }> {
  if (request.name.trim() === '') throw refused('A saved voice needs a name');
  within('voice description', request.description, DESCRIPTION_CHARS);
  if (request.generatedVoiceId.trim() === '') throw refused('Saving a designed voice needs its generated voice id');
  const answer = await callElevenLabs(settings, '/v1/text-to-voice', {
    method: 'POST',
    headers: elevenLabsHeaders(settings, true),
    body: JSON.stringify({
      voice_name: request.name,
      voice_description: request.description,
      generated_voice_id: request.generatedVoiceId,
    }),
    signal: request.signal,
  });
  const body = parseObject(answer.body.toString('utf8'));
  if (typeof body?.voice_id !== 'string') throw malformed('a saved voice');
  return { voiceId: body.voice_id };
}

/** What a voice item's input holds: the voice's name and description, and the recording of a clone. */
export type ElevenLabsVoiceInput = { name: string; description: string; sample_url: string | null };

/** What a designed voice's description says when ours is shorter than ElevenLabs takes. */
const SHORT_DESCRIPTION_SUFFIX = ': a clear, natural speaking voice';

/**
 * A voice request as the input of a clone (`voices/add`) or a design (`text-to-voice`). A design
 * description shorter than ElevenLabs' 20 characters is completed to say it is a speaking voice;
 * one longer than its 1000 is cut at a word.
 */
export function voiceInput(request: VoiceRequest): ElevenLabsVoiceInput {
  const name = request.name.trim().slice(0, 100) || 'Voice';
  if (request.method === 'clone') {
    if (!request.sampleUrl) throw refused('A cloned voice needs a recording');
    return { name, description: (request.description ?? '').slice(0, 500), sample_url: request.sampleUrl };
  }
  let description = (request.description ?? '').trim();
  if (description === '') throw refused('A designed voice needs a description');
  if (description.length < DESCRIPTION_CHARS.min) description += SHORT_DESCRIPTION_SUFFIX;
  if (description.length > DESCRIPTION_CHARS.max) {
    const cut = description.slice(0, DESCRIPTION_CHARS.max);
    description = cut.slice(0, Math.max(cut.lastIndexOf(' '), DESCRIPTION_CHARS.min)).trim();
  }
  return { name, description, sample_url: null };
}

function readVoiceInput(input: Record<string, unknown>): ElevenLabsVoiceInput {
  if (typeof input.name !== 'string' || typeof input.description !== 'string') {
    throw new ProviderError('An ElevenLabs voice input needs name and description', false, { kind: 'internal' });
  }
  return {
    name: input.name,
    description: input.description,
    sample_url: typeof input.sample_url === 'string' ? input.sample_url : null,
  };
}

/** The output of a voice made at ElevenLabs: its preview audio, and the voice (metadata `vendor_voice`). */
function madeVoice(voiceId: string, preview: { data: Buffer; contentType: string }, extra: Record<string, unknown>) {
  return {
    kind: 'done' as const,
    output: {
      files: [preview],
      metadata: { vendor_voice: { provider: 'elevenlabs', voice_id: voiceId }, ...extra },
    },
  };
}

/**
 * Makes a voice at ElevenLabs: an instant clone of the recording (whose preview is the recording
 * itself), or a design whose first preview is saved as the voice (its preview is that audio).
 */
export async function makeVoice(settings: ElevenLabsSettings, request: SubmitRequest): Promise<SubmitResult> {
  const input = readVoiceInput(request.input);
  if (request.endpoint === 'voices/add') {
    if (!input.sample_url) throw refused('A cloned voice needs a recording');
    if (!settings.fetchSample) {
      throw new ProviderError('ElevenLabs cannot be given recordings here', false, { kind: 'internal' });
    }
    let sample: { data: Buffer; contentType: string };
    try {
      sample = await settings.fetchSample(input.sample_url);
    } catch (err) {
      if (err instanceof WorkError) throw err;
      throw refused(`The recording could not be read: ${err instanceof Error ? err.message : String(err)}`);
    }
    const extension = sample.contentType.split('/')[1]?.split(';')[0]?.replace('mpeg', 'mp3') ?? 'audio';
    const cloned = await cloneVoice(settings, {
      name: input.name,
      description: input.description || undefined,
      files: [{ data: sample.data, fileName: `sample.${extension}`, contentType: sample.contentType }],
      signal: request.signal,
    });
    return madeVoice(cloned.voiceId, sample, { requires_verification: cloned.requiresVerification });
  }
  if (request.endpoint === 'text-to-voice') {
    const designed = await designVoice(settings, { description: input.description, signal: request.signal });
    const chosen = designed.previews[0];
    if (!chosen) throw malformed('a design without previews');
    const saved = await saveDesignedVoice(settings, {
      name: input.name,
      description: input.description,
      generatedVoiceId: chosen.generatedVoiceId,
      signal: request.signal,
    });
    return madeVoice(
      saved.voiceId,
      { data: chosen.audio, contentType: chosen.mediaType },
      { generated_voice_id: chosen.generatedVoiceId, preview_text: designed.text },
    );
  }
  throw new ProviderError(`ElevenLabs has no voice endpoint ${request.endpoint}`, false, { kind: 'internal' });
}
