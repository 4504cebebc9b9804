import { OperationName } from '../../catalog/operation-names.ts';
import { operationOf } from '../../engine/operation.ts';
import type { Operation } from '../../engine/types.ts';
import { TtsInput } from './inputs.ts';
import { convertSpeech, speakOwn, speechWork } from './speak.ts';

/**
 * Text to speech: on the TTS routes that can speak the voice (speak.ts), by the service itself when
 * none can; a vendor's speech converted to the format, volume and speed asked for.
 */
export const speechOperations: Record<string, Operation> = {
  [OperationName.speechTts]: operationOf(TtsInput, {
    vendor: (ctx, item) => speechWork(ctx, item.request),
    // A voice of the service's own (no vendor voice) is spoken by the service from its profile, as is
    // speech another item needs when no configured vendor can speak it.
    ownWork: (item, work) => work === undefined || work.routes.length === 0 || item.request.needed_by !== undefined,
    local: (_ctx, item) => speakOwn(item.request),
    convertFile: async (_ctx, item, file, vendorMetadata) => {
      const { data, contentType, durationSeconds } = await convertSpeech(item.request, file, vendorMetadata);
      return { data, contentType, metadata: { duration_seconds: Math.round(durationSeconds * 100) / 100 } };
    },
  }),
};
