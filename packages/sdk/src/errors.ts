// The SDK's errors: one class per error code the API answers with (so `catch` can tell them apart
// with `instanceof`), and the errors of the client itself (network, timeout, a failed generation).
import type { components } from './schema.js';

/** The error body every API error has. */
export type ErrorBody = components['schemas']['Error'];
/** Every machine-readable error code of the API. */
export type ErrorCode = ErrorBody['error']['code'];
/** One invalid field of a 400 `invalid_request`. */
export type ErrorDetail = NonNullable<ErrorBody['error']['details']>[number];

/** Every error the SDK throws extends this. */
export class GenMediaError extends Error {
  override name = 'GenMediaError';
}

/** What the API answered with an error status. */
export interface ApiErrorInit {
  status: number;
  /** The API's code; `unknown` when the answer was not the API's JSON error (a proxy's page). */
  code: ErrorCode | 'unknown';
  message: string;
  details?: ErrorDetail[];
  requestId?: string;
  headers?: Headers;
  body?: unknown;
}

/** An error answer of the API; its subclass names the code. */
export class ApiError extends GenMediaError {
  override name = 'ApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The API's error code. */
  readonly code: ErrorCode | 'unknown';
  /** One entry per invalid field (400 `invalid_request`). */
  readonly details: ErrorDetail[];
  /** The request id (`x-request-id`) to quote when reporting a problem. */
  readonly requestId: string | undefined;
  /** The answer's headers. */
  readonly headers: Headers | undefined;
  /** The answer's body as received. */
  readonly body: unknown;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.headers = init.headers;
    this.body = init.body;
  }
}

/** Seconds a Retry-After header asks to wait (seconds or an HTTP date); undefined without one. */
export function retryAfterSeconds(headers: Headers | undefined): number | undefined {
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

/** 400 `invalid_request`: a field is missing or wrong; `details` names each. */
export class InvalidRequestError extends ApiError {
  override name = 'InvalidRequestError';
}
/** 400 `influencer_not_ready`: the influencer is still training. */
export class InfluencerNotReadyError extends ApiError {
  override name = 'InfluencerNotReadyError';
}
/** 400 `model_not_found`: no such model for this endpoint. */
export class ModelNotFoundError extends ApiError {
  override name = 'ModelNotFoundError';
}
/** 401 `unauthorized`: the API key is missing, wrong or revoked. */
export class UnauthorizedError extends ApiError {
  override name = 'UnauthorizedError';
}
/** 402 `insufficient_credits`: the team's balance is short; `needed` and `available` say by how much. */
export class InsufficientCreditsError extends ApiError {
  override name = 'InsufficientCreditsError';
  /** The credits the request needs. */
  readonly needed: number | undefined;
  /** The credits the team has. */
  readonly available: number | undefined;

  constructor(init: ApiErrorInit) {
    super(init);
    const error = (init.body as Partial<ErrorBody> | undefined)?.error;
    this.needed = typeof error?.needed === 'number' ? error.needed : undefined;
    this.available = typeof error?.available === 'number' ? error.available : undefined;
  }
}
/** 403 `forbidden`: the resource (a workspace) belongs to another team. */
export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
}
/** 404 `not_found`. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/** 409 `idempotency_conflict`: a request with the same Idempotency-Key is still in flight. */
export class IdempotencyConflictError extends ApiError {
  override name = 'IdempotencyConflictError';
}
/** 409 `generation_finished`: the generation had already finished (a cancel came too late). */
export class GenerationFinishedError extends ApiError {
  override name = 'GenerationFinishedError';
}
/** 410 `gone`: the file was deleted at the end of its retention. */
export class GoneError extends ApiError {
  override name = 'GoneError';
}
/** 413 `payload_too_large`. */
export class PayloadTooLargeError extends ApiError {
  override name = 'PayloadTooLargeError';
}
/** 422 `media_rejected`: an uploaded or linked file was refused; the message says why. */
export class MediaRejectedError extends ApiError {
  override name = 'MediaRejectedError';
}
/** 422 `idempotency_mismatch`: the Idempotency-Key was used before with another body. */
export class IdempotencyMismatchError extends ApiError {
  override name = 'IdempotencyMismatchError';
}
/** 429 `rate_limited`: too many requests; `retryAfter` says how long to wait. */
export class RateLimitedError extends ApiError {
  override name = 'RateLimitedError';
  /** Seconds to wait before trying again. */
  readonly retryAfter: number | undefined;

