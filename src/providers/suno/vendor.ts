import { createHash } from 'node:crypto';
import { defineVendor } from '../descriptor.ts';
import { checkSuno, createSunoProvider } from './client.ts';
import { SUNO_MAPPINGS } from './mappings.ts';

/** A sunoapi.org-compatible music API: configured by its key. */
export const SUNO_VENDOR = defineVendor({
  id: 'suno',
  mappings: SUNO_MAPPINGS,
  settings: ({ suno }) => (suno.apiKey ? { apiKey: suno.apiKey, baseUrl: suno.baseUrl } : undefined),
  create: (account, fetch) => {
    const settings = {
      ...account,
      fetch,
      // Callbacks are not signed: their URLs carry tokens made with a secret only we know.
      callbackToken: createHash('sha256').update(`suno-callback:${account.apiKey}`).digest('hex'),
      // The vendor wants a callback URL even when it cannot reach us: one that resolves nowhere.
      fallbackCallbackUrl: 'https://callback.invalid/suno',
    };
    return { ...createSunoProvider(settings), check: () => checkSuno(settings) };
  },
  trustedOrigins: (account) => [new URL(account.baseUrl).origin],
  secrets: (account) => [account.apiKey],
  withKey: ({ suno }, _hooks, apiKey, baseUrl) => ({ apiKey, baseUrl: baseUrl ?? suno.baseUrl }),
});
