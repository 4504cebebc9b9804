// A text/event-stream answer that starts when its first event is written: until then the request
// may still be answered as usual (an error before any text is an ordinary error answer). It takes
// the reply over from Fastify when it starts, and says when the client went away.
import type { FastifyReply } from 'fastify';

export class EventStream {
  private readonly reply: FastifyReply;
  private readonly headers: Record<string, string>;
  private readonly left = new AbortController();
  private begun = false;

  constructor(reply: FastifyReply, headers: Record<string, string> = {}) {
    this.reply = reply;
    this.headers = headers;
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) this.left.abort();
    });
  }

  /** Aborts when the client closed the connection before the answer was complete. */
  get gone(): AbortSignal {
    return this.left.signal;
  }

  /** Whether the stream's headers went out (the answer can no longer be an ordinary one). */
  get started(): boolean {
    return this.begun;
  }

  /** Writes one event (`data` as JSON unless a string), starting the stream if it has not started. */
  write(data: unknown, event?: string): void {
    if (this.gone.aborted) return;
    if (!this.begun) {
      this.begun = true;
      this.reply.hijack();
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(this.reply.getHeaders())) {
        if (typeof value === 'string' || typeof value === 'number') headers[name] = String(value);
      }
      this.reply.raw.writeHead(200, {
        ...headers,
        ...this.headers,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      });
      // The headers go out with the first event, in one write.
    }
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    this.reply.raw.write(`${event ? `event: ${event}\n` : ''}data: ${text}\n\n`);
  }

  /** Ends the stream (started by then: a stream ends with an event). */
  end(): void {
    if (this.begun && !this.reply.raw.writableEnded) this.reply.raw.end();
    else if (!this.begun && this.gone.aborted) {
      // Nobody to answer.
      this.reply.hijack();
      this.reply.raw.destroy();
    }
  }
}
