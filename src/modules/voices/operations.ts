import type { Operation } from '../../engine/types.ts';
import type { VoiceInput } from './inputs.ts';
import { insertVoice } from './sql.ts';

/** Voice creation: a completed item becomes a voice of the team. */
export const voiceOperations: Record<string, Operation> = {
  'voice.create': {
    onCompleted: async (db, done) => {
      const r = done.item.request as VoiceInput;
      await insertVoice(db, {
        id: r.voice_id,
        teamId: done.item.teamId,
        workspaceId: done.workspaceId,
        name: r.name,
        description: r.description,
        type: r.type,
        audioUrl: done.url,
        customVoiceId: r.custom_voice_id,
        influencerId: r.influencer_id,
        profile: done.file.metadata?.profile ?? {},
        generationId: done.item.generationId,
      });
    },
  },
};
