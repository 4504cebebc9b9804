// Work this process's requests hand to its own worker instead of a job, run at once: the items an
// asynchronous request accepts already claimed, and the look at a vendor's job its verified
// webhook asks for. No job is queued for them and none has to be picked up (the LISTEN/NOTIFY
// round and the job's own claim). Only while that worker has room: the jobs it runs and this work
// together stay within its concurrency when they start. Should the process stop mid-run, the
// recovery sweep (an item's lease lapses, see migration 0039) or the vendor job's scheduled poll
// takes the item up.

import type { ProviderOutput } from '../providers/types.ts';
import type { ClaimedItem } from './sql/items.ts';
import type { RouteReserved } from './types.ts';

/** What this process's worker does for its requests, as a job's run would do it. */
export interface LocalWork {
  /** Runs a claimed item to the end of a worker's run (its failures handled as a job's would be). */
  run(item: ClaimedItem, sendTo?: RouteReserved): Promise<void>;
  /** Looks at an item's vendor job as a poll job would (`reported`: what a verified webhook said it made). */
  poll(itemId: string, reported?: ProviderOutput): Promise<void>;
}

/** Slots held for work a request is about to hand over. */
export interface HeldSlots {
  /** Runs an item claimed at accept in a held slot. */
  run(item: ClaimedItem, sendTo?: RouteReserved): void;
  /** Looks at an item's vendor job in a held slot. */
  poll(itemId: string, reported?: ProviderOutput): void;
  /** Lets the slots not used go. */
  release(): void;
}

export class LocalRuns {
  readonly #capacity: number;
  readonly #work: LocalWork;
  readonly #onError: (err: unknown) => void;
  /** Jobs the worker runs now. */
  #jobs = 0;
  /** Slots held for items being accepted or running here. */
  #held = 0;
  readonly #running = new Set<Promise<void>>();
  #closed = false;

  /** `capacity`: the worker's concurrency. */
  constructor(capacity: number, work: LocalWork, onError: (err: unknown) => void) {
    this.#capacity = capacity;
    this.#work = work;
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
    const start = (work: () => Promise<void>) => {
      if (left < 1) throw new Error('No slot held for this work');
      left -= 1;
      // Started once the request's answer has gone out (the work may keep the event loop busy).
      const running: Promise<void> = new Promise<void>((started) => setImmediate(started))
        .then(work)
        .catch(this.#onError)
        .finally(() => {
          this.#held -= 1;
          this.#running.delete(running);
        });
      this.#running.add(running);
    };
    return {
      run: (item, sendTo) => start(() => this.#work.run(item, sendTo)),
      poll: (itemId, reported) => start(() => this.#work.poll(itemId, reported)),
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
