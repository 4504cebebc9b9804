// How a text request becomes the body of a chat completion on an OpenAI-compatible server
// (OpenRouter, Ollama, vLLM, llama.cpp's server): the messages and the sampling. The client adds
// the model (the route's endpoint, renamed for the server) and `stream`. A chat request (the OpenAI
// door's) is sent as it came: its messages, tools, output format and sampling.
import { type Mapping, mappingFor } from '../mapping.ts';
import { CHAT_PASSED_FIELDS, type ChatPassthrough, type TextRequest } from '../types.ts';

/**
 * The chat completion body of a chat request (the OpenAI door's): its messages and fields as they
 * are, with the temperature and the max_tokens it was charged for.
 */
function chatRequestInput(request: TextRequest, chat: ChatPassthrough): Record<string, unknown> {
  const body: Record<string, unknown> = {
    messages: chat.messages,
    temperature: request.temperature,
    max_tokens: request.maxTokens,
  };
  for (const field of CHAT_PASSED_FIELDS) if (chat[field] !== undefined) body[field] = chat[field];
  return body;
}

/** The chat completion body of a text request: the system prompt (when there is one), then the prompt. */
export function chatInput(request: TextRequest): Record<string, unknown> {
  if (request.chat) return chatRequestInput(request, request.chat);
  // A blank system prompt says nothing, and some chat templates render an empty system turn badly.
  const system = request.system !== null && request.system.trim() !== '' ? request.system : null;
  return {
    messages: [
      ...(system === null ? [] : [{ role: 'system', content: system }]),
      { role: 'user', content: request.prompt },
    ],
    temperature: request.temperature,
    // `max_tokens`, not OpenAI's newer `max_completion_tokens`: Ollama, vLLM, llama.cpp's server and
    // OpenRouter all read it, and what was charged for is a bound on the answer either way.
    max_tokens: request.maxTokens,
  };
}

/** Input mappings of OpenAI-compatible chat servers, by the name a catalog route gives. */
export const OPENAI_COMPATIBLE_MAPPINGS: Record<string, Mapping> = {
  chat: mappingFor('text', chatInput),
};
