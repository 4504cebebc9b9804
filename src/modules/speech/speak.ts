// Speech through the text-to-speech routes: which vendors can speak a voice, the conversion of what
// a vendor made into what was asked for, and the speech other operations need (a talking head's
// script, an influencer's dialog), spoken the same way.

import type { ModelRoute } from '../../catalog/models.ts';
import { FIXED_ROUTES } from '../../catalog/routes.ts';
import { PRESET_VOICES, TTS_CONTENT_TYPES, TTS_PCM_SAMPLE_RATE, type TtsFormat } from '../../catalog/voices.ts';
import type { ExecutableItem, ExecutionContext, LocalFile, VendorWork } from '../../engine/types.ts';
import { convertAudio } from '../../lib/audio.ts';
import { WorkError } from '../../lib/errors.ts';
import { safeFetch } from '../../lib/safe-fetch.ts';
import type { PickedRoute } from '../../providers/registry.ts';
import type { ProviderFile, ProviderOutput } from '../../providers/types.ts';
import { synthesizeSpeech } from '../../render/speech.ts';
import type { TtsInput } from './inputs.ts';

/** MiniMax on fal names its voices as our presets are named. */
const PRESET_VENDOR = 'fal';
/** How long speech another operation needs may take at a vendor whose jobs are polled. */
const SPEECH_WAIT_MS = 3 * 60_000;
/** The most a vendor's speech file may be. */
const SPEECH_MAX_BYTES = 64 * 1024 * 1024;

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

/** A vendor's first file's bytes: given inline, or fetched from its URL (the vendor's own origin is trusted). */
async function fileOf(ctx: ExecutionContext, picked: PickedRoute, output: ProviderOutput) {
  const file = output.files[0];
  if (!file) throw new WorkError(`${picked.provider.id} answered no speech`, false, { kind: 'internal' });
  if ('data' in file) return { data: file.data, contentType: file.contentType };
  const trusted = picked.trustedOrigins.includes(new URL(file.url).origin);
  const fetched = await safeFetch(file.url, {
    allowPrivate: ctx.allowPrivateUrls || trusted,
    headers: trusted ? file.headers : undefined,
    timeoutMs: 60_000,
    maxBytes: SPEECH_MAX_BYTES,
  });
  return { data: fetched.body, contentType: fetched.contentType || file.contentType || 'audio/mpeg' };
}

/** One route's speech, waited for: its answer, or its job polled until it ends (within SPEECH_WAIT_MS). */
async function speakOn(ctx: ExecutionContext, picked: PickedRoute, work: VendorWork, key: string) {
  const submitted = await picked.provider.submit({
    endpoint: picked.route.endpoint,
    input: picked.map(work.request),
    idempotencyKey: key,
    signal: ctx.signal,
  });
  if (submitted.kind === 'done') return submitted.output;
  const deadline = Date.now() + SPEECH_WAIT_MS;
  for (;;) {
    const polled = await picked.provider.poll(submitted.handle, ctx.signal);
    if (polled.kind === 'done') return polled.output;
    if (polled.kind === 'failed') throw polled.error;
    if (Date.now() > deadline) {
      await picked.provider.cancel?.(submitted.handle).catch(() => undefined);
      throw new WorkError(`${picked.provider.id} did not finish the speech in time`, true, { kind: 'timeout' });
    }
    const wait = Math.min(Math.max(polled.pollAfterMs, ctx.poll.minMs), 5000);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/**
 * Speech another operation needs (a talking head's script, an influencer's dialog), spoken as text
 * to speech is: on the first TTS route that can speak the voice, the next when a vendor fails in a
 * way another may not (failover), and by the service itself when no vendor can (`speakOwn`).
 */
export async function speakFor(ctx: ExecutionContext, item: ExecutableItem, speech: TtsInput): Promise<ProviderFile> {
  const work = speechWork(ctx, speech);
  const candidates = ctx.providers.candidates(work.routes, work.request);
  let failed: WorkError | undefined;
  for (const picked of candidates) {
    try {
      const output = await speakOn(ctx, picked, work, `${item.id}-speech-${picked.provider.id}`);
      const spoken = await convertSpeech(speech, await fileOf(ctx, picked, output), output.metadata);
      return { ...spoken, extension: speech.format };
    } catch (err) {
      if (!(err instanceof WorkError) || !err.failover) throw err;
      failed = err;
    }
  }
  if (failed) throw failed;
  return speakOwn(speech);
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
