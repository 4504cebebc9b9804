import { Type } from 'typebox';
import { Timestamp } from '../../lib/schemas.ts';

export const Workspace = Type.Object(
  { id: Type.String(), name: Type.String(), created_at: Timestamp },
  { $id: 'Workspace', title: 'Workspace' },
);

export const CreateWorkspaceBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'Display name' }),
});

/** The optional `workspace_id` field every creating endpoint accepts. */
export const WorkspaceIdField = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Assigns the result to a workspace of your team (404 unknown, 403 another team)',
});

export const WorkspaceParams = Type.Object({ workspace_id: WorkspaceIdField });
