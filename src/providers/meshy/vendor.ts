import { defineVendor } from '../descriptor.ts';
import { createMeshyProvider } from './client.ts';
import { MESHY_MAPPINGS } from './mappings.ts';

/** Meshy: configured by its key. */
export const MESHY_VENDOR = defineVendor({
  id: 'meshy',
  mappings: MESHY_MAPPINGS,
  settings: ({ meshy }) =>
    meshy.apiKey ? { apiKey: meshy.apiKey, baseUrl: meshy.baseUrl, usdPerCredit: meshy.usdPerCredit } : undefined,
  create: (account, fetch) => createMeshyProvider({ ...account, fetch }),
  trustedOrigins: (account) => [new URL(account.baseUrl).origin],
  secrets: (account) => [account.apiKey],
  withKey: ({ meshy }, _hooks, apiKey, baseUrl) => ({
    apiKey,
    baseUrl: baseUrl ?? meshy.baseUrl,
    usdPerCredit: meshy.usdPerCredit,
  }),
});
