// The simulator's voices (cloned or designed) and their previews.

import type { VoiceInput } from '../../../modules/voices/inputs.ts';
import { type Simulation, simulateProviderCall } from '../common.ts';
import { synthesizeSpeech, voiceFromDescription, voiceFromSample } from '../speech.ts';

const PREVIEW_TEXT =
  'Hello! This is a preview of my voice. I can read your scripts, narrate videos, and talk to your audience.';

/** Builds the voice (from the sample or the description) and speaks the preview in it. */
const create: Simulation = async (ctx, item) => {
  const r = item.request as VoiceInput;
  await simulateProviderCall([r.description, r.name], ctx.simulatorDelayMs, ctx.signal);
  const profile =
    r.method === 'clone'
      ? await voiceFromSample(await ctx.fetchMedia(r.audio_url ?? ''))
      : voiceFromDescription(r.description ?? '', r.voice_id);
  const preview = await synthesizeSpeech(PREVIEW_TEXT, profile, { format: 'mp3' });
  return { ...preview, metadata: { profile, duration_seconds: preview.durationSeconds } };
};

/** The simulator's runs of these operations. */
export const voiceSimulations: Record<string, Simulation> = {
  'voice.create': create,
};
