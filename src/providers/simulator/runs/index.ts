// The simulator as a provider: a run for every operation, serving whatever no configured vendor
// does (everything with PROVIDERS=simulator). Only the composition root wires it in.
import type { Simulation } from '../common.ts';
import { imageSimulations } from './images.ts';
import { influencerSimulations } from './influencers.ts';
import { model3dSimulations } from './models3d.ts';
import { musicSimulations } from './music.ts';
import { speechSimulations } from './speech.ts';
import { textSimulations } from './text.ts';
import { videoSimulations } from './videos.ts';

/** The simulator's run of each operation, by name. */
export const simulations: Readonly<Record<string, Simulation>> = {
  ...imageSimulations,
  ...videoSimulations,
  ...musicSimulations,
  ...model3dSimulations,
  ...textSimulations,
  ...speechSimulations,
  ...influencerSimulations,
};
