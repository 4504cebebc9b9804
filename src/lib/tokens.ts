// Token counting and the price of tokens: real counts from gpt-tokenizer's o200k_base encoding
// (GPT-4o and later), as chat APIs count a prompt (per-message and reply overheads).
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';

/** Special-token text is counted as text, never refused. */
export const ENCODE_OPTIONS = { disallowedSpecial: new Set<string>() };

/** Real token count of `text` (o200k_base, the encoding of GPT-4o and later OpenAI models). */
export function countTokens(text: string): number {
  return o200kCount(text, ENCODE_OPTIONS);
}

/**
 * Chat-format overhead, as OpenAI counts it: every message is wrapped as
 * `<|im_start|>{role}<|im_sep|>{content}<|im_end|>` (3 tokens + 1 for the role), and the
 * reply is primed with `<|im_start|>assistant<|im_sep|>` (3 tokens). This matches
 * gpt-tokenizer's `encodeChat` for gpt-4o.
 */
export const TOKENS_PER_MESSAGE = 4;
export const TOKENS_PER_REPLY = 3;

/** prompt_tokens for a system prompt (optional) and a user message. */
export function countPromptTokens(prompt: string, systemPrompt?: string): number {
  let total = TOKENS_PER_REPLY + TOKENS_PER_MESSAGE + countTokens(prompt);
  if (systemPrompt) total += TOKENS_PER_MESSAGE + countTokens(systemPrompt);
  return total;
}

/** Credits for a token count at a per-1k price, rounded up, at least one credit a request. */
export function tokenCredits(
  promptTokens: number,
  completionTokens: number,
  price: { input_per_1k: number; output_per_1k: number },
): number {
  return Math.max(1, Math.ceil((promptTokens * price.input_per_1k + completionTokens * price.output_per_1k) / 1000));
}
