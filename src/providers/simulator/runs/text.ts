// The simulator's text.
import { OperationName } from '../../../catalog/operation-names.ts';
import { generateText } from '../../../render/text.ts';
import { type Simulation, simulateProviderCall, simulationFor } from '../common.ts';

const generate = simulationFor('text', async (ctx, item, r) => {
  await simulateProviderCall([r.prompt], ctx.simulatorDelayMs, ctx.signal);
  const out = generateText({
    prompt: r.prompt,
    systemPrompt: r.system ?? undefined,
    model: item.model ?? '',
    temperature: r.temperature,
    maxTokens: r.maxTokens,
  });
  return {
    data: Buffer.from(out.text, 'utf8'),
    contentType: 'text/plain; charset=utf-8',
    extension: 'txt',
    // The usage, as a vendor reports it: the operation settles the charge from it.
    metadata: { text: out.text, usage: out.usage, finish_reason: out.finishReason },
  };
});

/** The simulator's runs of these operations. */
export const textSimulations: Record<string, Simulation> = {
  [OperationName.textGenerate]: generate,
};
