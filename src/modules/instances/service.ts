import type { Queryable } from '../../db/pool.ts';
import * as sql from './sql.ts';

/** How often a process says it is alive. */
export const INSTANCE_BEAT_MS = 1000;
/** A process silent this long is gone: what it held (Idempotency-Key claims) is released. */
export const INSTANCE_DEAD_AFTER_MS = 5000;

export interface InstanceHeartbeat {
  stop(): Promise<void>;
}

/**
 * Registers this process in the database and keeps its heartbeat fresh until stopped; a beat
 * that fails (the database is away) is simply tried again on the next tick. The first beat is
 * awaited, so nothing the process claims is ever without a live owner.
 */
export async function startInstanceHeartbeat(
  db: Queryable,
  id: string,
  role: string,
  onError: (err: unknown) => void,
): Promise<InstanceHeartbeat> {
  await sql.beatInstance(db, id, role);
  const timer = setInterval(() => {
    sql.beatInstance(db, id, role).catch(onError);
  }, INSTANCE_BEAT_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await sql.forgetInstance(db, id).catch(onError);
    },
  };
}

/** Deletes the rows of processes that have been silent for a day (housekeeping). */
export async function deleteGoneInstances(db: Queryable): Promise<number> {
  return sql.deleteSilentInstances(db, 24 * 3600);
}