  constructor(init: ApiErrorInit) {
    super(init);
    this.retryAfter = retryAfterSeconds(init.headers);
  }
}
/** 500 `generation_failed`: a synchronous generation failed (its credits were refunded). */
export class GenerationFailedError extends ApiError {
  override name = 'GenerationFailedError';
}
/** 500 `internal_error`: a fault of the service; quote `requestId`. */
export class InternalError extends ApiError {
  override name = 'InternalError';
}
/** 503 `service_unavailable`: the service cannot reach its database right now; `retryAfter`. */
export class ServiceUnavailableError extends ApiError {
  override name = 'ServiceUnavailableError';
  /** Seconds to wait before trying again. */
  readonly retryAfter: number | undefined;

  constructor(init: ApiErrorInit) {
    super(init);
    this.retryAfter = retryAfterSeconds(init.headers);
  }
}

/**
 * 503 `model_unavailable`: no provider this deployment has configured can make the model (and the
 * built-in simulator may not stand in for it); retrying does not help until the operator changes that.
 */
export class ModelUnavailableError extends ApiError {
  override name = 'ModelUnavailableError';
}

/**
 * 409 `read_only`: the thing named cannot be changed this way (a vendor key set by the service's
 * environment is changed there, and the service restarted).
 */
export class ReadOnlyError extends ApiError {
  override name = 'ReadOnlyError';
}

// Every code has its class: a code the API adds fails the SDK's build until it has one.
const ERROR_CLASSES: Record<ErrorCode, new (init: ApiErrorInit) => ApiError> = {
  invalid_request: InvalidRequestError,
  influencer_not_ready: InfluencerNotReadyError,
  model_not_found: ModelNotFoundError,
  unauthorized: UnauthorizedError,
  insufficient_credits: InsufficientCreditsError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  idempotency_conflict: IdempotencyConflictError,
  generation_finished: GenerationFinishedError,
  gone: GoneError,
  payload_too_large: PayloadTooLargeError,
  media_rejected: MediaRejectedError,
  idempotency_mismatch: IdempotencyMismatchError,
  rate_limited: RateLimitedError,
  generation_failed: GenerationFailedError,
  internal_error: InternalError,
  service_unavailable: ServiceUnavailableError,
  model_unavailable: ModelUnavailableError,
  read_only: ReadOnlyError,
};

function isErrorBody(body: unknown): body is ErrorBody {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

/** The error for an API answer with an error status. */
export function errorFromResponse(response: Response, body: unknown): ApiError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (isErrorBody(body)) {
    const code = body.error.code;
    const ErrorClass = Object.hasOwn(ERROR_CLASSES, code) ? ERROR_CLASSES[code] : ApiError;
    return new ErrorClass({
      status: response.status,
      code: Object.hasOwn(ERROR_CLASSES, code) ? code : 'unknown',
      message: body.error.message,
      details: body.error.details,
      requestId,
      headers: response.headers,
      body,
    });
  }
  // Not the API's JSON (a proxy's error page): the status is all there is.
  const init: ApiErrorInit = {
    status: response.status,
    code: 'unknown',
    message: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
    requestId,
    headers: response.headers,
    body,
  };
  if (response.status === 429) return new RateLimitedError(init);
  if (response.status === 503) return new ServiceUnavailableError(init);
  return new ApiError(init);
}

/** The request could not reach the service, or its answer was cut off. */
export class ConnectionError extends GenMediaError {
  override name = 'ConnectionError';
}

/** A request, or a wait for a generation, took longer than its timeout. */
export class TimeoutError extends GenMediaError {
  override name = 'TimeoutError';
}

/** A generation that `run` waited for ended `failed`; `generation` is its status record. */
export class FailedGenerationError extends GenMediaError {
  override name = 'FailedGenerationError';
  /** The final status record. */
  readonly generation: components['schemas']['GenerationStatus'];

  constructor(generation: components['schemas']['GenerationStatus']) {
    const reason = generation.items.find((item) => item.error)?.error;
    super(`Generation ${generation.generation_id} failed${reason ? `: ${reason}` : ''}`);
    this.generation = generation;
  }
}

/** A webhook whose signature, timestamp or body did not verify. */
export class WebhookVerificationError extends GenMediaError {
  override name = 'WebhookVerificationError';
}
