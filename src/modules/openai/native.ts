// The door runs the native endpoints in-process, so that it validates, prices, charges, refunds
// and remembers Idempotency-Keys exactly as they do: the caller's credential, Idempotency-Key,
// request id and address go along, and an error answer comes back as the AppError it was.
import type { FastifyRequest } from 'fastify';
import type { App } from '../../app-types.ts';
import { AppError } from '../../lib/errors.ts';
import { nativeAnswerError } from './errors.ts';

/**
 * POSTs `body` to the native endpoint `path` as the caller, and answers its JSON body; an error
 * answer is raised, its fields renamed by `params` (native field → OpenAI field). `extraHeaders`
 * go along (a stream offered to the native endpoint).
 */
export async function callNative<T>(
  app: App,
  request: FastifyRequest,
  path: string,
  body: unknown,
  params: Record<string, string>,
  extraHeaders: Record<string, string> = {},
): Promise<T> {
  const headers: Record<string, string> = {
    ...extraHeaders,
    'content-type': 'application/json',
    'x-request-id': request.id,
  };
  if (request.headers.authorization) headers.authorization = request.headers.authorization;
  const key = request.headers['idempotency-key'];
  if (typeof key === 'string') headers['idempotency-key'] = key;
  const answer = await app.inject({
    method: 'POST',
    url: path,
    headers,
    payload: JSON.stringify(body),
    // Failed authentications and the like count against the client's address, not ours.
    remoteAddress: request.ip,
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    throw new AppError('internal_error', `${path} answered ${answer.statusCode} with a body that is not JSON`);
  }
  if (answer.statusCode >= 200 && answer.statusCode < 300) return parsed as T;
  throw nativeAnswerError(answer.statusCode, parsed, answer.headers, params);
}
