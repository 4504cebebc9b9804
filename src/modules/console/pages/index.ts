// Every page and action of the console, by area.
import type { ConsoleRoute } from '../routes.ts';
import { generationRoutes } from './generations.ts';
import { overviewRoutes } from './overview.ts';

export const CONSOLE_ROUTES: ConsoleRoute[] = [...overviewRoutes, ...generationRoutes];
