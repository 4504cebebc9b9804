// Chat completions through the native text endpoint (POST /api/v1/text/generate, synchronous):
// an OpenAI request becomes one prompt and a system prompt, and the native answer a
// chat.completion, or the chunks of one.
import type { Static } from 'typebox';
import type { TextModel } from '../../catalog/media-models.ts';
import { invalidField } from '../../lib/errors.ts';
import { CHAT_PASSED_FIELDS } from '../../providers/types.ts';
import type { TextGenerateBody } from '../text/service.ts';
import type { ChatCompletion, ChatCompletionBody, ChatCompletionChunk, ChatMessage } from './schemas.ts';

type ChatBody = Static<typeof ChatCompletionBody>;
type Message = Static<typeof ChatMessage>;
type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls' | 'function_call';

/** Native text request fields → OpenAI chat request fields, for the `param` of an error. */
export const CHAT_PARAMS: Record<string, string> = {
  prompt: 'messages',
  model: 'model',
  'settings.system_prompt': 'messages',
  'settings.max_tokens': 'max_tokens',
  'settings.temperature': 'temperature',
  'chat.messages': 'messages',
  ...Object.fromEntries(CHAT_PASSED_FIELDS.map((field) => [`chat.${field}`, field])),
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

const ROLE_LABEL = { user: 'User', assistant: 'Assistant', tool: 'Tool' } as const;

/** What an assistant message says in a transcript: its text, and the tools it called. */
function assistantText(message: Message, text: string): string {
  const calls = (message.tool_calls ?? []).map((raw) => {
    const fn = (raw as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
    return `[called ${String(fn?.name ?? 'a tool')}(${typeof fn?.arguments === 'string' ? fn.arguments : ''})]`;
  });
  return [text, ...calls].filter((part) => part !== '').join('\n');
}

/**
 * The native text request of a chat request. Its messages and the fields an OpenAI-compatible
 * route takes (tools, tool_choice, response_format, stop, seed, top_p, penalties, logprobs, n) go
 * as they are in `chat`; the prompt and system prompt (what the simulator reads, and the native
 * endpoint requires) are the messages as text: system and developer messages, joined by a blank
 * line, are the system prompt; one user message is the prompt as it is, a conversation a
 * transcript, a paragraph per message (`User: ...`, `Assistant: ...`, `Tool: ...`), in order.
 * Audio, legacy functions and parts that are not text are refused (text models).
 */
export function nativeTextRequest(body: ChatBody, model: string): Static<typeof TextGenerateBody> {
  if (body.functions && body.functions.length > 0) invalid('functions', 'legacy functions are not taken: use tools');
  if (body.audio !== undefined && body.audio !== null) invalid('audio', 'audio output is not supported');
  if (body.modalities?.some((m) => m !== 'text')) invalid('modalities', "only ['text'] is supported");

  const system: string[] = [];
  const turns: Array<{ role: 'user' | 'assistant' | 'tool'; text: string }> = [];
  body.messages.forEach((message, i) => {
    if (message.role === 'function') invalid(`messages[${i}].role`, "'function' messages are not taken: use tools");
    const text = textOf(message, i);
    if (message.role === 'system' || message.role === 'developer') system.push(text);
    else if (message.role === 'assistant') turns.push({ role: 'assistant', text: assistantText(message, text) });
    else turns.push({ role: message.role, text });
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
  const given = body as Record<string, unknown>;
  const passed = Object.fromEntries(
    CHAT_PASSED_FIELDS.filter((field) => given[field] !== undefined && given[field] !== null).map((field) => [
      field,
      given[field],
    ]),
  );
  // An empty list of stop sequences or tools says nothing.
  if (Array.isArray(passed.stop) && passed.stop.length === 0) delete passed.stop;
  if (Array.isArray(passed.tools) && passed.tools.length === 0) {
    delete passed.tools;
    delete passed.tool_choice;
    delete passed.parallel_tool_calls;
  }
  if (passed.logprobs === false) delete passed.logprobs;
  const chat = { messages: body.messages as Array<Record<string, unknown>>, ...passed };
  return { prompt, model, ...(Object.keys(settings).length > 0 ? { settings } : {}), chat } as Static<
    typeof TextGenerateBody
  >;
}

function invalid(field: string, message: string): never {
  throw invalidField(field, message);
}

const FINISH_REASONS = new Set(['stop', 'length', 'content_filter', 'tool_calls', 'function_call']);

/** A finish reason as OpenAI names them (the simulator's and every vendor's are among them; else stop). */
function finishReason(reason: unknown): FinishReason {
  return typeof reason === 'string' && FINISH_REASONS.has(reason) ? (reason as FinishReason) : 'stop';
}

type Choice = Static<typeof ChatCompletion>['choices'][number];

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/**
 * The choices of a text item's answer: those the route gave (tool calls, refusals, log
 * probabilities, several choices), or one of its text and finish reason.
 */
export function choicesOf(text: string, result: Record<string, unknown> | null | undefined): Choice[] {
  const given = Array.isArray(result?.choices) ? result.choices : undefined;
  if (!given) {
    return [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: finishReason(result?.finish_reason),
      },
    ];
  }
  return given.map((raw, i) => {
    const choice = record(raw) ?? {};
    const message = record(choice.message) ?? {};
    const content = message.content;
    const toolCalls = Array.isArray(message.tool_calls) && message.tool_calls.length > 0 ? message.tool_calls : null;
    return {
      index: typeof choice.index === 'number' ? choice.index : i,
      message: {
        role: 'assistant' as const,
        content:
          typeof content === 'string'
            ? content
            : Array.isArray(content)
              ? content.map((part) => String(record(part)?.text ?? '')).join('')
              : null,
        refusal: typeof message.refusal === 'string' ? message.refusal : null,
        ...(toolCalls ? { tool_calls: toolCalls as Choice['message']['tool_calls'] } : {}),
        annotations: Array.isArray(message.annotations) ? message.annotations : [],
      },
      logprobs: choice.logprobs ?? null,
      finish_reason: finishReason(choice.finish_reason),
    };
  });
}

/** What a chat answer is made of: the native text answer and what the door adds. */
export interface ChatAnswer {
  id: string;
  created: number;
  model: string;
  choices: Choice[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** The chat.completion of an answer. */
export function chatCompletion(answer: ChatAnswer): Static<typeof ChatCompletion> {
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created,
    model: answer.model,
    choices: answer.choices,
    usage: answer.usage,
    system_fingerprint: null,
  };
}

/** The frame of the chunks of one answer. */
export interface ChunkFrame {
  id: string;
  created: number;
  model: string;
  includeUsage: boolean;
}

/** One chat.completion.chunk of an answer. */
export function chunkOf(
  frame: ChunkFrame,
  choices: ChatCompletionChunk['choices'],
  usage?: ChatCompletionChunk['usage'],
): ChatCompletionChunk {
  return {
    id: frame.id,
    object: 'chat.completion.chunk',
    created: frame.created,
    model: frame.model,
    system_fingerprint: null,
    choices,
    ...(frame.includeUsage ? { usage: usage ?? null } : {}),
  };
}

/**
 * The chunks of a whole answer, when nothing was streamed (an Idempotency-Key's replay): per
 * choice the role, the content, the tool calls and the finish reason, then the usage when asked for.
 */
export function answerChunks(frame: ChunkFrame, answer: ChatAnswer): ChatCompletionChunk[] {
  const chunks: ChatCompletionChunk[] = [];
  for (const choice of answer.choices) {
    const one = (delta: ChatCompletionChunk['choices'][number]['delta'], finish: FinishReason | null = null) => [
      { index: choice.index, delta, logprobs: finish === null ? null : choice.logprobs, finish_reason: finish },
    ];
    chunks.push(chunkOf(frame, one({ role: 'assistant', content: '', refusal: null })));
    const { content, refusal, tool_calls } = choice.message;
    if (content) chunks.push(chunkOf(frame, one({ content })));
    if (refusal) chunks.push(chunkOf(frame, one({ refusal })));
    if (tool_calls) {
      const calls = tool_calls.map((call, index) => ({ index, ...(call as Record<string, unknown>) }));
      chunks.push(chunkOf(frame, one({ tool_calls: calls })));
    }
    chunks.push(chunkOf(frame, one({}, choice.finish_reason)));
  }
  if (frame.includeUsage) chunks.push(chunkOf(frame, [], answer.usage));
  return chunks;
}
