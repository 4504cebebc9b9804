/** Every machine-readable error code the API answers with, mapped to its HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  influencer_not_ready: 400,
  model_not_found: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  forbidden: 403,
  not_found: 404,
  idempotency_conflict: 409,
  generation_finished: 409,
  // A resource the admin API lists but may not change (a credential set by the environment).
  read_only: 409,
  gone: 410,
  payload_too_large: 413,
  media_rejected: 422,
  idempotency_mismatch: 422,
  rate_limited: 429,
  generation_failed: 500,
  internal_error: 500,
  service_unavailable: 503,
  // The model is in the catalog, but this deployment has no provider for it (not the request's fault).
  model_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  field: string;
  message: string;
}

/** Machine-readable figures an error carries beside its message (`insufficient_credits`: the credits). */
export interface ErrorFigures {
  /** The credits the request needs. */
  needed?: number;
  /** The credits the team has. */
  available?: number;
}

/** The one error type services throw; the app's error handler turns it into the JSON body. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly figures: ErrorFigures | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    details?: ErrorDetail[],
    headers?: Record<string, string>,
    figures?: ErrorFigures,
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.headers = headers;
    this.figures = figures;
  }

  get statusCode(): number {
    return ERROR_STATUS[this.code];
  }
}

/** Shorthand for the 400 raised by a rule that a schema cannot express. */
export function invalidField(field: string, message: string): AppError {
  return new AppError('invalid_request', `${field}: ${message}`, [{ field, message }]);
}

/** The 402 of a team whose balance is short of what a request costs. */
export function insufficientCredits(needed: number, available: number): AppError {
  return new AppError(
    'insufficient_credits',
    `This needs ${needed} credits and the team has ${available}. Buy credits with POST /api/v1/billing/top-up.`,
    undefined,
    undefined,
    { needed, available },
  );
}

/** Shorthand for a 404 naming the kind of resource. */
export function notFound(kind: string, id?: string): AppError {
  return new AppError('not_found', id === undefined ? `${kind} not found` : `${kind} '${id}' not found`);
}

/** What went wrong with a piece of work, in terms the failure policy acts on. */
export type WorkErrorKind =
  | 'invalid_input'
  | 'content_policy'
  | 'auth'
  | 'quota'
  | 'rate_limited'
  | 'unavailable'
  | 'timeout'
  | 'canceled'
  | 'internal';

// Kinds for which another route (another vendor) may be tried: the vendor, not the input, failed.
const FAILOVER_KINDS: ReadonlySet<WorkErrorKind> = new Set(['auth', 'quota', 'rate_limited', 'unavailable', 'timeout']);

export interface WorkErrorOptions {
  /** Default: `unavailable` when retryable, `internal` otherwise. */
  kind?: WorkErrorKind;
  /** Whether another route may serve the work instead; default by kind. */
  failover?: boolean;
  /** When to try again (a vendor's Retry-After, or work that is not ready yet). */
  retryAfterMs?: number;
  /**
   * A submit that may have reached the vendor though its answer was lost (a connection cut after
   * the request was sent, a timeout): the job may be running, so it is not sent again.
   */
  maybeAccepted?: boolean;
}

/**
 * A failure of a piece of work (a media conversion, a render, a vendor call); `retryable` failures
 * are tried again by the job queue. A vendor's failure is a ProviderError, which adds the vendor's
 * own code.
 */
export class WorkError extends Error {
  readonly retryable: boolean;
  readonly kind: WorkErrorKind;
  readonly failover: boolean;
  readonly retryAfterMs: number | undefined;
  readonly maybeAccepted: boolean;

  constructor(message: string, retryable: boolean, options: WorkErrorOptions = {}) {
    super(message);
    this.name = 'WorkError';
    this.retryable = retryable;
    this.kind = options.kind ?? (retryable ? 'unavailable' : 'internal');
    this.failover = options.failover ?? FAILOVER_KINDS.has(this.kind);
    this.retryAfterMs = options.retryAfterMs;
    this.maybeAccepted = options.maybeAccepted ?? false;
  }
}
