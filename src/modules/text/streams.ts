// The streams of text requests: the native endpoint's (`stream: true`), and one another route of
// this process offers for a request it makes in-process (the OpenAI door's chat chunks), found by
// a one-time name in a header only this process knows.
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CreatedGeneration, ResponseStream } from '../../engine/types.ts';
import { AppError } from '../../lib/errors.ts';
import { EventStream } from '../../lib/event-stream.ts';
import { completeIdempotencyKey } from '../idempotency/service.ts';

/** The header naming a stream offered in this process. */
const OFFERED_HEADER = 'x-offered-stream';

type OpenStream = (created: CreatedGeneration) => ResponseStream;
const offered = new Map<string, OpenStream>();

/**
 * Offers a stream to the text request about to be made in-process: the headers to make it with,
 * and `withdraw` to call once it has been answered.
 */
export function offerStream(open: OpenStream): { headers: Record<string, string>; withdraw(): void } {
  const name = randomUUID();
  offered.set(name, open);
  return { headers: { [OFFERED_HEADER]: name }, withdraw: () => offered.delete(name) };
}

/** The body of an error event: the error answer's body. */
function errorEvent(err: unknown): { error: { code: string; message: string } } {
  return err instanceof AppError
    ? { error: { code: err.code, message: err.message } }
    : { error: { code: 'internal_error', message: 'Internal error' } };
}

/**
 * The native stream: `event: delta` `{text}` as the first choice's text comes, then `event: done`
 * with the usual answer, or `event: error` with an error body once the text has started.
 */
function nativeStream(request: FastifyRequest, reply: FastifyReply, created: CreatedGeneration): ResponseStream {
  const events = new EventStream(reply, { 'x-generation-id': created.id });
  return {
    sink: {
      gone: events.gone,
      chunk(chunk) {
        const content = chunk.choices.find((c) => c.index === 0)?.delta.content;
        if (typeof content === 'string' && content !== '') events.write({ text: content }, 'delta');
      },
    },
    async end(answer) {
      try {
        const done = await answer;
        events.write(done, 'done');
        // The stream's answer is not sent through Fastify: an Idempotency-Key keeps it here (its
        // replay is this JSON answer).
        const claim = request.idempotency;
        if (claim && !claim.completed) {
          claim.completed = true;
          await completeIdempotencyKey(request.server.deps.pool, claim, 200, JSON.stringify(done)).catch(
            (err: unknown) => request.log.warn({ err }, 'could not store the Idempotency-Key response'),
          );
        }
      } catch (err) {
        if (!events.started && !events.gone.aborted) throw err;
        events.write(errorEvent(err), 'error');
      }
      events.end();
      return reply;
    },
  };
}

/** The stream a text request asks for: one offered in this process, the native one, or none. */
export function textStream(
  request: FastifyRequest,
  reply: FastifyReply,
  body: { stream?: boolean },
  created: CreatedGeneration,
): ResponseStream | undefined {
  const name = request.headers[OFFERED_HEADER];
  const open = typeof name === 'string' ? offered.get(name) : undefined;
  if (open) return open(created);
  return body.stream === true ? nativeStream(request, reply, created) : undefined;
}
