import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { TeamParams } from '../teams/schemas.ts';
import {
  IMPORT_BODY_LIMIT,
  StoryboardImportBody,
  StoryboardListQuery,
  StoryboardParams,
  StoryboardProject,
  StoryboardSummary,
} from './schemas.ts';
import { getStoryboard, importStoryboard, listStoryboards } from './service.ts';

const tags = ['Storyboards'];

/** Storyboard projects: the team reads them under /api; the operator imports them under /admin. */
export default async function storyboardsRoutes(app: App): Promise<void> {
  app.get(
    '/api/v1/storyboard',
    {
      schema: {
        tags,
        summary: "List the team's storyboard projects",
        description:
          'Newest first. Each project carries one summary per scene, by position: the URL of its first frame ' +
          '(the selected image version, else the latest, of the first frame that has one) and of its video ' +
          '(the selected video version, else the latest, of the first shot that has one). ' +
          '`workspace_id` narrows the list to one workspace of the team.',
        querystring: StoryboardListQuery,
        response: { 200: Type.Array(StoryboardSummary), ...errorResponses(400, 401, 403, 404) },
      },
    },
    (request) => listStoryboards(app.deps.pool, request.principal.teamId, request.query.workspace_id),
  );

  app.get(
    '/api/v1/storyboard/:projectId',
    {
      schema: {
        tags,
        summary: 'Read a storyboard project',
        description:
          'The whole project: outfits, locations and custom elements, then scenes → shots → frames → image ' +
          'versions and shots → video versions, ordered by position and version (oldest first). ' +
          '`image_url` and `video_url` give the current version (the selected one, else the latest). ' +
          'Another team’s project is 404, like an unknown one.',
        params: StoryboardParams,
        response: { 200: StoryboardProject, ...errorResponses(401, 404) },
      },
    },
    (request) => getStoryboard(app.deps.pool, request.principal.teamId, request.params.projectId),
  );

  app.post(
    '/admin/v1/teams/:team_id/storyboards',
    {
      bodyLimit: Math.max(IMPORT_BODY_LIMIT, app.deps.config.jsonBodyLimit),
      schema: {
        tags: ['Admin'],
        summary: 'Import a storyboard project for a team',
        description:
          'Creates a whole project graph in one transaction: either all of it is stored or nothing. Positions ' +
          'and versions follow the order of the arrays (1-based, versions oldest first). At most one image ' +
          'version per frame and one video version per shot may be `selected`; asset names are unique per kind. ' +
          `Unknown fields are refused. The body may be up to ${IMPORT_BODY_LIMIT / (1024 * 1024)} MiB (or ` +
          'JSON_BODY_LIMIT, if larger). Answers ' +
          'with the project as GET /api/v1/storyboard/{projectId} does. ' +
          'See docs/storyboards.md for a full example.',
        params: TeamParams,
        body: StoryboardImportBody,
        response: { 201: StoryboardProject, ...errorResponses(400, 401, 403, 404, 413) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return importStoryboard(app.deps.pool, request.params.team_id, request.body);
    },
  );
}
