import type { App } from '../../app-types.ts';

/** Routes of this module (being written). */
export default async function desktopProjectsRoutes(_app: App): Promise<void> {}
