// Errors that mean "the database cannot be reached right now", as opposed to a query that is wrong,
// and the answer a request gets then.
import { AppError } from '../lib/errors.ts';

// Network failures of the connection itself.
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

// PostgreSQL SQLSTATEs: connection exceptions (08…), the server shutting down or starting
// (57P01-57P03), too many connections (53300), and a statement cancelled by statement_timeout
// (57014), which here means the server is too slow to answer in time.
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

// What pg and pg-pool say when the socket dies, a query times out on our side, or no
// connection can be had in time; they carry no code.
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection ended',
];

/** Whether `err` says the database is down, hung or overloaded (retry later), not that a query is wrong. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08')) return true;
  }
  if (UNAVAILABLE_MESSAGES.some((m) => err.message.startsWith(m))) return true;
  // An AggregateError (several addresses tried) or a wrapped cause.
  if (err instanceof AggregateError) return err.errors.some(isDatabaseUnavailable);
  return err.cause !== undefined && err.cause !== err && isDatabaseUnavailable(err.cause);
}

/**
 * Runs `fn` again while the database is unavailable, with backoff up to `maxMs` in all; any
 * other error, or the database still away after `maxMs`, is thrown. For work that is already
 * done and only needs recording (a finished item), so an outage does not throw the work away.
 */
export async function retryWhileUnavailable<T>(
  fn: () => Promise<T>,
  options: { maxMs: number; onRetry?: (err: unknown, delayMs: number) => void },
): Promise<T> {
  const deadline = Date.now() + options.maxMs;
  let delay = 250;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || Date.now() + delay > deadline) throw err;
      options.onRetry?.(err, delay);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }
}

/** How long a client is told to wait when the database cannot be reached. */
export const DATABASE_RETRY_AFTER_S = 5;

/** The answer to a request that needs the database while it cannot be reached (503, Retry-After). */
export function databaseUnavailable(): AppError {
  return new AppError(
    'service_unavailable',
    `The service cannot reach its database right now; retry in ${DATABASE_RETRY_AFTER_S} s`,
    undefined,
    { 'retry-after': String(DATABASE_RETRY_AFTER_S) },
  );
}
