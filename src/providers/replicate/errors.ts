import { parseObject } from '../../lib/records.ts';
import { statusError } from '../http.ts';
import { ProviderError } from '../types.ts';

// What a model's own safety checker says when it refuses (cog models raise "NSFW content detected",
// Replicate's platform filter says "flagged as sensitive" with code E005).
const CONTENT_POLICY =
  /\bnsfw\b|flagged as sensitive|\(E005\)|safety (checker|filter|system)|content (policy|moderation)/i;

interface InvalidField {
  field?: unknown;
  description?: unknown;
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
  const body = parseObject(bodyText);
  const fields = describeInvalidFields(body?.invalid_fields);
  const detail = typeof body?.detail === 'string' && body.detail.trim() !== '' ? body.detail.trim() : undefined;
  const title = typeof body?.title === 'string' ? body.title : undefined;
  const said = fields ?? detail ?? title;
  if (status === 404) {
    // The model or version is gone or private to another account: this route cannot serve it,
    // another may.
    return new ProviderError(
      `Replicate does not know the model or prediction${said ? `: ${said}` : ''} (HTTP 404)`,
      false,
      {
        kind: 'internal',
        failover: true,
        vendorCode: '404',
      },
    );
  }
  return statusError({
    vendor: 'Replicate',
    status,
    headers,
    said,
    policy: CONTENT_POLICY.test(`${detail ?? ''} ${title ?? ''}`),
  });
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
