import type { Operation } from '../../engine/types.ts';

/** Text generation, settled to the tokens really used. */
export const textOperations: Record<string, Operation> = {
  'text.generate': {},
};
