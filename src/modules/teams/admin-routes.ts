import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { actorOf } from '../live-config/actor.ts';
import { getSigningSecret, rotateSigningSecret } from '../webhooks/service.ts';
import { CreateTeamBody, Pagination, Team, TeamParams, UpdateTeamBody, WebhookSecret } from './schemas.ts';
import { createTeam, getTeam, listTeams, updateTeam } from './service.ts';

export default async function teamAdminRoutes(app: App): Promise<void> {
  const tags = ['Admin'];

  app.post(
    '/admin/v1/teams',
    {
      schema: {
        tags,
        summary: 'Create a team',
        body: CreateTeamBody,
        response: { 201: Team, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return createTeam(app.deps.pool, app.deps.secrets, request.body);
    },
  );

  app.get(
    '/admin/v1/teams',
    {
      schema: {
        tags,
        summary: 'List teams, newest first',
        querystring: Pagination,
        response: { 200: Type.Array(Team), ...errorResponses(400, 401) },
      },
    },
    (request) => listTeams(app.deps.pool, request.query.limit, request.query.before),
  );

  app.get(
    '/admin/v1/teams/:team_id',
    {
      schema: {
        tags,
        summary: 'Read a team',
        params: TeamParams,
        response: { 200: Team, ...errorResponses(401, 404) },
      },
    },
    (request) => getTeam(app.deps.pool, request.params.team_id),
  );

  app.patch(
    '/admin/v1/teams/:team_id',
    {
      schema: {
        tags,
        summary:
          "Change a team's settings: its cap of items running at once, its price multiplier and the models open to it",
        params: TeamParams,
        body: UpdateTeamBody,
        response: { 200: Team, ...errorResponses(400, 401, 404) },
      },
    },
    (request) =>
      updateTeam(
        app.deps.pool,
        app.deps.engine,
        { catalog: app.deps.catalog, media: app.deps.media },
        actorOf(request),
        request.params.team_id,
        request.body,
      ),
  );

  app.get(
    '/admin/v1/teams/:team_id/webhook-secret',
    {
      schema: {
        tags,
        summary: "Read the team's webhook signing secret",
        params: TeamParams,
        response: { 200: WebhookSecret, ...errorResponses(401, 404) },
      },
    },
    async (request) => ({
      secret: (await getSigningSecret(app.deps.pool, app.deps.secrets, request.params.team_id)).secret,
    }),
  );

  app.post(
    '/admin/v1/teams/:team_id/webhook-secret',
    {
      schema: {
        tags,
        summary: "Rotate the team's webhook signing secret",
        params: TeamParams,
        response: { 201: WebhookSecret, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return { secret: (await rotateSigningSecret(app.deps.pool, app.deps.secrets, request.params.team_id)).secret };
    },
  );
}
