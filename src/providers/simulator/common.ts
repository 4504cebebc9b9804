import { setTimeout as sleep } from 'node:timers/promises';
import { requestOfKind } from '../mapping.ts';
import { ProviderError, type ProviderFile, type StreamSink, type VendorRequest, type WorkItem } from '../types.ts';

/** What a simulator run is given besides its item. */
export interface SimulatorContext {
  /** Fetches a user media URL under the outbound policy (or reads our own storage directly). */
  fetchMedia(url: string): Promise<Buffer>;
  /** Latency added to every simulated call. */
  simulatorDelayMs: number;
  signal: AbortSignal;
  /** Where a streamed text request wants its answer piece by piece. */
  stream?: StreamSink;
}

/**
 * The simulator's run of one operation's item, given the request its operation makes for vendors
 * (when it makes one): its result file; throws ProviderError on failure.
 */
export type Simulation = (
  ctx: SimulatorContext,
  item: WorkItem,
  request: VendorRequest | undefined,
) => Promise<ProviderFile>;

/** The simulator's run of an operation whose items its operation describes in a request of `kind`. */
export function simulationFor<K extends VendorRequest['kind']>(
  kind: K,
  run: (ctx: SimulatorContext, item: WorkItem, request: Extract<VendorRequest, { kind: K }>) => Promise<ProviderFile>,
): Simulation {
  return (ctx, item, request) => run(ctx, item, requestOfKind(request, kind, `The simulator's ${kind} run`));
}

const FAIL_ALL = '[simulate:fail]';
const FAIL_ITEM = /\[simulate:fail:(\d+)\]/g;

/**
 * What every simulated call does first: wait SIMULATOR_DELAY_MS (provider latency), then fail,
 * not retryably, when the prompt asks for it: `[simulate:fail]` fails every item,
 * `[simulate:fail:N]` only the N-th item of a batch (counting from 1).
 */
export async function simulateProviderCall(
  texts: Array<string | null | undefined>,
  delayMs: number,
  signal: AbortSignal,
  position = 0,
): Promise<void> {
  if (delayMs > 0) await sleep(delayMs, undefined, { signal });
  for (const text of texts) {
    if (!text) continue;
    const failItem = [...text.matchAll(FAIL_ITEM)].some((m) => Number(m[1]) === position + 1);
    if (text.includes(FAIL_ALL) || failItem) {
      throw new ProviderError(
        'The simulator failed this work because the prompt asked for it ([simulate:fail])',
        false,
      );
    }
  }
}

/**
 * A field of the request that only a provider making the work itself reads: its operation always
 * fills it in, so a request without it was not made by the operation.
 */
export function needed<T>(value: T | undefined, what: string): T {
  if (value === undefined) {
    throw new ProviderError(`The simulator needs the request's ${what}`, false, { kind: 'invalid_input' });
  }
  return value;
}
