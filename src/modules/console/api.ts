// The console does what it shows through the API itself, in-process: a team's pages call /api with
// the key the team signed in with, an operator's call /admin with the admin token. So the console
// can see and do exactly what the API allows that credential, validated and charged alike.
import type { FastifyRequest } from 'fastify';
import type { App } from '../../app-types.ts';
import { CONSOLE_ACTOR_HEADER } from '../live-config/actor.ts';
import type { ConsoleSession } from './session.ts';

export interface ApiAnswer<T> {
  status: number;
  body: T;
  headers: Record<string, unknown>;
}

/** The JSON error body of the API. */
export interface ApiErrorBody {
  error: { code: string; message: string; details?: Array<{ field: string; message: string }> };
}

/** A failed API answer, for the page to show. */
export class ApiCallError extends Error {
  readonly status: number;
  readonly body: ApiErrorBody | undefined;

  constructor(status: number, body: ApiErrorBody | undefined, fallback: string) {
    super(body?.error?.message ?? fallback);
    this.name = 'ApiCallError';
    this.status = status;
    this.body = body;
  }
}

/** The methods the console calls the API with. */
export type ApiMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface CallOptions {
  body?: unknown;
  /** Headers of the API request (Idempotency-Key, Prefer, Accept). */
  headers?: Record<string, string>;
}

/** Calls the API as the session's credential; answers status, parsed body and headers (any status). */
export async function callApi<T>(
  app: App,
  request: FastifyRequest,
  session: ConsoleSession,
  method: ApiMethod,
  path: string,
  options: CallOptions = {},
): Promise<ApiAnswer<T>> {
  const credential = session.kind === 'team' ? session.apiKey : app.deps.adminToken;
  const headers: Record<string, string> = { 'x-request-id': request.id, ...options.headers };
  // What an operator changes here is audited as the console operator's (the admin token is the same).
  if (session.kind !== 'team') headers[CONSOLE_ACTOR_HEADER] = 'operator';
  if (credential) headers.authorization = `Bearer ${credential}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const answer = await app.inject({
    method,
    url: path,
    headers,
    payload: options.body === undefined ? undefined : JSON.stringify(options.body),
    remoteAddress: request.ip,
  });
  let body: unknown = answer.body;
  if (String(answer.headers['content-type'] ?? '').includes('json') && answer.body !== '') {
    body = JSON.parse(answer.body);
  }
  return { status: answer.statusCode, body: body as T, headers: answer.headers };
}

/** Calls the API and answers its body; an error answer is thrown as an ApiCallError. */
export async function api<T>(
  app: App,
  request: FastifyRequest,
  session: ConsoleSession,
  method: ApiMethod,
  path: string,
  options: CallOptions = {},
): Promise<T> {
  const answer = await callApi<T>(app, request, session, method, path, options);
  if (answer.status >= 400) {
    throw new ApiCallError(
      answer.status,
      answer.body as ApiErrorBody | undefined,
      `${method} ${path}: ${answer.status}`,
    );
  }
  return answer.body;
}
