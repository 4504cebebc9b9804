import type { App } from '../../app-types.ts';

/** An OpenAI-compatible door for existing clients: chat, images, speech and the model list. */
export default async function openAiRoutes(_app: App): Promise<void> {}
