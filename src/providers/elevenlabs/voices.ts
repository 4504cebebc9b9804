// ElevenLabs' own voices: an instant clone from recordings (`POST /v1/voices/add`, multipart), and a
// voice designed from a description (`POST /v1/text-to-voice/design`: previews to listen to), one of
// whose previews is then saved as a voice (`POST /v1/text-to-voice`). Errors read as TTS errors do.
import { ProviderError } from '../types.ts';
import { callElevenLabs, type ElevenLabsSettings, elevenLabsHeaders, parseObject } from './client.ts';

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
