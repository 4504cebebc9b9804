// The rules and prices of this module's generation requests: each plan turns a validated
// request into the work to charge for and run.

import type { Static } from 'typebox';
import type { Deps } from '../../app-types.ts';
import { lookupModel } from '../../catalog/lookup.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { invalidField } from '../../lib/errors.ts';
import type { MusicInput } from './inputs.ts';
import type { MusicGenerateBody } from './schemas.ts';
import type { TrackRow } from './sql.ts';

/** How long a track is: sung lyrics set it (about 2.5 words a second, plus intro and outro), else the style. */
export function trackSeconds(lyrics: string | undefined, style: string, maxSeconds: number): number {
  const words = (lyrics ?? '').split(/\s+/).filter(Boolean).length;
  const seconds = words > 0 ? 20 + words / 2.5 : /ambient|drone|soundscape/i.test(style) ? 90 : 60;
  return Math.min(maxSeconds, Math.max(30, Math.round(seconds)));
}

export function toTrack(row: TrackRow) {
  return {
    id: row.id,
    title: row.title,
    style: row.style,
    url: row.url,
    status: row.status,
    generation_id: row.generation_id,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at?.toISOString() ?? null,
  };
}

export function planMusic({ media }: Deps, body: Static<typeof MusicGenerateBody>): GenerationPlan {
  const model = lookupModel(media.music, body.model, 'music');
  if (body.lyrics && body.lyrics.length > model.max_lyrics_chars) {
    throw invalidField('lyrics', `model ${model.id} takes at most ${model.max_lyrics_chars} characters`);
  }
  const instrumental = body.instrumental ?? false;
  if (instrumental && body.vocal_gender) throw invalidField('vocal_gender', 'is for tracks with vocals');
  const style = body.style ?? '';
  return {
    operation: OperationName.musicGenerate,
    model: model.id,
    input: {
      title: body.title,
      style,
      lyrics: instrumental ? null : (body.lyrics ?? null),
      instrumental,
      vocal_gender: body.vocal_gender ?? null,
      duration: trackSeconds(instrumental ? undefined : body.lyrics, style, model.max_duration_seconds),
    } satisfies MusicInput,
    items: [{ type: 'audio', price: model.price.credits_per_track }],
    estimatedSeconds: model.estimated_seconds,
  };
}
