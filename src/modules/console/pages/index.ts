// Every page and action of the console, by area.
import type { ConsoleRoute } from '../types.ts';
import { billingRoutes } from './billing.ts';
import { credentialRoutes } from './credentials.ts';
import { generationRoutes } from './generations.ts';
import { libraryRoutes } from './library.ts';
import { liveRoutes } from './live.ts';
import { modelRoutesRoutes } from './model-routes.ts';
import { operatorRoutes } from './operator.ts';
import { overviewRoutes } from './overview.ts';
import { playgroundRoutes } from './playground.ts';
import { projectRoutes } from './projects.ts';
import { webhookRoutes } from './webhooks.ts';
import { workspaceRoutes } from './workspaces.ts';

export const CONSOLE_ROUTES: ConsoleRoute[] = [
  ...overviewRoutes,
  ...generationRoutes,
  ...playgroundRoutes,
  ...billingRoutes,
  ...webhookRoutes,
  ...workspaceRoutes,
  ...libraryRoutes,
  ...projectRoutes,
  ...operatorRoutes,
  ...liveRoutes,
  ...credentialRoutes,
  ...modelRoutesRoutes,
];
