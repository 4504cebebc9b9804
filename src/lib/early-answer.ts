// Answers given before the request body has fully arrived: a refused upload, a JSON body over
// the limit, a request refused before its body was read. The connection is closed after such an
// answer (the client may be sending a large body nobody will read, and the connection cannot
// carry another request after it), and the close lingers so that the client reads the answer.
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How long a connection answered early goes on reading the rest of the body before it closes. */
const LINGER_MS = 2_000;

/**
 * Closes the connection after an answer given before the whole body arrived, and lets the close
 * linger. Node closes a `Connection: close` socket (through `destroySoon`) as soon as the answer
 * is written; body bytes that arrive after that make the kernel reset the connection, and the
 * reset fails the client's pending write (EPIPE) or throws the answer out of its receive buffer
 * before it was read. Instead the socket half-closes after the answer, reads and discards what is
 * still coming, and closes when the body ends, when the client closes, or after LINGER_MS,
 * whichever is first: the client gets to read the answer.
 */
export function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  const req = request.raw;
  if (req.complete) return;
  reply.header('connection', 'close');
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (typeof socket.destroySoon !== 'function') return;
  socket.destroySoon = () => {
    // Never before the answer itself has been handed to the kernel.
    const close = () => (socket.writableFinished ? socket.destroy() : socket.once('finish', () => socket.destroy()));
    const timer = setTimeout(close, LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.once('end', close);
    req.once('end', close);
    req.once('error', close);
    socket.end();
    req.resume();
  };
}
