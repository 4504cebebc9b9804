import { OperationName } from '../../../catalog/operation-names.ts';
import { TTS_FORMATS } from '../../../catalog/voices.ts';
import { synthesizeSpeech } from '../../../render/speech.ts';
import { ProviderError } from '../../types.ts';
import { needed, type Simulation, simulateProviderCall, simulationFor } from '../common.ts';

const tts = simulationFor('speech', async (ctx, _item, r) => {
  await simulateProviderCall([r.text], ctx.simulatorDelayMs, ctx.signal);
  // The request names the format as a vendor's does; the service speaks only its own TTS formats.
  const format = TTS_FORMATS.find((f) => f === r.format);
  if (!format) throw new ProviderError(`Unsupported audio format: ${r.format}`, false);
  // As a speech vendor does: at the speed asked for, at its own loudness (the operation sets the
  // volume, and the format, when it converts the file).
  const speech = await synthesizeSpeech(r.text, needed(r.profile, 'voice profile'), {
    speed: r.speed,
    emotion: r.emotion,
    language: r.language,
    format,
  });
  return { ...speech, metadata: { speed: r.speed } };
});

/** The simulator's runs of these operations. */
export const speechSimulations: Record<string, Simulation> = {
  [OperationName.speechTts]: tts,
};
