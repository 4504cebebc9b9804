// The routes cooling down (their circuit breaker open), as this process's items read them when they
// choose a route: from the database, so that every process sees them, without a read on each item's way.
import type pg from 'pg';
import * as sql from './sql/index.ts';

/**
 * How a read of the cooling routes is used again by this process's items (see coolingRoutes): as it
 * is for COOLING_FRESH_MS; then, up to COOLING_STALE_MS, while one read for the next runs.
 */
const COOLING_FRESH_MS = 500;
const COOLING_STALE_MS = 5_000;
interface CoolingRead {
  at: number;
  routes: Promise<Map<string, Date>>;
  /** The read that will replace it, under way. */
  next?: Promise<unknown>;
}
let coolingReads = new WeakMap<pg.Pool, CoolingRead>();

/** Reads the cooling routes now and keeps the read for the pool (a failed read is not kept). */
function readCoolingRoutes(pool: pg.Pool): CoolingRead {
  const read: CoolingRead = { at: Date.now(), routes: sql.selectCoolingRoutes(pool) };
  coolingReads.set(pool, read);
  read.routes.catch(() => {
    if (coolingReads.get(pool) === read) coolingReads.delete(pool);
  });
  return read;
}

/**
 * The routes cooling down now, by route key, with when each is usable again, judged at the time
 * of each use. Read from the database so every process sees them; a read serves this process's
 * items for COOLING_FRESH_MS, and, older, up to COOLING_STALE_MS while the next read runs (not on
 * an item's way): a route another process cooled is seen here at worst that much later (its items
 * meanwhile fail over from it as from any failing route), one this process cooled at once.
 */
export async function coolingRoutes(pool: pg.Pool): Promise<Map<string, Date>> {
  let read = coolingReads.get(pool);
  const age = read ? Date.now() - read.at : Number.POSITIVE_INFINITY;
  if (!read || age >= COOLING_STALE_MS) {
    read = readCoolingRoutes(pool);
  } else if (age >= COOLING_FRESH_MS && !read.next) {
    const stale = read;
    const next = readCoolingRoutes(pool);
    // Until the next read answers, the one before serves.
    coolingReads.set(pool, stale);
    stale.next = next.routes.then(
      () => {
        if (coolingReads.get(pool) === stale) coolingReads.set(pool, next);
      },
      () => undefined,
    );
  }
  const now = Date.now();
  return new Map([...(await read.routes)].filter(([, until]) => until.getTime() > now));
}

/** Forgets what was read of the cooling routes (this process cooled one). */
export function forgetCoolingRoutes(): void {
  coolingReads = new WeakMap();
}
