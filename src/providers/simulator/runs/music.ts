import type { MusicInput } from '../../../modules/music/inputs.ts';
import { renderMusic } from '../audio.ts';
import { type Simulation, simulateProviderCall } from '../common.ts';

const generate: Simulation = async (ctx, item) => {
  const r = item.request as MusicInput;
  await simulateProviderCall([r.title, r.style, r.lyrics], ctx.simulatorDelayMs, ctx.signal);
  const file = await renderMusic({
    title: r.title,
    style: r.style,
    lyrics: r.lyrics ?? undefined,
    instrumental: r.instrumental,
    vocalGender: r.vocal_gender ?? undefined,
    seed: 0,
    durationSeconds: r.duration,
    model: item.model ?? '',
  });
  return { ...file, metadata: { duration_seconds: file.durationSeconds ?? r.duration } };
};

/** The simulator's runs of these operations. */
export const musicSimulations: Record<string, Simulation> = {
  'music.generate': generate,
};
