// A streamed chat completion: the native text request runs in-process with a stream offered to
// it, and each chunk its route sends comes out at once as a chat.completion.chunk (content,
// refusal and tool-call deltas, log probabilities, finish reasons), then the usage when asked for
// and `[DONE]`. An error before the first chunk is an ordinary OpenAI error answer; after it, the
// stream's last event. A client that leaves stops the route's call (see docs/openai.md).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { App } from '../../app-types.ts';
import { EventStream } from '../../lib/event-stream.ts';
import type { TextGenerateBody } from '../text/service.ts';
import { type Offered, offerStream } from '../text/streams.ts';
import { answerChunks, type ChatAnswer, type ChunkFrame, chunkOf } from './chat.ts';
import { openAiErrorPayload } from './errors.ts';
import { callNative } from './native.ts';
import type { ChatCompletionBody } from './schemas.ts';

/** What the native text endpoint answers, as far as the door reads it. */
export interface TextAnswer {
  generation_id: string;
  text: string;
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  credits_used: number;
}

/** Streams the answer of `native` (the chat request's native text request) to the client as it comes. */
export async function streamChat(
  app: App,
  request: FastifyRequest,
  reply: FastifyReply,
  native: Static<typeof TextGenerateBody>,
  params: Record<string, string>,
  answerOf: (answer: TextAnswer, offer: Offered) => Promise<ChatAnswer>,
): Promise<FastifyReply> {
  const body = request.body as Static<typeof ChatCompletionBody>;
  const events = new EventStream(reply);
  const frame: ChunkFrame = {
    id: '',
    created: Math.floor(Date.now() / 1000),
    model: native.model ?? body.model,
    includeUsage: body.stream_options?.include_usage === true,
  };
  const offer = offerStream((created) => {
    frame.id = `chatcmpl-${created.id}`;
    reply.header('x-generation-id', created.id);
    return {
      sink: {
        gone: events.gone,
        chunk(chunk) {
          // The usage goes once, at the end, as the item recorded it.
          if (chunk.choices.length === 0) return;
          const choices = chunk.choices.map((c) => ({
            index: c.index,
            delta: c.delta,
            logprobs: c.logprobs ?? null,
            finish_reason: c.finish_reason ?? null,
          }));
          events.write(chunkOf(frame, choices));
        },
      },
      // The door ends the stream itself, once the native answer is back.
      end: (answer) => answer,
    };
  });
  let answer: TextAnswer;
  try {
    answer = await callNative<TextAnswer>(app, request, '/api/v1/text/generate', native, params, offer.headers);
  } catch (err) {
    if (!events.started && !events.gone.aborted) throw err;
    events.write(openAiErrorPayload(err));
    events.end();
    return reply;
  } finally {
    offer.withdraw();
  }
  if (!events.started) {
    // Nothing came piece by piece (an Idempotency-Key's replay): the whole answer, as chunks.
    const whole = await answerOf(answer, offer);
    frame.id = whole.id;
    reply.header('x-generation-id', answer.generation_id).header('x-credits-used', String(answer.credits_used));
    for (const chunk of answerChunks(frame, whole)) events.write(chunk);
  } else if (frame.includeUsage) {
    events.write(chunkOf(frame, [], answer.usage));
  }
  events.write('[DONE]');
  events.end();
  return reply;
}
