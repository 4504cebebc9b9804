// What every adapter needs around a vendor's HTTP API: what a failed call or an error status means,
// and result files a vendor gives inline as data URLs.
import { type Fetch, type OutputFile, ProviderError } from './types.ts';

// Errors raised before a request left this machine (no connection was made): the vendor cannot
// have seen it, so sending it again is safe.
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function codeOf(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The ProviderError for a call to `vendor` that got no answer: canceled when `signal` stopped it;
 * otherwise retryable `unavailable`, marked `maybeAccepted` unless the request never left (a
 * refused connection, an unknown host), since a vendor that received a submit may have started
 * the job even though its answer was lost.
 */
export function noAnswerError(vendor: string, err: unknown, signal?: AbortSignal | null): ProviderError {
  if (signal?.aborted) return new ProviderError(`The call to ${vendor} was canceled`, false, { kind: 'canceled' });
  const code = codeOf(err);
  const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
  const timedOut = code === 'UND_ERR_CONNECT_TIMEOUT' || (err instanceof Error && err.name === 'TimeoutError');
  return new ProviderError(`${vendor} could not be reached: ${reason}`, true, {
    kind: timedOut ? 'timeout' : 'unavailable',
    vendorCode: code,
    maybeAccepted: !(code && NOT_SENT_CODES.has(code)),
  });
}

const DATA_URL = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)?((?:;[^,;]*)*?)(;base64)?,/i;

/**
 * A result file given inline as a `data:` URL (fal's sync_mode, small Replicate outputs) as bytes;
 * undefined for any other URL.
 */
export function dataUrlFile(url: string): OutputFile | undefined {
  const match = DATA_URL.exec(url);
  if (!match) return undefined;
  const payload = url.slice(match[0].length);
  const data = match[3] ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'utf8');
  return { data, contentType: (match[1] ?? 'text/plain').toLowerCase() };
}

/** The time a Retry-After header asks for, in ms (seconds or an HTTP date); undefined when absent. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A vendor's answer that is not a success, as the adapter read it. */
export interface ErrorAnswer {
  /** The vendor's name as users know it ('fal.ai'). */
  vendor: string;
  status: number;
  headers: Headers;
  /** What the vendor said of it, in its own words. */
  said?: string;
  /** The vendor's own code (the status, with its error type when it gives one). */
  vendorCode?: string;
  /** The vendor says it refused the content (its safety policy), not the shape of the input. */
  policy?: boolean;
}

/**
 * The ProviderError an error status means, alike for every vendor: 400/413/422 the input (or the
 * content, when the vendor says so), 401/403 our credentials, 402 the account's balance, 429 a
 * rate limit with its Retry-After, 5xx the vendor's infrastructure (504 a timeout; retryable),
 * anything else unexpected. Adapters handle their vendor's own cases before calling this.
 */
export function statusError(answer: ErrorAnswer): ProviderError {
  const { vendor, status, headers, said, policy } = answer;
  const vendorCode = answer.vendorCode ?? String(status);
  const message = (what: string) => `${vendor} ${what}${said ? `: ${said}` : ''} (HTTP ${status})`;
  if (status === 400 || status === 413 || status === 422) {
    return new ProviderError(message(policy ? 'refused the content' : 'refused the input'), false, {
      kind: policy ? 'content_policy' : 'invalid_input',
      vendorCode,
    });
  }
  if (status === 401 || status === 403) {
    return new ProviderError(message('refused our credentials'), false, { kind: 'auth', vendorCode });
  }
  if (status === 402) {
    return new ProviderError(message('says the account has no credit left'), false, { kind: 'quota', vendorCode });
  }
  if (status === 429) {
    return new ProviderError(message('is rate limiting us'), true, {
      kind: 'rate_limited',
      retryAfterMs: retryAfterMs(headers.get('retry-after')),
      vendorCode,
    });
  }
  if (status >= 500) {
    return new ProviderError(message(status === 504 ? 'timed out' : 'is unavailable'), true, {
      kind: status === 504 ? 'timeout' : 'unavailable',
      retryAfterMs: retryAfterMs(headers.get('retry-after')),
      vendorCode,
    });
  }
  return new ProviderError(message('answered unexpectedly'), false, { kind: 'internal', vendorCode });
}

/**
 * A provider check from one harmless authenticated GET: reachable on a 2xx answer, otherwise not,
 * with what went wrong (credentials refused, an error status, no answer).
 */
export async function checkByGet(vendor: string, fetch: Fetch, url: string, headers: Record<string, string>) {
  try {
    const response = await fetch(url, { headers });
    await response.arrayBuffer().catch(() => undefined);
    if (response.ok) return { reachable: true, detail: `${vendor} answered with our credentials` };
    const why = response.status === 401 || response.status === 403 ? 'refused our credentials' : 'answered';
    return { reachable: false, detail: `${vendor} ${why} (HTTP ${response.status})` };
  } catch (err) {
    return { reachable: false, detail: noAnswerError(vendor, err).message };
  }
}
