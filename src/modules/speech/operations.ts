import type { TtsEmotion, TtsFormat, VoiceProfile } from '../../catalog/voices.ts';
import type { Executor, Operation } from '../../engine/types.ts';
import { simulateProviderCall } from '../../providers/simulator/common.ts';
import { synthesizeSpeech } from '../../providers/simulator/speech.ts';

interface TtsInput {
  profile: VoiceProfile;
  text: string;
  language: string;
  speed: number;
  volume: number;
  emotion: TtsEmotion;
  format: TtsFormat;
}

const tts: Executor = async (ctx, item) => {
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

/** Text to speech. */
export const speechOperations: Record<string, Operation> = {
  'speech.tts': { execute: tts },
};
