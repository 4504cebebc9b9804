// Errors of the OpenAI-compatible door, in OpenAI's shape `{error: {message, type, param, code}}`.
// Errors are raised as everywhere else (AppError, Fastify's own) and answered by the app's one
// error handler; a preSerialization hook of the door's routes then turns that body into OpenAI's,
// by the one table below. Only what has no code of ours (a wait that ran out) is a DoorError.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../app-types.ts';
import { AppError, ERROR_STATUS, type ErrorCode, type ErrorDetail } from '../../lib/errors.ts';

/** How each of our error codes reaches an OpenAI client: status, OpenAI `type` and `code`. */
const OPENAI_ERRORS: Record<ErrorCode, { status: number; type: string; code: string | null }> = {
  invalid_request: { status: 400, type: 'invalid_request_error', code: null },
  influencer_not_ready: { status: 400, type: 'invalid_request_error', code: 'influencer_not_ready' },
  model_not_found: { status: 400, type: 'invalid_request_error', code: 'model_not_found' },
  unauthorized: { status: 401, type: 'invalid_request_error', code: 'invalid_api_key' },
  // OpenAI's answer to an account without quota; clients know it (and our x-should-retry stops retries).
  insufficient_credits: { status: 429, type: 'insufficient_quota', code: 'insufficient_quota' },
  forbidden: { status: 403, type: 'invalid_request_error', code: 'forbidden' },
  not_found: { status: 404, type: 'invalid_request_error', code: 'not_found' },
  idempotency_conflict: { status: 409, type: 'invalid_request_error', code: 'idempotency_conflict' },
  generation_finished: { status: 409, type: 'invalid_request_error', code: 'generation_finished' },
  read_only: { status: 409, type: 'invalid_request_error', code: 'read_only' },
  gone: { status: 410, type: 'invalid_request_error', code: 'gone' },
  payload_too_large: { status: 413, type: 'invalid_request_error', code: 'payload_too_large' },
  media_rejected: { status: 422, type: 'invalid_request_error', code: 'media_rejected' },
  idempotency_mismatch: { status: 422, type: 'invalid_request_error', code: 'idempotency_mismatch' },
  rate_limited: { status: 429, type: 'requests', code: 'rate_limit_exceeded' },
  generation_failed: { status: 500, type: 'server_error', code: 'generation_failed' },
  internal_error: { status: 500, type: 'server_error', code: null },
  service_unavailable: { status: 503, type: 'server_error', code: 'service_unavailable' },
  model_unavailable: { status: 503, type: 'server_error', code: 'model_unavailable' },
};

export interface OpenAiErrorPayload {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** An error the door answers itself, with a status no error code of ours has. */
export class DoorError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    type: string,
    code: string | null,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'DoorError';
    this.status = status;
    this.type = type;
    this.code = code;
    this.headers = headers;
  }
}

/** Our error codes: what a native answer's `error.code` may be. */
const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && code in ERROR_STATUS;

interface NativeErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

function isNativeErrorBody(payload: unknown): payload is NativeErrorBody {
  if (typeof payload !== 'object' || payload === null) return false;
  const error = (payload as { error?: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    isErrorCode((error as { code?: unknown }).code) &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/**
 * A native endpoint's error answer as an AppError raised by the door, its fields renamed to the
 * OpenAI request's (`params`: native field → OpenAI field; the longest matching prefix wins).
 */
export function nativeAnswerError(
  status: number,
  body: unknown,
  headers: Record<string, unknown>,
  params: Record<string, string>,
): AppError {
  if (!isNativeErrorBody(body)) {
    return new AppError('internal_error', `The native endpoint answered ${status} without an error body`);
  }
  const rename = (field: string): string => {
    const native = Object.keys(params)
      .filter((name) => field === name || field.startsWith(`${name}.`) || field.startsWith(`${name}[`))
      .sort((a, b) => b.length - a.length)[0];
    return native === undefined ? field : `${params[native]}${field.slice(native.length)}`;
  };
  const details = body.error.details?.map((d) => ({ field: rename(d.field), message: d.message }));
  const retryAfter = headers['retry-after'];
  return new AppError(
    body.error.code,
    body.error.message,
    details,
    typeof retryAfter === 'string' ? { 'retry-after': retryAfter } : undefined,
  );
}

/**
 * The OpenAI error body of an error raised after a stream started (it is sent as the stream's last
 * event, as OpenAI's servers do): an AppError's, or an internal error's.
 */
export function openAiErrorPayload(err: unknown): OpenAiErrorPayload {
  if (err instanceof DoorError) return openAiPayload(err.message, err.type, null, err.code);
  if (!(err instanceof AppError)) return openAiPayload('Internal error', 'server_error', null, null);
  const mapped = OPENAI_ERRORS[err.code];
  return openAiPayload(err.message, mapped.type, err.details?.[0]?.field ?? null, mapped.code);
}

function openAiPayload(message: string, type: string, param: string | null, code: string | null): OpenAiErrorPayload {
  return { error: { message, type, param, code } };
}

/**
 * Answers the door's routes' errors in OpenAI's shape: a DoorError directly, every other error
 * through the app's error handler, whose body is then translated (status, type, code, and the
 * first invalid field as `param`) before it is serialized.
 */
export function installOpenAiErrors(app: App): void {
  app.setErrorHandler((error, _request, reply) => {
    if (!(error instanceof DoorError)) throw error;
    reply.code(error.status).headers(error.headers);
    return openAiPayload(error.message, error.type, null, error.code);
  });

  app.addHook('preSerialization', (_request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    if (reply.statusCode < 400 || !isNativeErrorBody(payload)) {
      done(null, payload);
      return;
    }
    const { code, message, details } = payload.error;
    const mapped = OPENAI_ERRORS[code];
    reply.code(mapped.status);
    // Retrying does not buy credits, nor configure a provider: the official clients honour this header.
    if (code === 'insufficient_credits' || code === 'model_unavailable') reply.header('x-should-retry', 'false');
    done(null, openAiPayload(message, mapped.type, details?.[0]?.field ?? null, mapped.code));
  });
}
