// The simulator's text: from the prompt (a chat's conversation as a transcript), cut at the first
// stop sequence, and streamed in pieces of a few words when someone waits for it piece by piece.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { OperationName } from '../../../catalog/operation-names.ts';
import { countTokens } from '../../../lib/tokens.ts';
import { generateText } from '../../../render/text.ts';
import { vendorOnlyChatFields } from '../../chat-fields.ts';
import { ProviderError, type StreamSink } from '../../types.ts';
import { type Simulation, simulateProviderCall, simulationFor } from '../common.ts';

// Words a streamed piece holds.
const WORDS_A_PIECE = 3;

/** `text` cut before the first of `stops` it holds, if any. */
function cutAtStop(text: string, stops: string | string[] | undefined): { text: string; cut: boolean } {
  const at = [stops ?? []]
    .flat()
    .filter((stop) => stop !== '')
    .map((stop) => text.indexOf(stop))
    .filter((i) => i >= 0);
  return at.length === 0 ? { text, cut: false } : { text: text.slice(0, Math.min(...at)), cut: true };
}

/** Hands `text` to `stream` as chat chunks (the role, pieces of a few words, the finish, the usage). */
async function streamText(
  stream: StreamSink,
  text: string,
  finishReason: string,
  usage: Record<string, number>,
): Promise<void> {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  stream.chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  for (let i = 0; i < words.length && !stream.gone.aborted; i += WORDS_A_PIECE) {
    // A turn between pieces, as a vendor's stream has: each is sent before the next is made.
    await nextTurn();
    stream.chunk({
      choices: [{ index: 0, delta: { content: words.slice(i, i + WORDS_A_PIECE).join('') }, finish_reason: null }],
    });
  }
  if (stream.gone.aborted) return;
  stream.chunk({ choices: [{ index: 0, delta: {}, finish_reason: finishReason }] });
  stream.chunk({ choices: [], usage });
}

const generate = simulationFor('text', async (ctx, item, r) => {
  // What only a vendor can do is refused at accept; a route list changed since is refused here.
  const [field] = r.chat ? vendorOnlyChatFields(r.chat) : [];
  if (field !== undefined) {
    throw new ProviderError(`The simulator cannot honour ${field} (an OpenAI-compatible route can)`, false, {
      kind: 'invalid_input',
    });
  }
  await simulateProviderCall([r.prompt], ctx.simulatorDelayMs, ctx.signal);
  const out = generateText({
    prompt: r.prompt,
    systemPrompt: r.system ?? undefined,
    model: item.model ?? '',
    temperature: r.temperature,
    maxTokens: r.maxTokens,
  });
  const stopped = cutAtStop(out.text, r.chat?.stop);
  const text = stopped.text;
  const finishReason = stopped.cut ? 'stop' : out.finishReason;
  const usage = stopped.cut
    ? {
        prompt_tokens: out.usage.prompt_tokens,
        completion_tokens: countTokens(text),
        total_tokens: out.usage.prompt_tokens + countTokens(text),
      }
    : out.usage;
  if (ctx.stream) await streamText(ctx.stream, text, finishReason, usage);
  return {
    data: Buffer.from(text, 'utf8'),
    contentType: 'text/plain; charset=utf-8',
    extension: 'txt',
    // The usage, as a vendor reports it: the operation settles the charge from it.
    metadata: { text, usage, finish_reason: finishReason },
  };
});

/** The simulator's runs of these operations. */
export const textSimulations: Record<string, Simulation> = {
  [OperationName.textGenerate]: generate,
};
