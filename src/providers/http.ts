// What every adapter needs around a vendor's HTTP API: what a failed call means, and result files
// a vendor gives inline as data URLs.
import { type OutputFile, ProviderError } from './types.ts';

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
