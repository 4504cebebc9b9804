import type { Queryable } from '../../db/pool.ts';
import { hashApiKey, isWellFormedApiKey } from '../../lib/secrets.ts';
import { selectActiveKeyByHash } from './sql.ts';

export interface Principal {
  teamId: string;
  keyId: string;
}

interface CacheEntry {
  principal: Principal;
  expiresAt: number;
}

const MAX_ENTRIES = 10_000;

/**
 * Resolves a bearer API key to its team. Verified keys are remembered for at most `ttlMs`
 * (≤ 1 s), so the hot path neither hashes nor queries on every request while a revoked key
 * still stops working within a second on every process. Concurrent misses for one key share
 * one lookup.
 */
export class ApiKeyAuthenticator {
  readonly #db: Queryable;
  readonly #ttlMs: number;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #pending = new Map<string, Promise<Principal | null>>();

  constructor(db: Queryable, ttlMs: number) {
    this.#db = db;
    this.#ttlMs = ttlMs;
  }

  /** The principal of a valid key, or null for a malformed, unknown or revoked one. */
  authenticate(rawKey: string): Principal | null | Promise<Principal | null> {
    const cached = this.#cache.get(rawKey);
    if (cached && cached.expiresAt > Date.now()) return cached.principal;
    if (!isWellFormedApiKey(rawKey)) return null;
    const pending = this.#pending.get(rawKey);
    if (pending) return pending;
    const lookup = this.#lookup(rawKey).finally(() => this.#pending.delete(rawKey));
    this.#pending.set(rawKey, lookup);
    return lookup;
  }

  /** Forgets a key at once in this process (called when it is revoked here). */
  evictKey(keyId: string): void {
    for (const [raw, entry] of this.#cache) {
      if (entry.principal.keyId === keyId) this.#cache.delete(raw);
    }
  }

  async #lookup(rawKey: string): Promise<Principal | null> {
    const row = await selectActiveKeyByHash(this.#db, hashApiKey(rawKey));
    if (!row) {
      this.#cache.delete(rawKey);
      return null;
    }
    const principal = { teamId: row.team_id, keyId: row.id };
    if (this.#ttlMs > 0) {
      if (this.#cache.size >= MAX_ENTRIES) this.#evictExpired();
      this.#cache.set(rawKey, { principal, expiresAt: Date.now() + this.#ttlMs });
    }
    return principal;
  }

  #evictExpired(): void {
    const now = Date.now();
    for (const [raw, entry] of this.#cache) if (entry.expiresAt <= now) this.#cache.delete(raw);
    // Still full of live keys: drop the oldest insertion to bound memory.
    if (this.#cache.size >= MAX_ENTRIES) {
      const first = this.#cache.keys().next();
      if (!first.done) this.#cache.delete(first.value);
    }
  }
}
