import { FIXED_ROUTES } from '../../catalog/routes.ts';
import type { ExecutableItem, ExecutionContext, Operation, VendorWork } from '../../engine/types.ts';
import { probeMedia } from '../../lib/ffmpeg.ts';
import { readStored } from '../../storage/read.ts';
import type { TtsInput } from './inputs.ts';

/**
 * Text to speech for a vendor: a preset voice the configuration maps to the vendor's own voice.
 * Other voices (unmapped presets, the team's cloned and designed voices) are spoken by the service
 * itself until voices are made at the vendor, and so is a volume other than 1.
 */
const speechForVendor = (ctx: ExecutionContext, item: ExecutableItem): VendorWork | undefined => {
  const r = item.request as TtsInput;
  const voiceId = ctx.vendorVoiceIds[r.voice_id];
  // ElevenLabs has no volume: a louder or softer voice is spoken by the service, which has one.
  if (!voiceId || r.volume !== 1) return undefined;
  return {
    routes: FIXED_ROUTES.tts ?? [],
    request: {
      kind: 'speech',
      text: r.text,
      voiceId,
      format: r.format,
      speed: r.speed,
      language: r.language,
      emotion: r.emotion,
      seed: null,
    },
    expects: 'audio',
  };
};

/** The duration of the speech a vendor made, read from the stored file (the answer says how long it is). */
async function speechDuration(ctx: ExecutionContext, _item: ExecutableItem, key: string) {
  const stored = await readStored(ctx.storage, key);
  if (!stored) return {};
  const probe = await probeMedia(stored).catch(() => undefined);
  return probe ? { duration_seconds: Math.round(probe.durationSeconds * 100) / 100 } : {};
}

/** Text to speech. */
export const speechOperations: Record<string, Operation> = {
  'speech.tts': { vendor: speechForVendor, finishFile: speechDuration },
};
