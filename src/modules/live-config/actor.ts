// Who made a change, as its audit row says: the admin token, or an operator in the console (which
// calls the admin API with the same token, and says so in a header of its own).
import type { FastifyRequest } from 'fastify';

/** The header by which the console marks the admin calls an operator makes through it. */
export const CONSOLE_ACTOR_HEADER = 'x-genmedia-console';

/** The actor of an admin request: "console operator" from the console, "admin" otherwise. */
export function actorOf(request: Pick<FastifyRequest, 'headers'>): string {
  return request.headers[CONSOLE_ACTOR_HEADER] === 'operator' ? 'console operator' : 'admin';
}
