import { defineVendor } from '../descriptor.ts';
import { createReplicateProvider } from './client.ts';
import { REPLICATE_MAPPINGS } from './mappings.ts';

/** Replicate: configured by its token. */
export const REPLICATE_VENDOR = defineVendor({
  id: 'replicate',
  mappings: REPLICATE_MAPPINGS,
  settings: ({ replicate }) => (replicate.token ? { ...replicate, token: replicate.token } : undefined),
  create: (account, fetch) =>
    createReplicateProvider({
      token: account.token,
      baseUrl: account.baseUrl,
      webhookSecret: account.webhookSecret,
      fetch,
    }),
  trustedOrigins: (account) => [new URL(account.baseUrl).origin],
  secrets: (account) => [account.token, account.webhookSecret],
});
