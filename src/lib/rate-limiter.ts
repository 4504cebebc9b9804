// Rate limits as token buckets held in the process: a bucket holds up to a burst and refills at
// the limit's steady rate. Two users: per-team request limits, and failed authentications per
// client address. Each API process keeps its own buckets (the hot path asks no database), so N
// API processes allow up to N times the rate; a limit of 0 turns that bucket off.

/** The share of a minute's allowance a team may spend at once: ten seconds' worth. */
const BURST_SECONDS = 10;

/** Past this many buckets, full (idle) ones are dropped: they are the same as no bucket. */
const SWEEP_AT = 10_000;

/** What a request over the limit is told. */
export interface RateLimited {
  /** Whole seconds to wait before the next request can pass (at least 1). */
  retryAfterSeconds: number;
  /** Which limit was reached. */
  limit: 'requests' | 'writes' | 'failed-auth';
  perMinute: number;
}

interface Bucket {
  /** May go below zero: every failure counted after the check costs its token (see fail()). */
  tokens: number;
  updatedAt: number;
}

export interface TokenBucketOptions {
  perMinute: number;
  /** How many tokens a full bucket holds (at least 1). */
  burst: number;
  /**
   * At most this many buckets: past it, full buckets are dropped and, if that is not enough, the
   * oldest tenth. For keys a client chooses (its address); without it the set is only swept of
   * full buckets, which suits keys the service issues (teams).
   */
  maxKeys?: number;
}

/** Token buckets by key, all with the same rate and burst. */
export class TokenBuckets {
  readonly perMinute: number;
  readonly burst: number;
  readonly #perMs: number;
  readonly #maxKeys: number | undefined;
  readonly #buckets = new Map<string, Bucket>();

  constructor({ perMinute, burst, maxKeys }: TokenBucketOptions) {
    this.perMinute = perMinute;
    this.burst = Math.max(1, burst);
    this.#perMs = perMinute / 60_000;
    this.#maxKeys = maxKeys;
  }

  /** The bucket of `key`, refilled up to `now`; undefined when there is none (a full bucket). */
  peek(key: string, now: number): Bucket | undefined {
    const bucket = this.#buckets.get(key);
    if (bucket && now > bucket.updatedAt) {
      bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.updatedAt) * this.#perMs);
      bucket.updatedAt = now;
    }
    return bucket;
  }

  /** The bucket of `key`, refilled up to `now`; a full one is made when there is none. */
  current(key: string, now: number): Bucket {
    let bucket = this.peek(key, now);
    if (!bucket) {
      if (this.#buckets.size >= (this.#maxKeys ?? SWEEP_AT)) this.#makeRoom(now);
      bucket = { tokens: this.burst, updatedAt: now };
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }

  /** What a request refused by this limit is told: whole seconds until a token is back. */
  refusal(limit: RateLimited['limit'], bucket: Bucket): RateLimited {
    const waitMs = (1 - bucket.tokens) / this.#perMs;
    return { limit, perMinute: this.perMinute, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  #makeRoom(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.#perMs >= this.burst) this.#buckets.delete(key);
    }
    if (this.#maxKeys === undefined || this.#buckets.size < this.#maxKeys) return;
    // Still full of busy buckets: drop the oldest tenth at once, so that the next sweep is that
    // many new keys away rather than one (a sweep reads every bucket).
    let drop = this.#buckets.size - Math.floor(this.#maxKeys * 0.9);
    for (const key of this.#buckets.keys()) {
      if (drop-- <= 0) break;
      this.#buckets.delete(key);
    }
  }
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function teamBuckets(perMinute: number): TokenBuckets | undefined {
  if (perMinute <= 0) return undefined;
  return new TokenBuckets({ perMinute, burst: Math.ceil((perMinute * BURST_SECONDS) / 60) });
}

/**
 * Two limits per team: every API request, and, among them, the writes (POST, PUT, PATCH,
 * DELETE: the requests that create work or records). A request takes a token from each bucket
 * it counts against, and only when all of them have one: a refused request costs nothing.
 */
export class TeamRateLimiter {
  readonly #requests: TokenBuckets | undefined;
  readonly #writes: TokenBuckets | undefined;

  constructor(limits: { requestsPerMinute: number; writesPerMinute: number }) {
    this.#requests = teamBuckets(limits.requestsPerMinute);
    this.#writes = teamBuckets(limits.writesPerMinute);
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

/** The most client addresses whose failed authentications are remembered at once. */
const MAX_ADDRESSES = 10_000;

/**
 * The bucket key of a client address: an IPv4 address itself (also when written IPv4-mapped), an
 * IPv6 address its /64, since one subscriber is usually given a whole /64 and could otherwise
 * take a fresh address, and a fresh bucket, for every attempt.
 */
export function addressKey(ip: string): string {
  if (!ip.includes(':')) return ip;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  const bare = ip.replace(/%.*$/, '').toLowerCase();
  const [head = '', tail] = bare.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // A dotted IPv4 tail (::1.2.3.4) stands for two groups.
  const written = left.length + right.length + (bare.includes('.') ? 1 : 0);
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - written)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Failed authentications per client address. Each failure takes a token from the address's
 * bucket, also when several were checked at once and the bucket is already empty (the debt then
 * lengthens the wait); while the bucket is empty, the address's credentials are refused before
 * they are checked, and a refusal costs nothing. An address without failures has no bucket.
 */
export class AuthFailureThrottle {
  readonly #buckets: TokenBuckets | undefined;

  constructor(limits: { perMinute: number; burst: number; maxAddresses?: number }) {
    this.#buckets =
      limits.perMinute > 0
        ? new TokenBuckets({
            perMinute: limits.perMinute,
            burst: limits.burst,
            maxKeys: limits.maxAddresses ?? MAX_ADDRESSES,
          })
        : undefined;
  }

  /** Undefined when a credential from `ip` may be checked, else how long the address must wait. */
  check(ip: string, now = performance.now()): RateLimited | undefined {
    const buckets = this.#buckets;
    const bucket = buckets?.peek(addressKey(ip), now);
    return buckets && bucket && bucket.tokens < 1 ? buckets.refusal('failed-auth', bucket) : undefined;
  }

  /** Counts one failed authentication from `ip`. */
  fail(ip: string, now = performance.now()): void {
    if (this.#buckets) this.#buckets.current(addressKey(ip), now).tokens -= 1;
  }
}
