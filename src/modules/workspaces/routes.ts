import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { TeamParams } from '../teams/schemas.ts';
import { getTeam } from '../teams/service.ts';
import { CreateWorkspaceBody, Workspace, WorkspaceParams } from './schemas.ts';
import { createWorkspace, getWorkspace, listWorkspaces } from './service.ts';

/** The team's own workspaces: GET/POST /api/v1/workspaces (an extension of the spec). */
export default async function workspaceRoutes(app: App): Promise<void> {
  app.get(
    '/api/v1/workspaces',
    {
      schema: {
        tags: ['Workspaces'],
        summary: "List the team's workspaces",
        response: { 200: Type.Array(Workspace), ...errorResponses(401) },
      },
    },
    (request) => listWorkspaces(app.deps.pool, request.principal.teamId),
  );

  app.get(
    '/api/v1/workspaces/:workspace_id',
    {
      schema: {
        tags: ['Workspaces'],
        summary: 'Read one workspace',
        params: WorkspaceParams,
        response: { 200: Workspace, ...errorResponses(401, 403, 404) },
      },
    },
    (request) => getWorkspace(app.deps.pool, request.principal.teamId, request.params.workspace_id),
  );

  app.post(
    '/api/v1/workspaces',
    {
      schema: {
        tags: ['Workspaces'],
        summary: 'Create a workspace',
        body: CreateWorkspaceBody,
        response: { 201: Workspace, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return createWorkspace(app.deps.pool, request.principal.teamId, request.body.name);
    },
  );
}

/** Admin side: workspaces of any team. */
export async function workspaceAdminRoutes(app: App): Promise<void> {
  app.post(
    '/admin/v1/teams/:team_id/workspaces',
    {
      schema: {
        tags: ['Admin'],
        summary: 'Create a workspace for a team',
        params: TeamParams,
        body: CreateWorkspaceBody,
        response: { 201: Workspace, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return createWorkspace(app.deps.pool, request.params.team_id, request.body.name);
    },
  );

  app.get(
    '/admin/v1/teams/:team_id/workspaces',
    {
      schema: {
        tags: ['Admin'],
        summary: "List a team's workspaces",
        params: TeamParams,
        response: { 200: Type.Array(Workspace), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      await getTeam(app.deps.pool, request.params.team_id);
      return listWorkspaces(app.deps.pool, request.params.team_id);
    },
  );
}
