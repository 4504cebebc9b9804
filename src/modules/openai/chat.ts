// Chat completions through the native text endpoint (POST /api/v1/text/generate, synchronous):
// an OpenAI request becomes one prompt and a system prompt, and the native answer a
// chat.completion, or the chunks of one.
import type { Static } from 'typebox';
import type { TextModel } from '../../catalog/media-models.ts';
import { invalidField } from '../../lib/errors.ts';
import type { TextGenerateBody } from '../text/service.ts';
import type { ChatCompletion, ChatCompletionBody, ChatCompletionChunk, ChatMessage } from './schemas.ts';

type ChatBody = Static<typeof ChatCompletionBody>;
type Message = Static<typeof ChatMessage>;
type FinishReason = 'stop' | 'length' | 'content_filter';

/** Native text request fields → OpenAI chat request fields, for the `param` of an error. */
export const CHAT_PARAMS: Record<string, string> = {
  prompt: 'messages',
  model: 'model',
  'settings.system_prompt': 'messages',
  'settings.max_tokens': 'max_tokens',
  'settings.temperature': 'temperature',
};

/**
 * The catalog text model a request names: its id, or a name without the vendor prefix that
 * exactly one model has (`gpt-4o-mini` for `openai/gpt-4o-mini`). An unknown name is passed on as
 * it is, for the native endpoint to refuse with the list of models.
 */
export function textModelId(models: readonly Pick<TextModel, 'id'>[], name: string): string {
  if (models.some((m) => m.id === name)) return name;
  const suffixed = models.filter((m) => m.id.endsWith(`/${name}`));
  return suffixed.length === 1 && suffixed[0] ? suffixed[0].id : name;
}

/** A message's text: a string, or its text parts joined (other parts are refused). */
function textOf(message: Message, index: number): string {
  const { content } = message;
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, j) => {
      if (part.type !== 'text' || typeof part.text !== 'string') {
        throw invalidField(
          `messages[${index}].content[${j}]`,
          `only text parts are taken (text models); a '${part.type}' part is not`,
        );
      }
      return part.text;
    })
    .join('');
}

const ROLE_LABEL = { user: 'User', assistant: 'Assistant' } as const;

/**
 * The native text request of a chat request. system and developer messages, joined by a blank
 * line, are the system prompt. One user message is the prompt as it is; a conversation is a
 * transcript, a paragraph per message, `User: ...` and `Assistant: ...`, in order. What the
 * service cannot honour (tools, JSON modes, stop sequences, log probabilities, audio, several
 * choices) is refused rather than ignored.
 */
export function nativeTextRequest(body: ChatBody, model: string): Static<typeof TextGenerateBody> {
  if (body.tools && body.tools.length > 0) invalid('tools', 'tool calls are not supported by this service');
  if (body.functions && body.functions.length > 0) invalid('functions', 'function calls are not supported');
  const format = body.response_format?.type;
  if (format !== undefined && format !== 'text') {
    invalid('response_format', `only 'text' is supported; '${format}' is not`);
  }
  const stops = body.stop === undefined || body.stop === null ? [] : [body.stop].flat();
  if (stops.length > 0) invalid('stop', 'stop sequences are not supported');
  if (body.logprobs === true) invalid('logprobs', 'log probabilities are not available');
  if (body.top_logprobs) invalid('top_logprobs', 'log probabilities are not available');
  if (body.audio !== undefined && body.audio !== null) invalid('audio', 'audio output is not supported');
  if (body.modalities?.some((m) => m !== 'text')) invalid('modalities', "only ['text'] is supported");

  const system: string[] = [];
  const turns: Array<{ role: 'user' | 'assistant'; text: string }> = [];
  body.messages.forEach((message, i) => {
    if (message.role === 'tool' || message.role === 'function') {
      invalid(`messages[${i}].role`, `'${message.role}' messages are not supported (no tool calls)`);
    }
    if (message.tool_calls && message.tool_calls.length > 0) {
      invalid(`messages[${i}].tool_calls`, 'tool calls are not supported');
    }
    const text = textOf(message, i);
    if (message.role === 'system' || message.role === 'developer') system.push(text);
    else if (message.role === 'user' || message.role === 'assistant') turns.push({ role: message.role, text });
  });
  if (!turns.some((t) => t.role === 'user' && t.text.trim() !== '')) {
    invalid('messages', 'needs at least one user message with text');
  }
  const only = turns.length === 1 ? turns[0] : undefined;
  const prompt = only ? only.text : turns.map((t) => `${ROLE_LABEL[t.role]}: ${t.text}`).join('\n\n');
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  const settings = {
    ...(system.length > 0 ? { system_prompt: system.join('\n\n') } : {}),
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(body.temperature !== undefined && body.temperature !== null ? { temperature: body.temperature } : {}),
  };
  return { prompt, model, ...(Object.keys(settings).length > 0 ? { settings } : {}) };
}

function invalid(field: string, message: string): never {
  throw invalidField(field, message);
}

/** The finish reason a text item recorded (the vendor's, or the simulator's), as OpenAI names them. */
export function finishReasonOf(result: Record<string, unknown> | null | undefined): FinishReason {
  const reason = result?.finish_reason;
  return reason === 'length' || reason === 'content_filter' ? reason : 'stop';
}

/** What a chat answer is made of: the native text answer and what the door adds. */
export interface ChatAnswer {
  id: string;
  created: number;
  model: string;
  text: string;
  finishReason: FinishReason;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** The chat.completion of an answer. */
export function chatCompletion(answer: ChatAnswer): Static<typeof ChatCompletion> {
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created,
    model: answer.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer.text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: answer.finishReason,
      },
    ],
    usage: answer.usage,
    system_fingerprint: null,
  };
}

/**
 * The Server-Sent Events of a streamed answer: the role, the content, the finish reason, the usage
 * (when asked for: then every chunk carries `usage: null` but the last), and `[DONE]`. The native
 * text is not streamed, so the content comes in one chunk once it is complete.
 */
export function chatCompletionEvents(answer: ChatAnswer, includeUsage: boolean): string {
  const chunk = (
    choices: ChatCompletionChunk['choices'],
    usage?: ChatCompletionChunk['usage'],
  ): ChatCompletionChunk => ({
    id: answer.id,
    object: 'chat.completion.chunk',
    created: answer.created,
    model: answer.model,
    system_fingerprint: null,
    choices,
    ...(includeUsage ? { usage: usage ?? null } : {}),
  });
  const choice = (delta: ChatCompletionChunk['choices'][number]['delta'], finish: FinishReason | null = null) => [
    { index: 0, delta, logprobs: null, finish_reason: finish },
  ];
  const chunks = [
    chunk(choice({ role: 'assistant', content: '', refusal: null })),
    ...(answer.text === '' ? [] : [chunk(choice({ content: answer.text }))]),
    chunk(choice({}, answer.finishReason)),
    ...(includeUsage ? [chunk([], answer.usage)] : []),
  ];
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
}
