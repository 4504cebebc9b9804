// The simulator's text to speech.
import type { TtsEmotion, TtsFormat, VoiceProfile } from '../../../catalog/voices.ts';
import type { Simulation } from '../../types.ts';
import { simulateProviderCall } from '../common.ts';
import { synthesizeSpeech } from '../speech.ts';

interface TtsInput {
  profile: VoiceProfile;
  text: string;
  language: string;
  speed: number;
  volume: number;
  emotion: TtsEmotion;
  format: TtsFormat;
}

const tts: Simulation = async (ctx, item) => {
  const r = item.request as unknown as TtsInput;
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
