import type { Executor, Operation } from '../../engine/types.ts';
import { simulateProviderCall } from '../../providers/simulator/common.ts';
import { synthesizeSpeech, voiceFromDescription, voiceFromSample } from '../../providers/simulator/speech.ts';
import { insertVoice } from './sql.ts';

interface VoiceInput {
  voice_id: string;
  custom_voice_id: string;
  method: 'clone' | 'design';
  type: 'cloned' | 'designed';
  name: string;
  description: string | null;
  audio_url: string | null;
  influencer_id: string | null;
}

const PREVIEW_TEXT =
  'Hello! This is a preview of my voice. I can read your scripts, narrate videos, and talk to your audience.';

/** Builds the voice (from the sample or the description) and speaks the preview in it. */
const create: Executor = async (ctx, item) => {
  const r = item.request as unknown as VoiceInput;
  await simulateProviderCall([r.description, r.name], ctx.simulatorDelayMs, ctx.signal);
  const profile =
    r.method === 'clone'
      ? await voiceFromSample(await ctx.fetchMedia(r.audio_url ?? ''))
      : voiceFromDescription(r.description ?? '', r.voice_id);
  const preview = await synthesizeSpeech(PREVIEW_TEXT, profile, { format: 'mp3' });
  return { ...preview, metadata: { profile, duration_seconds: preview.durationSeconds } };
};

/** Voice creation: a completed item becomes a voice of the team. */
export const voiceOperations: Record<string, Operation> = {
  'voice.create': {
    execute: create,
    onCompleted: async (db, done) => {
      const r = done.item.request as unknown as VoiceInput;
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
