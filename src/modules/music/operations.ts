import { OperationName } from '../../catalog/operation-names.ts';
import { operationOf } from '../../engine/operation.ts';
import type { ExecutableItem, ExecutionContext, Operation, VendorWork } from '../../engine/types.ts';
import { newId } from '../../lib/ids.ts';
import { MusicInput } from './inputs.ts';
import { insertTrack } from './sql.ts';

// Lyrics are sung as written only in a vendor's custom mode, which needs a style; the request's is
// optional, so lyrics without one are sung in the default genre (the simulator's default too).
const DEFAULT_STYLE = 'pop';

/**
 * music/generate for a vendor: custom mode with the lyrics (or instrumental) in the style and
 * under the title given; a song without lyrics is described instead (title, style and voice in
 * words), so the vendor writes its lyrics, unless it is an instrumental with a style. Lyrics
 * without a style get DEFAULT_STYLE.
 */
const musicForVendor = (ctx: ExecutionContext, item: ExecutableItem<MusicInput>): VendorWork => {
  const r = item.request;
  const gender = r.vocal_gender === 'm' ? 'male' : r.vocal_gender === 'f' ? 'female' : null;
  const style = r.style.trim();
  const lyrics = r.lyrics?.trim() ? r.lyrics : null;
  const described = lyrics === null && (!r.instrumental || style === '');
  const song = {
    title: r.title,
    style: r.style,
    lyrics: r.lyrics,
    vocalGender: r.vocal_gender,
    durationSeconds: r.duration,
  };
  return {
    routes: ctx.media.music.find((m) => m.id === item.model)?.routes ?? [],
    request: described
      ? {
          kind: 'music',
          prompt: `${r.title}${style ? `: ${style}` : ''}${gender ? `, sung by a ${gender} voice` : ''}`,
          lyrics: null,
          style: null,
          title: null,
          instrumental: r.instrumental,
          vocalGender: null,
          song,
        }
      : {
          kind: 'music',
          prompt: r.title,
          lyrics,
          style: style || DEFAULT_STYLE,
          title: r.title,
          instrumental: r.instrumental,
          vocalGender: r.instrumental ? null : gender,
          song,
        },
    expects: 'audio',
  };
};

/** Music generation; a completed generation becomes a music track of the team. */
export const musicOperations: Record<string, Operation> = {
  [OperationName.musicGenerate]: operationOf(MusicInput, {
    vendor: musicForVendor,
    onCompleted: async (db, done) => {
      const r = done.item.request;
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
  }),
};
