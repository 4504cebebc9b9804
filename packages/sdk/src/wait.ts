// Waiting for a generation to finish: over its live status stream (Server-Sent Events) when the
// service has one, by polling its status every 2-5 s otherwise (or when asked to). The stream is
// resumed with Last-Event-ID when it drops; a stream that cannot be had falls back to polling.
import { createParser } from 'eventsource-parser';
import { TimeoutError } from './errors.js';
import type { components } from './schema.js';
import { sleep } from './util.js';

/** A generation's status record. */
export type GenerationStatus = components['schemas']['GenerationStatus'];

export interface WaitOptions {
  /** Called with each new status record (progress, queue position, status), the first included. */
  onProgress?: (status: GenerationStatus) => void;
  /** Stops the wait (it rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Gives up after this many milliseconds with a TimeoutError (the generation goes on). */
  timeout?: number;
  /** `auto` (the default): the live stream, polling when there is none; `poll`: polling only. */
  mode?: 'auto' | 'poll';
  /** The first polling interval, in milliseconds (default 2000; it grows to `maxPollInterval`). */
  pollInterval?: number;
  /** The longest polling interval, in milliseconds (default 5000). */
  maxPollInterval?: number;
}

/** What waiting needs of the client. */
export interface WaitContext {
  /** Reads the status record (through the retrying transport). */
  status(id: string, signal: AbortSignal): Promise<GenerationStatus>;
  /** Opens the live status stream; undefined when the service has none. */
  openEvents(id: string, lastEventId: string | undefined, signal: AbortSignal): Promise<Response | undefined>;
}

export const isFinished = (status: GenerationStatus): boolean =>
  status.status === 'completed' || status.status === 'failed';

// A stream that keeps dropping is given up for polling after this many reconnections in a row
// without an event.
const MAX_SILENT_RECONNECTS = 3;

/** Waits until the generation is completed or failed; resolves with its final status record. */
export async function waitForGeneration(
  ctx: WaitContext,
  id: string,
  options: WaitOptions = {},
): Promise<GenerationStatus> {
  const controller = new AbortController();
  const signals = [controller.signal, ...(options.signal ? [options.signal] : [])];
  let timedOut = false;
  const timer =
    options.timeout !== undefined
      ? setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, options.timeout)
      : undefined;
  const signal = AbortSignal.any(signals);
  let last: string | undefined;
  const report = (status: GenerationStatus) => {
    const seen = JSON.stringify(status);
    if (seen === last) return;
    last = seen;
    options.onProgress?.(status);
  };
  try {
    if (options.mode !== 'poll') {
      const finished = await streamUntilFinished(ctx, id, signal, report);
      if (finished) return finished;
    }
    return await pollUntilFinished(ctx, id, signal, report, options);
  } catch (err) {
    if (timedOut) throw new TimeoutError(`Generation ${id} did not finish within ${options.timeout} ms`);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** Follows the event stream to the terminal record; undefined when the stream is not to be had. */
async function streamUntilFinished(
  ctx: WaitContext,
  id: string,
  signal: AbortSignal,
  report: (status: GenerationStatus) => void,
): Promise<GenerationStatus | undefined> {
  let lastEventId: string | undefined;
  let silentReconnects = 0;
  while (silentReconnects <= MAX_SILENT_RECONNECTS) {
    let response: Response | undefined;
    try {
      response = await ctx.openEvents(id, lastEventId, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      silentReconnects += 1;
      continue;
    }
    if (!response?.body) return undefined;
    let latest: GenerationStatus | undefined;
    let events = 0;
    const parser = createParser({
      onEvent(event) {
        if (event.event !== undefined && event.event !== 'status') return;
        events += 1;
        if (event.id) lastEventId = event.id;
        latest = JSON.parse(event.data) as GenerationStatus;
        report(latest);
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
        if (latest && isFinished(latest)) return latest;
      }
    } catch (err) {
      if (signal.aborted) throw err;
      // The connection dropped: resume from the last event.
    } finally {
      reader.cancel().catch(() => undefined);
    }
    if (latest && isFinished(latest)) return latest;
    silentReconnects = events > 0 ? 0 : silentReconnects + 1;
  }
  return undefined;
}

/** Polls the status record, every 2 s at first and up to every 5 s, until it is terminal. */
async function pollUntilFinished(
  ctx: WaitContext,
  id: string,
  signal: AbortSignal,
  report: (status: GenerationStatus) => void,
  options: WaitOptions,
): Promise<GenerationStatus> {
  let interval = options.pollInterval ?? 2000;
  const longest = Math.max(interval, options.maxPollInterval ?? 5000);
  for (;;) {
    const status = await ctx.status(id, signal);
    report(status);
    if (isFinished(status)) return status;
    await sleep(interval, signal);
    interval = Math.min(longest, interval + 500);
  }
}
