// The fetch every request goes through: the API key, an Idempotency-Key on every POST (the same
// one on each retry of it, so a retried request whose first answer was lost is never charged
// twice), a timeout per attempt, and retries with backoff on network errors, 408, 409 (a request
// with the same key still in flight), 429 and 5xx, honouring Retry-After.
import { ConnectionError, retryAfterSeconds, TimeoutError } from './errors.js';
import { sleep } from './util.js';

export interface TransportOptions {
  apiKey: string;
  /** The fetch to use (globalThis.fetch by default). */
  fetch: typeof fetch;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Per attempt, in milliseconds. */
  timeoutMs: number;
  /** Longest wait between attempts, in milliseconds (a longer Retry-After is honoured up to it). */
  maxRetryDelayMs: number;
  /** Sent as User-Agent where the runtime allows it (not in browsers). */
  userAgent?: string;
}

/** A new Idempotency-Key. */
export function newIdempotencyKey(): string {
  return `sdk_${globalThis.crypto.randomUUID()}`;
}

// 409 is retried only for idempotency_conflict (the first request is still running); a
// generation that had already finished answers 409 too, and asking again changes nothing.
const RETRIED_STATUSES = new Set([408, 409, 429, 500, 502, 503, 504]);

/** Whether an answer is worth asking again (its body is read from a clone, not consumed). */
async function isRetryable(response: Response): Promise<boolean> {
  if (!RETRIED_STATUSES.has(response.status)) return false;
  if (response.status !== 409 && response.status !== 500 && response.status !== 503) return true;
  const code = await response
    .clone()
    .json()
    .then((body: { error?: { code?: string } }) => body?.error?.code)
    .catch(() => undefined);
  // A 500 generation_failed is the generation's outcome (refunded), not a fault to retry.
  if (response.status === 500) return code !== 'generation_failed';
  // A model this deployment cannot make stays so until its operator changes that.
  if (response.status === 503) return code !== 'model_unavailable';
  return code === 'idempotency_conflict';
}

/** The delay before retry number `retry` (1-based): Retry-After when given, else exponential with jitter. */
function retryDelayMs(retry: number, response: Response | undefined, maxMs: number): number {
  const asked = retryAfterSeconds(response?.headers);
  if (asked !== undefined) return Math.min(maxMs, asked * 1000);
  const base = Math.min(maxMs, 500 * 2 ** (retry - 1));
  return base * (0.75 + Math.random() * 0.5);
}

/** A fetch for openapi-fetch (it passes a Request) that adds the key, the Idempotency-Key and retries. */
export function createTransport(options: TransportOptions): (request: Request) => Promise<Response> {
  return async (original: Request) => {
    const headers = new Headers(original.headers);
    headers.set('authorization', `Bearer ${options.apiKey}`);
    if (original.method === 'POST' && !headers.has('idempotency-key'))
      headers.set('idempotency-key', newIdempotencyKey());
    if (options.userAgent && typeof window === 'undefined') headers.set('user-agent', options.userAgent);
    // One Request holding the body; each attempt sends a clone of it.
    const request = new Request(original, { headers });
    const callerSignal = original.signal;
    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout(options.timeoutMs);
      const signal = AbortSignal.any([callerSignal, timeout]);
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await options.fetch(new Request(request.clone(), { signal }));
      } catch (err) {
        if (callerSignal.aborted) throw callerSignal.reason;
        failure = timeout.aborted
          ? new TimeoutError(`${original.method} ${original.url} got no answer within ${options.timeoutMs} ms`)
          : new ConnectionError(`${original.method} ${original.url} failed: ${(err as Error).message}`, { cause: err });
      }
      const retryable = response ? await isRetryable(response) : true;
      if (!retryable || attempt >= options.maxRetries) {
        if (response) return response;
        throw failure;
      }
      // The answer is dropped: release its connection before waiting.
      await response?.body?.cancel().catch(() => undefined);
      await sleep(retryDelayMs(attempt + 1, response, options.maxRetryDelayMs), callerSignal);
    }
  };
}
