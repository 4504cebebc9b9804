// The simulator's voices (cloned or designed) and their previews.

import { synthesizeSpeech, voiceFromDescription, voiceFromSample } from '../../../render/speech.ts';
import { type Simulation, simulateProviderCall, simulationFor } from '../common.ts';

const PREVIEW_TEXT =
  'Hello! This is a preview of my voice. I can read your scripts, narrate videos, and talk to your audience.';

/** Builds the voice (from the sample or the description) and speaks the preview in it. */
const create = simulationFor('voice', async (ctx, _item, r) => {
  await simulateProviderCall([r.description, r.name], ctx.simulatorDelayMs, ctx.signal);
  const profile =
    r.method === 'clone'
      ? await voiceFromSample(await ctx.fetchMedia(r.sampleUrl ?? ''))
      : voiceFromDescription(r.description ?? '', r.voiceId);
  const preview = await synthesizeSpeech(PREVIEW_TEXT, profile, { format: 'mp3' });
  return { ...preview, metadata: { profile, duration_seconds: preview.durationSeconds } };
});

/** The simulator's runs of these operations. */
export const voiceSimulations: Record<string, Simulation> = {
  'voice.create': create,
};
