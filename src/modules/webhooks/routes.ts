import type { App } from '../../app-types.ts';

/** The team's own view of its webhooks: the signing secret and the deliveries. */
export default async function webhookRoutes(_app: App): Promise<void> {}
