// Synchronous requests whose items found no room in their team's cap wait in this process for
// room, without polling: when room frees (an item finished, in any process, or the cap grew),
// startWaitingItems NOTIFYs the woken item on ITEM_ROOM_CHANNEL, and every request waiting here
// tries its claim again. One connection of the process LISTENs, opened when the first request has
// to wait; after it was lost, every waiting request tries again (what was notified meanwhile was
// not heard).
import type pg from 'pg';
import { NotifiedReload } from '../db/notified-reload.ts';
import { ITEM_ROOM_CHANNEL } from './create.ts';

interface Log {
  warn(obj: object, msg: string): void;
}

export class RoomWaits {
  private readonly waiters = new Set<() => void>();
  private readonly listener: NotifiedReload;
  private listening: Promise<void> | undefined;
  private closed = false;
  /** Where a lost listening connection is told. */
  log: Log = { warn: () => undefined };

  constructor(pool: pg.Pool) {
    this.listener = new NotifiedReload(pool, {
      channel: ITEM_ROOM_CHANNEL,
      applicationName: 'room waits',
      what: 'waits for room in team caps',
      read: async () => {
        for (const wake of [...this.waiters]) wake();
      },
    });
  }

  /**
   * Tries `claim` now and again each time room may have freed, until it succeeds (true), or
   * `signal` ends or the process shuts down (false). The first try is made once this process
   * listens, so room that freed before is not missed.
   */
  async until(signal: AbortSignal, claim: () => Promise<boolean>): Promise<boolean> {
    this.listening ??= this.listener.start(this.log).catch((err: unknown) => {
      this.listening = undefined;
      throw err;
    });
    await this.listening;
    while (!this.closed && !signal.aborted) {
      let wake: () => void = () => undefined;
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      this.waiters.add(wake);
      signal.addEventListener('abort', wake, { once: true });
      try {
        if (await claim()) return true;
        await woken;
      } finally {
        this.waiters.delete(wake);
        signal.removeEventListener('abort', wake);
      }
    }
    return false;
  }

  /** Stops listening; requests still waiting are woken (their deadline ends them). */
  async stop(): Promise<void> {
    this.closed = true;
    for (const wake of [...this.waiters]) wake();
    await this.listener.stop();
  }
}
