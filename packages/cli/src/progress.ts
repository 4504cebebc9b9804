// How a running generation is shown: a progress bar with its status, progress and queue position
// on a terminal, a plain line per change otherwise (logs, pipes, CI). Both go to stderr, so stdout
// holds only the results.

import type { GenerationStatus } from '@genmedia/sdk';
import { SingleBar } from 'cli-progress';

export interface ProgressView {
  update(status: GenerationStatus): void;
  stop(): void;
}

/** The share done: finished items and the progress of running ones. */
export function fractionDone(status: GenerationStatus): number {
  if (status.items.length === 0) return status.status === 'completed' ? 1 : 0;
  const sum = status.items.reduce(
    (total, item) => total + (item.status === 'COMPLETED' || item.status === 'FAILED' ? 1 : (item.progress ?? 0)),
    0,
  );
  return sum / status.items.length;
}

/** The best queue position among the items still waiting, if any. */
export function queuePosition(status: GenerationStatus): number | undefined {
  const places = status.items
    .map((item) => item.queue_position)
    .filter((place): place is number => typeof place === 'number');
  return places.length > 0 ? Math.min(...places) : undefined;
}

function describe(status: GenerationStatus): string {
  const place = queuePosition(status);
  const items = `${status.completed_items + status.failed_items}/${status.total_items} items`;
  return `${status.status}${place !== undefined && status.status === 'queued' ? ` (queue position ${place})` : ''}, ${items}`;
}

/** A view for `stream`: a bar when it is a terminal, lines otherwise, nothing when `quiet`. */
export function progressView(stream: NodeJS.WriteStream, id: string, quiet: boolean): ProgressView {
  if (quiet) return { update: () => undefined, stop: () => undefined };
  if (!stream.isTTY) {
    let last = '';
    return {
      update(status) {
        const line = `${id}: ${describe(status)}, ${Math.round(fractionDone(status) * 100)}%`;
        if (line !== last) stream.write(`${line}\n`);
        last = line;
      },
      stop: () => undefined,
    };
  }
  const bar = new SingleBar({
    stream,
    format: `${id} [{bar}] {percentage}% | {state}`,
    barCompleteChar: '█',
    barIncompleteChar: '░',
    hideCursor: true,
    clearOnComplete: false,
    fps: 10,
    // The bar is drawn on a terminal only (this view is chosen for one).
    noTTYOutput: false,
  });
  bar.start(100, 0, { state: 'submitted' });
  return {
    update(status) {
      bar.update(Math.round(fractionDone(status) * 100), { state: describe(status) });
    },
    stop() {
      bar.stop();
    },
  };
}
