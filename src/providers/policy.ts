// The failure policy, one place for every provider: what happens after a vendor failed an item.
// Pure decisions; the engine records them (item counters, route health, the next job).
import type { ProviderError, ProviderErrorKind } from './types.ts';

/** Kinds that count towards a route's circuit breaker: the route itself is unwell. */
const BREAKER_KINDS: ReadonlySet<ProviderErrorKind> = new Set(['unavailable', 'auth', 'quota']);

/** Kinds that end the item at once: another try, here or elsewhere, would fail the same way. */
const FINAL_KINDS: ReadonlySet<ProviderErrorKind> = new Set(['invalid_input', 'content_policy', 'canceled']);

/** Kinds that tell the user their input was refused (a synchronous endpoint answers 400 for them). */
const REFUSAL_KINDS: ReadonlySet<ProviderErrorKind> = new Set(['invalid_input', 'content_policy']);

/** Where the item stands when its vendor failed it. */
export interface FailureSituation {
  /** The vendor had accepted the job (the failure came by a poll or webhook, not at submit). */
  accepted: boolean;
  /** Failures on the current route before this one. */
  routeFailures: number;
  /** Provider attempts an item gets on one route. */
  maxAttempts: number;
  /** Another configured route that this item has not left yet exists. */
  alternative: boolean;
  /** The current route is cooling down (its breaker opened, possibly with this failure). */
  routeCooling: boolean;
  /**
   * Whether the same route may be tried again (a worker's job; a synchronous request's own run
   * waits only for a Retry-After within `waitLeftMs`, and may still move to another route at once).
   */
  mayRetry: boolean;
  /**
   * For a synchronous request, how long it may still wait (ms): the same route is tried again only
   * when that retry starts within it, and in the request itself only when the vendor said when
   * (Retry-After). Undefined: no request is waiting.
   */
  waitLeftMs?: number;
}

/** The longest a vendor's Retry-After holds an item back before the next try. */
export const MAX_RETRY_DELAY_MS = 10 * 60_000;

export type Decision = { action: 'retry'; delayMs: number } | { action: 'failover' } | { action: 'fail' };

/** Whether a failure of this kind counts towards the route's circuit breaker. */
export function countsTowardsBreaker(error: ProviderError): boolean {
  return BREAKER_KINDS.has(error.kind);
}

/** Whether a failure of this kind (as recorded on an item) is the vendor refusing the input. */
export function isRefusalKind(kind: string | null | undefined): boolean {
  return REFUSAL_KINDS.has(kind as ProviderErrorKind);
}

/**
 * Decides what follows a vendor failure:
 * - `invalid_input`, `content_policy` and `canceled` fail the item (nothing else would do better);
 * - another route is tried for kinds that allow it, but once a vendor accepted the job only for an
 *   infrastructure failure (`unavailable`): anything else it said is its answer to this input;
 * - a route that cools down, or a failure that is not retryable there, moves to the next route
 *   at once; otherwise a retryable failure is retried on the same route (after the vendor's
 *   Retry-After) while attempts remain, then the next route is tried;
 * - a synchronous request is retried on its route only after a Retry-After that ends while it may
 *   still wait (a longer one fails over at once, or fails); a Retry-After is capped at
 *   MAX_RETRY_DELAY_MS;
 * - with nothing left, the item fails (and is refunded once, by the engine).
 */
export function decide(error: ProviderError, situation: FailureSituation): Decision {
  const fail = { action: 'fail' } as const;
  if (FINAL_KINDS.has(error.kind)) return fail;
  const mayFailover = error.failover && situation.alternative && (!situation.accepted || error.kind === 'unavailable');
  const delayMs = Math.min(MAX_RETRY_DELAY_MS, Math.max(0, error.retryAfterMs ?? 0));
  const { waitLeftMs } = situation;
  const mayWait =
    waitLeftMs === undefined
      ? situation.mayRetry
      : (situation.mayRetry || error.retryAfterMs !== undefined) && delayMs < waitLeftMs;
  if (!mayWait) return mayFailover ? { action: 'failover' } : fail;
  if (mayFailover && (situation.routeCooling || !error.retryable)) return { action: 'failover' };
  if (error.retryable && situation.routeFailures + 1 < situation.maxAttempts) return { action: 'retry', delayMs };
  if (mayFailover) return { action: 'failover' };
  return fail;
}

/** Replaces every secret in a vendor's message (keys must never reach a status record or a log). */
export function redact(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}
