// Speech through the text-to-speech routes: which vendors can speak a voice, the conversion of what
// a vendor made into what was asked for, the speech the service makes itself, and the speech other
// operations need (a talking head's script, an influencer's dialog) as sub-work spoken the same way.

import type { ModelRoute } from '../../catalog/models.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import { FIXED_ROUTES } from '../../catalog/routes.ts';
import { PRESET_VOICES, TTS_CONTENT_TYPES, TTS_PCM_SAMPLE_RATE, type TtsFormat } from '../../catalog/voices.ts';
import { needSubWork, type SubWorkResult } from '../../engine/index.ts';
import type { ExecutableItem, ExecutionContext, LocalFile, VendorWork } from '../../engine/types.ts';
import { convertAudio } from '../../lib/audio.ts';
import { synthesizeSpeech } from '../../render/speech.ts';
import type { TtsInput } from './inputs.ts';

/** MiniMax on fal names its voices as our presets are named. */
const PRESET_VENDOR = 'fal';
/** The model text to speech is listed and recorded as. */
export const SPEECH_MODEL = 'tts-v2';

/**
 * The voice at each speech vendor that can speak it: a voice made at a vendor is spoken there only;
 * a preset by ElevenLabs when ELEVENLABS_VOICE_MAP maps it, and by MiniMax on fal under its own
 * name. The service's own voices have none (the service speaks them).
 */
export function vendorVoicesOf(
  ctx: Pick<ExecutionContext, 'vendorVoiceIds'>,
  speech: Pick<TtsInput, 'voice_id' | 'vendor_voice'>,
): Record<string, string> {
  if (speech.vendor_voice) return { [speech.vendor_voice.provider]: speech.vendor_voice.voice_id };
  if (!PRESET_VOICES.some((p) => p.id === speech.voice_id)) return {};
  const mapped = ctx.vendorVoiceIds[speech.voice_id];
  return { ...(mapped ? { elevenlabs: mapped } : {}), [PRESET_VENDOR]: speech.voice_id };
}

/** The text-to-speech routes whose vendor can speak the voice. */
export function speechRoutes(
  ctx: Pick<ExecutionContext, 'vendorVoiceIds'>,
  speech: Pick<TtsInput, 'voice_id' | 'vendor_voice'>,
): ModelRoute[] {
  const voices = vendorVoicesOf(ctx, speech);
  return (FIXED_ROUTES.tts ?? []).filter((route) => voices[route.provider] !== undefined);
}

/** Text to speech for the vendors that can speak its voice (no routes: none can, the service speaks it). */
export function speechWork(ctx: Pick<ExecutionContext, 'vendorVoiceIds'>, speech: TtsInput): VendorWork {
  const voices = vendorVoicesOf(ctx, speech);
  const routes = speechRoutes(ctx, speech);
  return {
    routes,
    request: {
      kind: 'speech',
      text: speech.text,
      voices,
      format: speech.format,
      speed: speech.speed,
      language: speech.language,
      emotion: speech.emotion,
      seed: null,
      profile: speech.profile,
      volume: speech.volume,
    },
    expects: 'audio',
  };
}

/**
 * A vendor's speech as the request asked for it: in its format, at its volume (no speech vendor
 * sets one), and at its speed where the vendor spoke at another (metadata `speed`: ElevenLabs
 * speaks 0.7-1.2); measured.
 */
export async function convertSpeech(
  speech: TtsInput,
  file: { data: Buffer; contentType: string },
  vendorMetadata: Record<string, unknown>,
): Promise<{ data: Buffer; contentType: string; durationSeconds: number }> {
  const spokenAt =
    typeof vendorMetadata.speed === 'number' && vendorMetadata.speed > 0 ? vendorMetadata.speed : speech.speed;
  const converted = await convertAudio(file, {
    format: speech.format,
    pcmRate: TTS_PCM_SAMPLE_RATE,
    gain: speech.volume,
    tempo: speech.speed / spokenAt,
  });
  return { ...converted, contentType: TTS_CONTENT_TYPES[speech.format as TtsFormat] };
}

/**
 * Speech another operation needs (a talking head's script, an influencer's dialog): sub-work of
 * the item, spoken as text to speech is (on the TTS routes that can speak the voice, with failover),
 * and by the service itself when no configured vendor can. Its result once made; until then the
 * item waits (see needSubWork).
 */
export function needSpeech(ctx: ExecutionContext, item: ExecutableItem, speech: TtsInput): Promise<SubWorkResult> {
  return needSubWork(ctx, item, {
    purpose: 'speech',
    what: 'the speech',
    operation: OperationName.speechTts,
    model: SPEECH_MODEL,
    type: 'audio',
    input: { ...speech, needed_by: item.id } satisfies TtsInput,
  });
}

/**
 * Speech the service makes itself (a voice of its own, or no speech vendor configured): the text
 * spoken from the voice's profile, in the format, at the speed, volume and emotion asked for.
 */
export async function speakOwn(speech: TtsInput): Promise<LocalFile> {
  const spoken = await synthesizeSpeech(speech.text, speech.profile, {
    speed: speech.speed,
    volume: speech.volume,
    emotion: speech.emotion,
    language: speech.language,
    format: speech.format,
  });
  return { ...spoken, metadata: { duration_seconds: spoken.durationSeconds } };
}
