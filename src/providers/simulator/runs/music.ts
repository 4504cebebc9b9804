import { OperationName } from '../../../catalog/operation-names.ts';
import { renderMusic } from '../../../render/audio.ts';
import { needed, type Simulation, simulateProviderCall, simulationFor } from '../common.ts';

const generate = simulationFor('music', async (ctx, item, r) => {
  const song = needed(r.song, 'song');
  await simulateProviderCall([song.title, song.style, song.lyrics], ctx.simulatorDelayMs, ctx.signal);
  const file = await renderMusic({
    title: song.title,
    style: song.style,
    lyrics: song.lyrics ?? undefined,
    instrumental: r.instrumental,
    vocalGender: song.vocalGender ?? undefined,
    seed: 0,
    durationSeconds: song.durationSeconds,
    model: item.model ?? '',
  });
  return { ...file, metadata: { duration_seconds: file.durationSeconds ?? song.durationSeconds } };
});

/** The simulator's runs of these operations. */
export const musicSimulations: Record<string, Simulation> = {
  [OperationName.musicGenerate]: generate,
};
