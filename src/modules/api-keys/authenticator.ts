import type pg from 'pg';
import { NotifiedReload } from '../../db/notified-reload.ts';
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

  clear(): void {
    this.#entries.clear();
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

/** How often the listening connection is proven alive (see NotifiedReloadOptions.heartbeatMs). */
const HEARTBEAT_MS = 2_000;

/** The channel a revoked or deleted key is announced on (migration 0042). */
const API_KEY_REVOCATIONS_CHANNEL = 'api_key_revocations';

/** A verified key: its principal, when it was verified, and in which listening session (if any). */
interface Verified {
  principal: Principal;
  at: number;
  session: number | undefined;
}

export interface AuthenticatorOptions {
  /** How long a verified key is trusted without asking the database again (AUTH_CACHE_TTL_MS, ≤ 1 s). */
  ttlMs: number;
  /**
   * How long it is trusted while this process hears revocations (AUTH_KEY_TRUST_MS): verified and
   * still within the same listening session.
   */
  trustMs: number;
}

/**
 * Resolves a bearer API key to its team. Verified keys are remembered, so the hot path neither
 * hashes nor queries on every request: for `trustMs` while this process listens for revocations
 * (every revocation or deletion of a key is announced by the database, migration 0042, and
 * forgets every verified key here at once), else for `ttlMs` (≤ 1 s), as before it listens, while
 * its listening connection is lost, and for a key verified in an earlier listening session (what
 * was announced between two sessions was not heard). A lookup under way when a revocation is heard
 * answers the requests that asked for it but is not remembered, nor shared with later ones. Keys
 * the database does not know (unknown or revoked) are remembered for MISS_TTL_MS, so a wrong key
 * sent again and again asks the database once; a key becomes valid only when it is created, and
 * keys are random, so no process can have refused a key before it existed. Concurrent misses for
 * one key share one lookup.
 */
export class ApiKeyAuthenticator {
  readonly #db: Queryable;
  readonly #ttlMs: number;
  readonly #trustMs: number;
  readonly #verified = new ExpiringCache<Verified>();
  readonly #refused = new ExpiringCache<true>();
  readonly #pending = new Map<string, Promise<Principal | null>>();
  readonly #revocations: NotifiedReload;
  /** Changes each time every verified key is forgotten (a revocation heard). */
  #forgotten = 0;

  constructor(pool: pg.Pool, options: AuthenticatorOptions) {
    this.#db = pool;
    this.#ttlMs = options.ttlMs;
    this.#trustMs = Math.max(options.ttlMs, options.trustMs);
    this.#revocations = new NotifiedReload(pool, {
      channel: API_KEY_REVOCATIONS_CHANNEL,
      applicationName: 'genmedia-api-key-revocations',
      what: 'API key revocations',
      read: async () => this.#forgetAll(),
      // A listening connection cut without a word stops the long trust within a few seconds.
      heartbeatMs: HEARTBEAT_MS,
    });
  }

  /** Listens for revocations (until then, and while it does not, keys are trusted for `ttlMs`). */
  async start(log: { warn(obj: object, msg: string): void }): Promise<void> {
    if (this.#trustMs > this.#ttlMs) await this.#revocations.start(log);
  }

  async stop(): Promise<void> {
    await this.#revocations.stop();
  }

  /** The principal of a key verified within its trust; undefined when it was not. */
  cached(rawKey: string): Principal | undefined {
    const now = Date.now();
    const entry = this.#verified.get(rawKey, now);
    if (!entry) return undefined;
    const session = this.#revocations.session;
    const trust = session !== undefined && entry.session === session ? this.#trustMs : this.#ttlMs;
    if (now - entry.at < trust) return entry.principal;
    this.#verified.delete(rawKey);
    return undefined;
  }

  /** The principal of a valid key, or null for a malformed, unknown or revoked one. */
  authenticate(rawKey: string): Principal | null | Promise<Principal | null> {
    const verified = this.cached(rawKey);
    if (verified) return verified;
    if (!isWellFormedApiKey(rawKey) || this.#refused.get(rawKey, Date.now())) return null;
    const pending = this.#pending.get(rawKey);
    if (pending) return pending;
    const lookup: Promise<Principal | null> = this.#lookup(rawKey).finally(() => {
      if (this.#pending.get(rawKey) === lookup) this.#pending.delete(rawKey);
    });
    this.#pending.set(rawKey, lookup);
    return lookup;
  }

  /** Forgets a key at once in this process (called when it is revoked here). */
  evictKey(keyId: string): void {
    this.#verified.deleteWhere((entry) => entry.principal.keyId === keyId);
  }

  #forgetAll(): void {
    this.#forgotten += 1;
    this.#verified.clear();
    // A request that comes from now on asks the database itself, not a lookup asked before.
    this.#pending.clear();
  }

  async #lookup(rawKey: string): Promise<Principal | null> {
    // What is heard while the database is asked may be about this key: then it is not remembered.
    const forgotten = this.#forgotten;
    const session = this.#revocations.session;
    const at = Date.now();
    const row = await selectActiveKeyByHash(this.#db, hashApiKey(rawKey));
    if (!row) {
      this.#verified.delete(rawKey);
      this.#refused.set(rawKey, true, Date.now() + MISS_TTL_MS);
      return null;
    }
    const principal = { teamId: row.team_id, keyId: row.id };
    if (this.#ttlMs > 0 && forgotten === this.#forgotten) {
      this.#verified.set(rawKey, { principal, at, session }, at + this.#trustMs);
    }
    return principal;
  }
}
