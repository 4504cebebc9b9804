import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { lookupModel } from '../../catalog/lookup.ts';
import { defineGenerationEndpoint } from '../../engine/define.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { invalidField, notFound } from '../../lib/errors.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { AcceptedWithCredits } from '../videos/schemas.ts';
import { resolveWorkspace } from '../workspaces/service.ts';
import { MusicGenerateBody, MusicListQuery, MusicTrack } from './schemas.ts';
import { selectTrack, selectTracksOfTeam, type TrackRow } from './sql.ts';

const tags = ['Music'];

/** How long a track is: sung lyrics set it (about 2.5 words a second, plus intro and outro), else the style. */
export function trackSeconds(lyrics: string | undefined, style: string, maxSeconds: number): number {
  const words = (lyrics ?? '').split(/\s+/).filter(Boolean).length;
  const seconds = words > 0 ? 20 + words / 2.5 : /ambient|drone|soundscape/i.test(style) ? 90 : 60;
  return Math.min(maxSeconds, Math.max(30, Math.round(seconds)));
}

function toTrack(row: TrackRow) {
  return {
    id: row.id,
    title: row.title,
    style: row.style,
    url: row.url,
    status: row.status,
    generation_id: row.generation_id,
    created_at: row.created_at.toISOString(),
  };
}

export default async function musicRoutes(app: App): Promise<void> {
  defineGenerationEndpoint(app, {
    url: '/api/v1/music/generate',
    tags,
    summary: 'Generate a music track',
    description:
      'Asynchronous: poll the status endpoint; when the generation completes a music track is created ' +
      '(GET /api/v1/music). Sung lyrics set the length (about 2.5 words per second); instrumentals run 60-90 s. ' +
      'Costs the model’s credits_per_track.',
    body: MusicGenerateBody,
    response: AcceptedWithCredits,
    errors: [403, 404],
    plan({ media }, body): GenerationPlan {
      const model = lookupModel(media.music, body.model, 'music');
      if (body.lyrics && body.lyrics.length > model.max_lyrics_chars) {
        throw invalidField('lyrics', `model ${model.id} takes at most ${model.max_lyrics_chars} characters`);
      }
      const instrumental = body.instrumental ?? false;
      if (instrumental && body.vocal_gender) throw invalidField('vocal_gender', 'is for tracks with vocals');
      const style = body.style ?? '';
      return {
        operation: 'music.generate',
        model: model.id,
        input: {
          title: body.title,
          style,
          lyrics: instrumental ? null : (body.lyrics ?? null),
          instrumental,
          vocal_gender: body.vocal_gender ?? null,
          duration: trackSeconds(instrumental ? undefined : body.lyrics, style, model.max_duration_seconds),
        },
        items: [{ type: 'audio', price: model.price.credits_per_track }],
        estimatedSeconds: model.estimated_seconds,
      };
    },
    respond: (created) => ({
      generation_id: created.id,
      status: created.status,
      estimated_time: created.estimatedSeconds,
      credits_used: created.creditsCharged,
    }),
  });

  app.get(
    '/api/v1/music',
    {
      schema: {
        tags,
        summary: "List the team's music tracks",
        querystring: MusicListQuery,
        response: { 200: Type.Array(MusicTrack), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { teamId } = request.principal;
      const workspaceId = await resolveWorkspace(app.deps.pool, teamId, request.query.workspace_id);
      return (await selectTracksOfTeam(app.deps.pool, teamId, workspaceId)).map(toTrack);
    },
  );

  app.get(
    '/api/v1/music/:id',
    {
      schema: {
        tags,
        summary: 'Read one music track',
        description: 'Another team’s track is 404, like an unknown one.',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: MusicTrack, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const row = await selectTrack(app.deps.pool, request.params.id);
      if (!row || row.team_id !== request.principal.teamId) throw notFound('Music track', request.params.id);
      return toTrack(row);
    },
  );
}
