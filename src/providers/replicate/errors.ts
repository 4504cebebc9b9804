import { retryAfterMs } from '../fal/errors.ts';
import { ProviderError } from '../types.ts';

// What a model's own safety checker says when it refuses (cog models raise "NSFW content detected",
// Replicate's platform filter says "flagged as sensitive" with code E005).
const CONTENT_POLICY =
  /\bnsfw\b|flagged as sensitive|\(E005\)|safety (checker|filter|system)|content (policy|moderation)/i;

interface InvalidField {
  field?: unknown;
  description?: unknown;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Replicate's `invalid_fields` (`[{type, field, description}]`) as `field: description; …`. */
export function describeInvalidFields(fields: unknown): string | undefined {
  if (!Array.isArray(fields)) return undefined;
  const parts = (fields as InvalidField[]).slice(0, 10).map((issue) => {
    const field = typeof issue.field === 'string' ? issue.field : '';
    const description = typeof issue.description === 'string' ? issue.description : 'is invalid';
    return field ? `${field}: ${description}` : description;
  });
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/**
 * The ProviderError for a Replicate answer that is not a success (problem details: `title`,
 * `detail`, `status`, `invalid_fields`): 400/422 the input, 401/403 our token, 402 the account's
 * credit, 404 a model or version this account cannot run (another route may), 429 a rate limit
 * (Retry-After), 5xx Replicate's infrastructure; anything else unexpected.
 */
export function replicateHttpError(status: number, headers: Headers, bodyText: string): ProviderError {
  const body = parseJson(bodyText);
  const fields = describeInvalidFields(body?.invalid_fields);
  const detail = typeof body?.detail === 'string' && body.detail.trim() !== '' ? body.detail.trim() : undefined;
  const title = typeof body?.title === 'string' ? body.title : undefined;
  const said = fields ?? detail ?? title;
  const vendorCode = String(status);
  const message = (what: string) => `Replicate ${what}${said ? `: ${said}` : ''} (HTTP ${status})`;
  if (status === 422 || status === 400) {
    const policy = CONTENT_POLICY.test(`${detail ?? ''} ${title ?? ''}`);
    return new ProviderError(message(policy ? 'refused the content' : 'refused the input'), false, {
      kind: policy ? 'content_policy' : 'invalid_input',
      vendorCode,
    });
  }
  if (status === 401 || status === 403) {
    return new ProviderError(message('refused our token'), false, { kind: 'auth', vendorCode });
  }
  if (status === 402) {
    return new ProviderError(message('says the account has no credit left'), false, { kind: 'quota', vendorCode });
  }
  if (status === 404) {
    // The model or version is gone or private to another account: this route cannot serve it,
    // another may.
    return new ProviderError(message('does not know the model or prediction'), false, {
      kind: 'internal',
      failover: true,
      vendorCode,
    });
  }
  if (status === 429) {
    return new ProviderError(message('is rate limiting us'), true, {
      kind: 'rate_limited',
      retryAfterMs: retryAfterMs(headers.get('retry-after')),
      vendorCode,
    });
  }
  if (status >= 500) {
    return new ProviderError(message('is unavailable'), true, {
      kind: 'unavailable',
      retryAfterMs: retryAfterMs(headers.get('retry-after')),
      vendorCode,
    });
  }
  return new ProviderError(message('answered unexpectedly'), false, { kind: 'internal', vendorCode });
}

/** What a prediction's `error` says, whatever its shape (a string, usually). */
function errorText(error: unknown): string {
  if (typeof error === 'string' && error.trim() !== '') return error.trim();
  if (error && typeof error === 'object') {
    const said = error as { detail?: unknown; message?: unknown };
    const detail = said.detail ?? said.message;
    return typeof detail === 'string' ? detail : JSON.stringify(error);
  }
  return 'the prediction failed';
}

/**
 * The ProviderError for a prediction that ended `failed`: a safety refusal is final
 * (`content_policy`); anything else is taken as the model's infrastructure (retryable).
 */
export function failedPredictionError(error: unknown): ProviderError {
  const text = errorText(error);
  if (CONTENT_POLICY.test(text)) {
    return new ProviderError(`Replicate refused the content: ${text}`, false, {
      kind: 'content_policy',
      vendorCode: 'failed',
    });
  }
  return new ProviderError(`Replicate failed the prediction: ${text}`, true, {
    kind: 'unavailable',
    vendorCode: 'failed',
  });
}

/** A prediction that ended `canceled` (by us, or by its deadline once it had started). */
export function canceledPredictionError(): ProviderError {
  return new ProviderError('Replicate canceled the prediction', false, { kind: 'canceled', vendorCode: 'canceled' });
}

/** A prediction that ended `aborted`: its deadline passed before it started (not billed). */
export function abortedPredictionError(): ProviderError {
  return new ProviderError('Replicate aborted the prediction before it could start', true, {
    kind: 'unavailable',
    vendorCode: 'aborted',
  });
}
