// The simulator behind the provider interface: each endpoint is an operation's run, and a submit
// answers at once with the finished file as data (or fails with a ProviderError), as a vendor that
// holds its answer does. Only the composition root builds it, with its own settings; the engine
// takes its route for an item no configured vendor serves, where the operator lets it stand in.
import { type PollResult, type Provider, ProviderError, type SubmitRequest, type SubmitResult } from '../types.ts';
import { simulations } from './runs/index.ts';

/** The provider id of the simulator (what an item's status names when it made the item). */
export const SIMULATOR_PROVIDER_ID = 'simulator';

/** What the simulator is built with. */
export interface SimulatorSettings {
  /** Latency added to every simulated call (SIMULATOR_DELAY_MS). */
  delayMs: number;
  /** Fetches a user media URL under the outbound policy (or reads our own storage directly). */
  fetchMedia(url: string): Promise<Buffer>;
}

/** The simulator as a provider: its endpoints are the operations it can run, its answers immediate. */
export function createSimulatorProvider(settings: SimulatorSettings): Provider {
  return {
    id: SIMULATOR_PROVIDER_ID,
    // It keeps no jobs: a submit sent again after a crash makes the same file again, and nothing
    // is charged anywhere for the first.
    idempotentSubmit: true,
    async submit(request: SubmitRequest): Promise<SubmitResult> {
      const run = Object.hasOwn(simulations, request.endpoint) ? simulations[request.endpoint] : undefined;
      if (!run || !request.item) {
        throw new ProviderError(`The simulator does not serve ${request.endpoint}`, false, { kind: 'invalid_input' });
      }
      const context = {
        fetchMedia: settings.fetchMedia,
        simulatorDelayMs: settings.delayMs,
        signal: request.signal ?? new AbortController().signal,
        ...(request.stream ? { stream: request.stream } : {}),
      };
      const { metadata, ...file } = await run(context, request.item, request.request);
      return { kind: 'done', output: { files: [file], metadata: metadata ?? {} } };
    },
    // Every submit answers at once: there is never a job to ask about.
    async poll(): Promise<PollResult> {
      return { kind: 'failed', error: new ProviderError('The simulator keeps no jobs', false) };
    },
  };
}
