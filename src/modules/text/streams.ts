// The streams of text requests: the native endpoint's (`stream: true`), and one another route of
// this process offers for a request it makes in-process (the OpenAI door's chat chunks), found by
// a one-time name in a header only this process knows. The same name takes the item's recorded
// result back to that route (the door's choices), so that it need not read it again.
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SyncResult } from '../../engine/define.ts';
import type { CreatedGeneration, ResponseStream } from '../../engine/types.ts';
import { AppError } from '../../lib/errors.ts';
import { EventStream } from '../../lib/event-stream.ts';
import { completeIdempotencyKey } from '../idempotency/service.ts';

/** The header naming a stream offered in this process. */
const OFFERED_HEADER = 'x-offered-stream';

type OpenStream = (created: CreatedGeneration) => ResponseStream;
interface Offer {
  open?: OpenStream;
  /** The first item's recorded result, once the items ended. */
  result?: Record<string, unknown> | null;
}
const offered = new Map<string, Offer>();

/** What a route of this process offers the text request it is about to make in-process. */
export interface Offered {
  /** The headers to make the request with. */
  headers: Record<string, string>;
  /** The first item's recorded result, when the request ran its item (undefined: a replay). */
  result(): Record<string, unknown> | null | undefined;
  /** To call once the request has been answered. */
  withdraw(): void;
}

/**
 * Offers a stream (or, without `open`, only a place for the item's result) to the text request
 * about to be made in-process.
 */
export function offerStream(open?: OpenStream): Offered {
  const name = randomUUID();
  const offer: Offer = open ? { open } : {};
  offered.set(name, offer);
  return {
    headers: { [OFFERED_HEADER]: name },
    result: () => offer.result,
    withdraw: () => offered.delete(name),
  };
}

/** Hands a text request's first item's result to the route of this process that offered for it. */
export function handOverResult(request: FastifyRequest, result: SyncResult): void {
  const name = request.headers[OFFERED_HEADER];
  const offer = typeof name === 'string' ? offered.get(name) : undefined;
  if (offer) offer.result = result.items[0]?.result ?? null;
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
  const open = typeof name === 'string' ? offered.get(name)?.open : undefined;
  if (open) return open(created);
  return body.stream === true ? nativeStream(request, reply, created) : undefined;
}
