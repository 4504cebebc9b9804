import { parseObject } from '../../lib/records.ts';
import { retryAfterMs, statusError } from '../http.ts';
import { ProviderError } from '../types.ts';

interface ValidationIssue {
  loc?: unknown;
  msg?: unknown;
}

/** fal's 422 `detail`: a list of `{loc, msg}` (FastAPI style) or a plain string. */
export function describeDetail(detail: unknown): string | undefined {
  if (typeof detail === 'string') return detail;
  if (!Array.isArray(detail)) return undefined;
  const parts = (detail as ValidationIssue[]).slice(0, 10).map((issue) => {
    const loc = Array.isArray(issue.loc) ? issue.loc.filter((l) => l !== 'body').join('.') : '';
    const msg = typeof issue.msg === 'string' ? issue.msg : 'is invalid';
    return loc ? `${loc}: ${msg}` : msg;
  });
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/**
 * The ProviderError for a fal answer that is not a success: 422 is the input (the vendor's own
 * words), 401/403 our key, 402 the account's balance, 429 a rate limit (Retry-After), a 504 that
 * says the caller's own timeout ran out is final, other 5xx are fal's infrastructure
 * (`X-Fal-Error-Type`, retryable), anything else unexpected.
 */
export function falHttpError(status: number, headers: Headers, bodyText: string): ProviderError {
  const body = parseObject(bodyText);
  const detail = describeDetail(body?.detail);
  const errorType =
    headers.get('x-fal-error-type') ?? (typeof body?.error_type === 'string' ? body.error_type : undefined);
  const said = detail ?? (typeof body?.message === 'string' ? body.message : undefined);
  const vendorCode = errorType ? `${status} ${errorType}` : String(status);
  if (status === 504 && headers.get('x-fal-request-timeout-type') === 'user') {
    // Our own x-fal-request-timeout ran out: trying again would run out again.
    return new ProviderError(`fal.ai stopped the job at the requested timeout (HTTP 504)`, false, {
      kind: 'timeout',
      failover: false,
      vendorCode,
    });
  }
  if (status >= 500 && errorType === 'request_timeout') {
    // fal names a timeout of its infrastructure by its error type, whatever the status.
    return new ProviderError(`fal.ai timed out${said ? `: ${said}` : ''} (HTTP ${status})`, true, {
      kind: 'timeout',
      retryAfterMs: retryAfterMs(headers.get('retry-after')),
      vendorCode,
    });
  }
  return statusError({
    vendor: 'fal.ai',
    status,
    headers,
    said,
    vendorCode,
    policy: errorType === 'content_policy_violation' || /content.?policy|nsfw/i.test(said ?? ''),
  });
}
