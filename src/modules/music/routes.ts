import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { acceptedWithCredits } from '../../engine/accepted.ts';
import { defineGenerationEndpoint } from '../../engine/define.ts';
import { notFound } from '../../lib/errors.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { AcceptedWithCredits } from '../videos/schemas.ts';
import { resolveWorkspace } from '../workspaces/service.ts';
import { MusicGenerateBody, MusicListQuery, MusicTrack } from './schemas.ts';
import { planMusic, toTrack } from './service.ts';
import { selectTrack, selectTracksOfTeam } from './sql.ts';

const tags = ['Music'];

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
    plan: planMusic,
    respond: (created) => acceptedWithCredits(created, {}),
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
