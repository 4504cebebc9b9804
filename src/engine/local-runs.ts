// Items an asynchronous request accepts already claimed, run at once by the worker of the process
// that accepted them: no job is queued for them and none has to be picked up (the LISTEN/NOTIFY
// round and the job's own claim). Only while that worker has room: the jobs it runs and these
// items together stay within its concurrency when they start. Should the process stop mid-run,
// the item's lease lapses and the recovery sweep queues a job for it (see migration 0039).

import type { ClaimedItem } from './sql/items.ts';
import type { RouteReserved } from './types.ts';

/** Runs one claimed item to the end of a worker's run (its failures handled as a job's would be). */
export type RunClaimedItem = (item: ClaimedItem, sendTo?: RouteReserved) => Promise<void>;

/** Slots held for the items of one request about to be accepted. */
export interface HeldSlots {
  /** Runs one of the accepted items (claimed at accept) in a held slot. */
  run(item: ClaimedItem, sendTo?: RouteReserved): void;
  /** Lets the slots not used go (the items that were not claimed have jobs). */
  release(): void;
}

export class LocalRuns {
  readonly #capacity: number;
  readonly #runItem: RunClaimedItem;
  readonly #onError: (err: unknown) => void;
  /** Jobs the worker runs now. */
  #jobs = 0;
  /** Slots held for items being accepted or running here. */
  #held = 0;
  readonly #running = new Set<Promise<void>>();
  #closed = false;

  /** `capacity`: the worker's concurrency. */
  constructor(capacity: number, runItem: RunClaimedItem, onError: (err: unknown) => void) {
    this.#capacity = capacity;
    this.#runItem = runItem;
    this.#onError = onError;
  }

  /** The worker took a job. */
  jobStarted(): void {
    this.#jobs += 1;
  }

  /** A job of the worker ended (whatever its outcome). */
  jobEnded(): void {
    this.#jobs = Math.max(0, this.#jobs - 1);
  }

  /** The worker's runner was replaced: its jobs were let go. */
  jobsReset(): void {
    this.#jobs = 0;
  }

  /** Holds `count` slots when the worker has that much room now; undefined when not (or closed). */
  hold(count: number): HeldSlots | undefined {
    if (this.#closed || count < 1 || this.#jobs + this.#held + count > this.#capacity) return undefined;
    this.#held += count;
    let left = count;
    return {
      run: (item, sendTo) => {
        if (left < 1) throw new Error('No slot held for this item');
        left -= 1;
        // Started once the request's answer has gone out (its work may keep the event loop busy).
        const running: Promise<void> = new Promise<void>((started) => setImmediate(started))
          .then(() => this.#runItem(item, sendTo))
          .catch(this.#onError)
          .finally(() => {
            this.#held -= 1;
            this.#running.delete(running);
          });
        this.#running.add(running);
      },
      release: () => {
        this.#held -= left;
        left = 0;
      },
    };
  }

  /** Takes no more items, and waits for those running to end. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#running]);
  }
}
