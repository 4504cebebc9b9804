// Per-team request rate limits, as token buckets held in the process: a bucket holds up to a
// burst of requests and refills at the limit's steady rate. Each API process keeps its own
// buckets (the hot path asks no database), so N API processes allow a team up to N times the
// rate; a limit of 0 turns that bucket off.

/** The share of a minute's allowance a team may spend at once: ten seconds' worth. */
const BURST_SECONDS = 10;

/** Past this many buckets, full (idle) ones are dropped: they are the same as no bucket. */
const SWEEP_AT = 10_000;

/** What a request over the limit is told. */
export interface RateLimited {
  /** Whole seconds to wait before the next request can pass (at least 1). */
  retryAfterSeconds: number;
  /** Which limit was reached. */
  limit: 'requests' | 'writes';
  perMinute: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

class TokenBuckets {
  readonly perMinute: number;
  readonly #capacity: number;
  readonly #perMs: number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(perMinute: number) {
    this.perMinute = perMinute;
    this.#capacity = Math.max(1, Math.ceil((perMinute * BURST_SECONDS) / 60));
    this.#perMs = perMinute / 60_000;
  }

  /** The bucket of `key`, refilled up to `now`. */
  current(key: string, now: number): Bucket {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      if (this.#buckets.size >= SWEEP_AT) this.#sweep(now);
      bucket = { tokens: this.#capacity, updatedAt: now };
      this.#buckets.set(key, bucket);
    } else if (now > bucket.updatedAt) {
      bucket.tokens = Math.min(this.#capacity, bucket.tokens + (now - bucket.updatedAt) * this.#perMs);
      bucket.updatedAt = now;
    }
    return bucket;
  }

  /** What a request refused by this limit is told: whole seconds until a token is back. */
  refusal(limit: RateLimited['limit'], bucket: Bucket): RateLimited {
    const waitMs = (1 - bucket.tokens) / this.#perMs;
    return { limit, perMinute: this.perMinute, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  #sweep(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.#perMs >= this.#capacity) this.#buckets.delete(key);
    }
  }
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Two limits per team: every API request, and, among them, the writes (POST, PUT, PATCH,
 * DELETE: the requests that create work or records). A request takes a token from each bucket
 * it counts against, and only when all of them have one: a refused request costs nothing.
 */
export class TeamRateLimiter {
  readonly #requests: TokenBuckets | undefined;
  readonly #writes: TokenBuckets | undefined;

  constructor(limits: { requestsPerMinute: number; writesPerMinute: number }) {
    this.#requests = limits.requestsPerMinute > 0 ? new TokenBuckets(limits.requestsPerMinute) : undefined;
    this.#writes = limits.writesPerMinute > 0 ? new TokenBuckets(limits.writesPerMinute) : undefined;
  }

  /** Takes one request of `teamId`; undefined when it may pass, else how long to wait. */
  take(teamId: string, method: string, now = performance.now()): RateLimited | undefined {
    const writeLimit = WRITE_METHODS.has(method) ? this.#writes : undefined;
    const writes = writeLimit?.current(teamId, now);
    const requests = this.#requests?.current(teamId, now);
    if (writeLimit && writes && writes.tokens < 1) return writeLimit.refusal('writes', writes);
    if (this.#requests && requests && requests.tokens < 1) return this.#requests.refusal('requests', requests);
    if (requests) requests.tokens -= 1;
    if (writes) writes.tokens -= 1;
    return undefined;
  }
}
