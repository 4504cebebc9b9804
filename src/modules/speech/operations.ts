import type { ExecutableItem, ExecutionContext, Operation } from '../../engine/types.ts';
import type { TtsInput } from './inputs.ts';
import { convertSpeech, speechWork } from './speak.ts';

/**
 * Text to speech: on the TTS routes that can speak the voice (speak.ts), by the service itself when
 * none can; a vendor's speech converted to the format, volume and speed asked for.
 */
export const speechOperations: Record<string, Operation> = {
  'speech.tts': {
    vendor: (ctx: ExecutionContext, item: ExecutableItem) => speechWork(ctx, item.request as TtsInput),
    // A voice of the service's own (no vendor voice) is spoken by the service from its profile.
    ownWork: (_item, work) => work === undefined,
    convertFile: async (_ctx, item, file, vendorMetadata) => {
      const { data, contentType, durationSeconds } = await convertSpeech(
        item.request as TtsInput,
        file,
        vendorMetadata,
      );
      return { data, contentType, metadata: { duration_seconds: Math.round(durationSeconds * 100) / 100 } };
    },
  },
};
