// The simulator's text.
import { tokenCredits } from '../../../lib/tokens.ts';
import { generateText } from '../../../render/text.ts';
import { needed, type Simulation, simulateProviderCall, simulationFor } from '../common.ts';

const generate = simulationFor('text', async (ctx, item, r) => {
  await simulateProviderCall([r.prompt], ctx.simulatorDelayMs, ctx.signal);
  const out = generateText({
    prompt: r.prompt,
    systemPrompt: r.system ?? undefined,
    model: item.model ?? '',
    temperature: r.temperature,
    maxTokens: r.maxTokens,
  });
  const credits = tokenCredits(out.usage.prompt_tokens, out.usage.completion_tokens, needed(r.price, 'price'));
  return {
    data: Buffer.from(out.text, 'utf8'),
    contentType: 'text/plain; charset=utf-8',
    extension: 'txt',
    metadata: { text: out.text, usage: out.usage, finish_reason: out.finishReason, credits },
    actualCredits: credits,
  };
});

/** The simulator's runs of these operations. */
export const textSimulations: Record<string, Simulation> = {
  'text.generate': generate,
};
