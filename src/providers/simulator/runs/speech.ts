import { TTS_FORMATS } from '../../../catalog/voices.ts';
import { synthesizeSpeech } from '../../../render/speech.ts';
import { ProviderError } from '../../types.ts';
import { needed, type Simulation, simulateProviderCall, simulationFor } from '../common.ts';

const tts = simulationFor('speech', async (ctx, _item, r) => {
  await simulateProviderCall([r.text], ctx.simulatorDelayMs, ctx.signal);
  // The request names the format as a vendor's does; the service speaks only its own TTS formats.
  const format = TTS_FORMATS.find((f) => f === r.format);
  if (!format) throw new ProviderError(`Unsupported audio format: ${r.format}`, false);
  const speech = await synthesizeSpeech(r.text, needed(r.profile, 'voice profile'), {
    speed: r.speed,
    volume: r.volume,
    emotion: r.emotion,
    language: r.language,
    format,
  });
  return { ...speech, metadata: { duration_seconds: speech.durationSeconds } };
});

/** The simulator's runs of these operations. */
export const speechSimulations: Record<string, Simulation> = {
  'speech.tts': tts,
};
