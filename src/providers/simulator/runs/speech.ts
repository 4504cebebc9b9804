import type { TtsInput } from '../../../modules/speech/inputs.ts';
import { type Simulation, simulateProviderCall } from '../common.ts';
import { synthesizeSpeech } from '../speech.ts';

const tts: Simulation = async (ctx, item) => {
  const r = item.request as TtsInput;
  await simulateProviderCall([r.text], ctx.simulatorDelayMs, ctx.signal);
  const speech = await synthesizeSpeech(r.text, r.profile, {
    speed: r.speed,
    volume: r.volume,
    emotion: r.emotion,
    language: r.language,
    format: r.format,
  });
  return { ...speech, metadata: { duration_seconds: speech.durationSeconds } };
};

/** The simulator's runs of these operations. */
export const speechSimulations: Record<string, Simulation> = {
  'speech.tts': tts,
};
