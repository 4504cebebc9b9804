import { defineVendor } from '../descriptor.ts';
import { checkOpenAiCompatible, createOpenAiCompatibleProvider } from './client.ts';
import { OPENAI_COMPATIBLE_MAPPINGS } from './mappings.ts';

/** An OpenAI-compatible chat server: configured by its key, or by a base URL alone. */
export const OPENAI_COMPATIBLE_VENDOR = defineVendor({
  id: 'openai-compatible',
  mappings: OPENAI_COMPATIBLE_MAPPINGS,
  settings: ({ openAiCompatible }) => (openAiCompatible.configured ? openAiCompatible : undefined),
  create: (server, fetch) => {
    const settings = {
      baseUrl: server.baseUrl,
      apiKey: server.apiKey,
      modelNames: server.modelNames,
      appName: 'genmedia',
      fetch,
    };
    return { ...createOpenAiCompatibleProvider(settings), check: () => checkOpenAiCompatible(settings) };
  },
  trustedOrigins: () => [],
  secrets: (server) => [server.apiKey],
  withKey: ({ openAiCompatible }, _hooks, apiKey, baseUrl) => ({
    ...openAiCompatible,
    apiKey,
    baseUrl: baseUrl ?? openAiCompatible.baseUrl,
  }),
});
