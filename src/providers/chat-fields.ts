// What of an OpenAI chat request only an OpenAI-compatible route can honour: the simulator answers
// text from the conversation (a transcript), honours `stop` and takes the sampling fields as hints
// it has no use for (its text is deterministic), but makes no tool calls, no JSON, no log
// probabilities and one choice.
import type { ChatPassthrough } from './types.ts';

/** The fields of `chat` that need an OpenAI-compatible route, in the order a message names them. */
export function vendorOnlyChatFields(chat: ChatPassthrough): Array<keyof ChatPassthrough> {
  const fields: Array<keyof ChatPassthrough> = [];
  if (Array.isArray(chat.tools) && chat.tools.length > 0) fields.push('tools');
  const format = chat.response_format?.type;
  if (format !== undefined && format !== 'text') fields.push('response_format');
  if (chat.logprobs === true) fields.push('logprobs');
  if ((chat.top_logprobs ?? 0) > 0) fields.push('top_logprobs');
  if ((chat.n ?? 1) > 1) fields.push('n');
  return fields;
}
