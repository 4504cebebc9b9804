import type { ExecutableItem, ExecutionContext } from '../../engine/types.ts';
import { ProviderError, type ProviderFile } from '../../providers/types.ts';
import type { TtsInput } from './inputs.ts';

/**
 * Speech another operation needs (a talking head's script, an influencer's dialog), spoken by what
 * serves text to speech for the service itself: the one place to change when that speech moves
 * to a vendor's route.
 */
export async function speakFor(ctx: ExecutionContext, item: ExecutableItem, speech: TtsInput): Promise<ProviderFile> {
  const speak = ctx.simulations['speech.tts'];
  if (!speak) throw new ProviderError('No speech is available to voice this item', false);
  return speak(ctx, { ...item, type: 'audio', request: speech });
}
