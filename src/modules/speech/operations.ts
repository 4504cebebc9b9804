import type { Operation } from '../../engine/types.ts';

/** Text to speech. */
export const speechOperations: Record<string, Operation> = {
  'speech.tts': {},
};
