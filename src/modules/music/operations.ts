import type { Operation } from '../../engine/types.ts';
import { newId } from '../../lib/ids.ts';
import type { MusicInput } from './inputs.ts';
import { insertTrack } from './sql.ts';

/** Music generation; a completed generation becomes a music track of the team. */
export const musicOperations: Record<string, Operation> = {
  'music.generate': {
    onCompleted: async (db, done) => {
      const r = done.item.request as MusicInput;
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
