import type { App } from '../../app-types.ts';

/** Routes of this module (being written). */
export default async function paymentsRoutes(_app: App): Promise<void> {}
