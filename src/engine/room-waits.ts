// Synchronous requests whose items found no room in their team's cap wait in this process for
// room, without polling: when room frees (an item finished, in any process, or the cap grew),
// startWaitingItems NOTIFYs each item it wakes on ITEM_ROOM_CHANNEL (the item's id), and the
// request waiting here for that item tries its claim again; the others wait on. One connection of
// the process LISTENs, opened when the first request has to wait; after it was lost, every waiting
// request tries again (what was notified meanwhile was not heard).
import type pg from 'pg';
import { NotifiedReload } from '../db/notified-reload.ts';
import { ITEM_ROOM_CHANNEL } from './create.ts';

interface Log {
  warn(obj: object, msg: string): void;
}

export class RoomWaits {
  /** The requests waiting here, by the item each waits to claim. */
  private readonly waiters = new Map<string, Set<() => void>>();
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
      read: async () => this.wakeAll(),
      notice: (itemId) => {
        for (const wake of [...(this.waiters.get(itemId) ?? [])]) wake();
      },
    });
  }

  private wakeAll(): void {
    for (const wakes of [...this.waiters.values()]) for (const wake of [...wakes]) wake();
  }

  /**
   * Tries `claim` (of item `itemId`) now and again each time the item is woken, until it succeeds
   * (true), or `signal` ends or the process shuts down (false). The first try is made once this
   * process listens, so room that freed before is not missed; a wake that comes while a try is
   * under way makes it try once more.
   */
  async until(itemId: string, signal: AbortSignal, claim: () => Promise<boolean>): Promise<boolean> {
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
      const wakes = this.waiters.get(itemId) ?? new Set();
      this.waiters.set(itemId, wakes.add(wake));
      signal.addEventListener('abort', wake, { once: true });
      try {
        if (await claim()) return true;
        await woken;
      } finally {
        wakes.delete(wake);
        if (wakes.size === 0 && this.waiters.get(itemId) === wakes) this.waiters.delete(itemId);
        signal.removeEventListener('abort', wake);
      }
    }
    return false;
  }

  /** Stops listening; requests still waiting are woken (their deadline ends them). */
  async stop(): Promise<void> {
    this.closed = true;
    this.wakeAll();
    await this.listener.stop();
  }
}
