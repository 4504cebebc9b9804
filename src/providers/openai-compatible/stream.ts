// A streamed chat completion (`stream: true`): the server's Server-Sent Events of
// `chat.completion.chunk`s, each handed on as it arrives, and put together into the one
// chat.completion they make (each choice's content, refusal, tool calls and log probabilities,
// its finish reason, and the usage of the last chunk).
import { createParser } from 'eventsource-parser';
import { asRecord } from '../../lib/records.ts';
import type { ChatChunk, StreamSink } from '../types.ts';

/** What a stream made: the completion it adds up to, or the error a chunk carried instead. */
export interface StreamedCompletion {
  /** A chat.completion: `id`, `model`, `choices[{index, message, logprobs, finish_reason}]`, `usage`. */
  body: Record<string, unknown>;
  /** The `error` object a chunk carried (OpenRouter's failure after its headers were sent). */
  error?: Record<string, unknown>;
  /** Chunks handed on. */
  chunks: number;
  /** Whether the one waiting left before the stream ended (the call was stopped). */
  cut: boolean;
}

interface ToolCallSoFar {
  id?: string;
  type?: string;
  function: { name: string; arguments: string };
}

interface ChoiceSoFar {
  content: string | null;
  refusal: string | null;
  toolCalls: ToolCallSoFar[];
  logprobs: { content: unknown[]; refusal: unknown[] } | null;
  finishReason: string | null;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Adds one chunk's choice deltas to what the choices say so far. */
function addDeltas(choices: Map<number, ChoiceSoFar>, chunk: ChatChunk): void {
  for (const choice of chunk.choices) {
    const index = typeof choice.index === 'number' ? choice.index : 0;
    let soFar = choices.get(index);
    if (!soFar) {
      soFar = { content: null, refusal: null, toolCalls: [], logprobs: null, finishReason: null };
      choices.set(index, soFar);
    }
    const delta = asRecord(choice.delta) ?? {};
    const content = text(delta.content);
    if (content !== undefined) soFar.content = (soFar.content ?? '') + content;
    const refusal = text(delta.refusal);
    if (refusal !== undefined) soFar.refusal = (soFar.refusal ?? '') + refusal;
    if (Array.isArray(delta.tool_calls)) {
      for (const raw of delta.tool_calls) {
        const call = asRecord(raw);
        if (!call) continue;
        const at = typeof call.index === 'number' ? call.index : soFar.toolCalls.length;
        const existing = soFar.toolCalls[at] ?? { function: { name: '', arguments: '' } };
        soFar.toolCalls[at] = existing;
        if (text(call.id)) existing.id = text(call.id);
        if (text(call.type)) existing.type = text(call.type);
        const fn = asRecord(call.function);
        existing.function.name += text(fn?.name) ?? '';
        existing.function.arguments += text(fn?.arguments) ?? '';
      }
    }
    const logprobs = asRecord(choice.logprobs);
    if (logprobs) {
      soFar.logprobs ??= { content: [], refusal: [] };
      if (Array.isArray(logprobs.content)) soFar.logprobs.content.push(...logprobs.content);
      if (Array.isArray(logprobs.refusal)) soFar.logprobs.refusal.push(...logprobs.refusal);
    }
    if (typeof choice.finish_reason === 'string') soFar.finishReason = choice.finish_reason;
  }
}

/** The chat.completion's choices of what the deltas said. */
function completedChoices(choices: Map<number, ChoiceSoFar>): Array<Record<string, unknown>> {
  return [...choices.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, c]) => ({
      index,
      message: {
        role: 'assistant',
        content: c.content,
        refusal: c.refusal,
        ...(c.toolCalls.length > 0
          ? {
              tool_calls: c.toolCalls.map((call) => ({
                id: call.id ?? '',
                type: call.type ?? 'function',
                function: call.function,
              })),
            }
          : {}),
      },
      logprobs: c.logprobs && { content: c.logprobs.content, refusal: c.logprobs.refusal },
      finish_reason: c.finishReason,
    }));
}

/**
 * Reads a streamed answer to its end (`data: [DONE]`, or the end of the body), handing each chunk
 * to `sink` as it arrives. When `sink.gone` aborts the read (the call's signal includes it), the
 * stream is cut there and what came so far is answered; any other failure is thrown.
 */
export async function readChatStream(response: Response, sink: StreamSink): Promise<StreamedCompletion> {
  const choices = new Map<number, ChoiceSoFar>();
  const out: StreamedCompletion = { body: {}, chunks: 0, cut: false };
  let id: string | undefined;
  let model: string | undefined;
  let usage: Record<string, unknown> | undefined;
  let done = false;
  const parser = createParser({
    onEvent(event) {
      if (done) return;
      if (event.data.trim() === '[DONE]') {
        done = true;
        return;
      }
      let parsed: Record<string, unknown> | undefined;
      try {
        parsed = asRecord(JSON.parse(event.data));
      } catch {
        parsed = undefined;
      }
      if (!parsed) return;
      const error = asRecord(parsed.error);
      if (error && !Array.isArray(parsed.choices)) {
        out.error = error;
        done = true;
        return;
      }
      id ??= text(parsed.id);
      model ??= text(parsed.model);
      const chunkUsage = asRecord(parsed.usage);
      if (chunkUsage) usage = chunkUsage;
      const chunk: ChatChunk = {
        choices: Array.isArray(parsed.choices) ? (parsed.choices as ChatChunk['choices']) : [],
        ...(chunkUsage ? { usage: chunkUsage } : {}),
      };
      addDeltas(choices, chunk);
      out.chunks += 1;
      sink.chunk(chunk);
    },
  });
  const body = response.body;
  if (body) {
    // Decoded here rather than through a TextDecoderStream: one stream, not two, between the
    // server's bytes and the client (each stream adds its own reads and promises per chunk).
    const reader = body.getReader();
    const decoder = new TextDecoder();
    try {
      while (!done) {
        const { done: ended, value } = await reader.read();
        if (ended) {
          parser.feed(decoder.decode());
          break;
        }
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch (err) {
      if (!sink.gone.aborted) throw err;
      out.cut = true;
    } finally {
      reader.cancel().catch(() => undefined);
    }
  }
  out.body = {
    ...(id ? { id } : {}),
    ...(model ? { model } : {}),
    choices: completedChoices(choices),
    ...(usage ? { usage } : {}),
  };
  return out;
}
