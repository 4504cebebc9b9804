import { ProviderError } from '../types.ts';

/** The time a Retry-After header asks for, in ms (seconds or an HTTP date); undefined when absent. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

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

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The ProviderError for a fal answer that is not a success: 422 is the input (the vendor's own
 * words), 401/403 our key, 402 the account's balance, 429 a rate limit (Retry-After), a 504 that
 * says the caller's own timeout ran out is final, other 5xx are fal's infrastructure
 * (`X-Fal-Error-Type`, retryable), anything else unexpected.
 */
export function falHttpError(status: number, headers: Headers, bodyText: string): ProviderError {
  const body = parseJson(bodyText);
  const detail = describeDetail(body?.detail);
  const errorType =
    headers.get('x-fal-error-type') ?? (typeof body?.error_type === 'string' ? body.error_type : undefined);
  const said = detail ?? (typeof body?.message === 'string' ? body.message : undefined);
  const vendorCode = errorType ? `${status} ${errorType}` : String(status);
  const message = (what: string) => `fal.ai ${what}${said ? `: ${said}` : ''} (HTTP ${status})`;
  if (status === 422 || status === 400) {
    const policy = errorType === 'content_policy_violation' || /content.?policy|nsfw/i.test(said ?? '');
    return new ProviderError(message(policy ? 'refused the content' : 'refused the input'), false, {
      kind: policy ? 'content_policy' : 'invalid_input',
      vendorCode,
    });
  }
  if (status === 401 || status === 403) {
    return new ProviderError(message('refused our credentials'), false, { kind: 'auth', vendorCode });
  }
  if (status === 402) {
    return new ProviderError(message('says the account has no balance left'), false, { kind: 'quota', vendorCode });
  }
  if (status === 429) {
    return new ProviderError(message('is rate limiting us'), true, {
      kind: 'rate_limited',
      retryAfterMs: retryAfterMs(headers.get('retry-after')),
      vendorCode,
    });
  }
  if (status === 504 && headers.get('x-fal-request-timeout-type') === 'user') {
    // Our own x-fal-request-timeout ran out: trying again would run out again.
    return new ProviderError(message('stopped the job at the requested timeout'), false, {
      kind: 'timeout',
      failover: false,
      vendorCode,
    });
  }
  if (status >= 500) {
    const timeout = status === 504 || errorType === 'request_timeout';
    return new ProviderError(message(timeout ? 'timed out' : 'is unavailable'), true, {
      kind: timeout ? 'timeout' : 'unavailable',
      retryAfterMs: retryAfterMs(headers.get('retry-after')),
      vendorCode,
    });
  }
  return new ProviderError(message('answered unexpectedly'), false, { kind: 'internal', vendorCode });
}
