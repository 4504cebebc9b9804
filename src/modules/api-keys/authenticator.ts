import type { Queryable } from '../../db/pool.ts';
import { hashApiKey, isWellFormedApiKey } from '../../lib/secrets.ts';
import { selectActiveKeyByHash } from './sql.ts';

export interface Principal {
  teamId: string;
  keyId: string;
}

/** The most keys each of the two caches (verified, refused) holds. */
const MAX_ENTRIES = 10_000;

/** How long a key the database did not know (unknown or revoked) is refused without asking again. */
const MISS_TTL_MS = 5_000;

/** Entries that expire, at most MAX_ENTRIES of them: expired ones go first, then the oldest. */
class ExpiringCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();

  /** The value of `key` while it has not expired. */
  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > now) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, expiresAt: number): void {
    this.#entries.delete(key);
    if (this.#entries.size >= MAX_ENTRIES) this.#makeRoom();
    this.#entries.set(key, { value, expiresAt });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Drops every entry whose value matches. */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.#entries) if (matches(entry.value)) this.#entries.delete(key);
  }

  #makeRoom(): void {
    const now = Date.now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
    // Still full of live entries: drop the oldest insertion to bound memory.
    if (this.#entries.size >= MAX_ENTRIES) {
      const first = this.#entries.keys().next();
      if (!first.done) this.#entries.delete(first.value);
    }
  }
}

/**
 * Resolves a bearer API key to its team. Verified keys are remembered for at most `ttlMs`
 * (≤ 1 s), so the hot path neither hashes nor queries on every request while a revoked key
 * still stops working within a second on every process. Keys the database does not know
 * (unknown or revoked) are remembered for MISS_TTL_MS, so a wrong key sent again and again asks
 * the database once; a key becomes valid only when it is created, and keys are random, so no
 * process can have refused a key before it existed. Concurrent misses for one key share one
 * lookup.
 */
export class ApiKeyAuthenticator {
  readonly #db: Queryable;
  readonly #ttlMs: number;
  readonly #verified = new ExpiringCache<Principal>();
  readonly #refused = new ExpiringCache<true>();
  readonly #pending = new Map<string, Promise<Principal | null>>();

  constructor(db: Queryable, ttlMs: number) {
    this.#db = db;
    this.#ttlMs = ttlMs;
  }

  /** The principal of a key verified within the cache's lifetime; undefined when it was not. */
  cached(rawKey: string): Principal | undefined {
    return this.#verified.get(rawKey, Date.now());
  }

  /** The principal of a valid key, or null for a malformed, unknown or revoked one. */
  authenticate(rawKey: string): Principal | null | Promise<Principal | null> {
    const now = Date.now();
    const verified = this.#verified.get(rawKey, now);
    if (verified) return verified;
    if (!isWellFormedApiKey(rawKey) || this.#refused.get(rawKey, now)) return null;
    const pending = this.#pending.get(rawKey);
    if (pending) return pending;
    const lookup = this.#lookup(rawKey).finally(() => this.#pending.delete(rawKey));
    this.#pending.set(rawKey, lookup);
    return lookup;
  }

  /** Forgets a key at once in this process (called when it is revoked here). */
  evictKey(keyId: string): void {
    this.#verified.deleteWhere((principal) => principal.keyId === keyId);
  }

  async #lookup(rawKey: string): Promise<Principal | null> {
    const row = await selectActiveKeyByHash(this.#db, hashApiKey(rawKey));
    if (!row) {
      this.#verified.delete(rawKey);
      this.#refused.set(rawKey, true, Date.now() + MISS_TTL_MS);
      return null;
    }
    const principal = { teamId: row.team_id, keyId: row.id };
    if (this.#ttlMs > 0) this.#verified.set(rawKey, principal, Date.now() + this.#ttlMs);
    return principal;
  }
}
