import Value from 'typebox/value';
import { OperationName } from '../../catalog/operation-names.ts';
import { FIXED_ROUTES } from '../../catalog/routes.ts';
import { VendorVoice } from '../../catalog/voices.ts';
import { operationOf } from '../../engine/operation.ts';
import type { ExecutableItem, ExecutionContext, LocalFile, Operation, VendorWork } from '../../engine/types.ts';
import { WorkError } from '../../lib/errors.ts';
import { synthesizeSpeech, voiceFromDescription, voiceFromSample } from '../../render/speech.ts';
import { readStored } from '../../storage/read.ts';
import { VoiceInput } from './inputs.ts';
import { insertVoice } from './sql.ts';

/** A voice made at a vendor (ElevenLabs): cloned from the recording, or designed from the prompt. */
const voiceForVendor = (_ctx: ExecutionContext, item: ExecutableItem<VoiceInput>): VendorWork | undefined => {
  const r = item.request;
  return {
    routes: FIXED_ROUTES[r.method === 'clone' ? 'voice-clone-v1' : 'voice-design-v1'] ?? [],
    request: {
      kind: 'voice',
      method: r.method,
      name: r.name,
      description: r.description,
      sampleUrl: r.audio_url,
      voiceId: r.voice_id,
    },
    expects: 'audio',
  };
};

/**
 * The voice's profile for the service's own speech, read from the vendor's preview of it (a
 * clone's recording, a design's preview): what speaks the voice if its vendor is ever unavailable.
 */
const profileFromPreview = async (ctx: ExecutionContext, _item: ExecutableItem, key: string) => {
  const preview = await readStored(ctx.storage, key);
  if (!preview) throw new WorkError('The voice preview is missing', false);
  return { profile: await voiceFromSample(preview) };
};

const PREVIEW_TEXT =
  'Hello! This is a preview of my voice. I can read your scripts, narrate videos, and talk to your audience.';

/**
 * A voice the service makes itself (no voice vendor configured): its profile built from the
 * recording (a clone) or the description (a design), and a preview spoken in it.
 */
const makeVoice = async (ctx: ExecutionContext, item: ExecutableItem<VoiceInput>): Promise<LocalFile> => {
  const r = item.request;
  const profile =
    r.method === 'clone'
      ? await voiceFromSample(await ctx.fetchMedia(r.audio_url ?? ''))
      : voiceFromDescription(r.description ?? '', r.voice_id);
  const preview = await synthesizeSpeech(PREVIEW_TEXT, profile, { format: 'mp3' });
  return { ...preview, metadata: { profile, duration_seconds: preview.durationSeconds } };
};

/** Voice creation: a completed item becomes a voice of the team, made at a vendor or by the service. */
export const voiceOperations: Record<string, Operation> = {
  [OperationName.voiceCreate]: operationOf(VoiceInput, {
    vendor: voiceForVendor,
    // Without a voice vendor the service makes the voice itself.
    local: makeVoice,
    finishFile: profileFromPreview,
    onCompleted: async (db, done) => {
      const r = done.item.request;
      const made = done.file.metadata?.vendor_voice;
      const vendor = Value.Check(VendorVoice, made) ? made : null;
      await insertVoice(db, {
        id: r.voice_id,
        teamId: done.item.teamId,
        workspaceId: done.workspaceId,
        name: r.name,
        description: r.description,
        type: r.type,
        audioUrl: done.url,
        customVoiceId: vendor?.voice_id ?? r.custom_voice_id,
        provider: vendor?.provider ?? null,
        influencerId: r.influencer_id,
        profile: done.file.metadata?.profile ?? {},
        generationId: done.item.generationId,
      });
    },
  }),
};
