import type { Executor, Operation } from '../../engine/types.ts';
import { newId } from '../../lib/ids.ts';
import { renderMusic } from '../../providers/simulator/audio.ts';
import { simulateProviderCall } from '../../providers/simulator/common.ts';
import { insertTrack } from './sql.ts';

interface MusicInput {
  title: string;
  style: string;
  lyrics: string | null;
  instrumental: boolean;
  vocal_gender: 'm' | 'f' | null;
  duration: number;
}

const generate: Executor = async (ctx, item) => {
  const r = item.request as unknown as MusicInput;
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

/** Music generation; a completed generation becomes a music track of the team. */
export const musicOperations: Record<string, Operation> = {
  'music.generate': {
    execute: generate,
    onCompleted: async (db, done) => {
      const r = done.item.request as unknown as MusicInput;
      await insertTrack(db, {
        id: newId('trk'),
        teamId: done.item.teamId,
        workspaceId: done.workspaceId,
        generationId: done.item.generationId,
        title: r.title,
        style: r.style,
        url: done.url,
        durationSeconds: done.file.durationSeconds ?? r.duration,
      });
    },
  },
};
