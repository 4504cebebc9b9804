import { REPLICATE_HARDWARE_USD_PER_SECOND } from '../../catalog/replicate-hardware.ts';
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
      usdPerSecondByModel: Object.fromEntries(
        Object.entries(account.modelHardware).flatMap(([model, sku]) => {
          const price = REPLICATE_HARDWARE_USD_PER_SECOND[sku];
          return price === undefined ? [] : [[model, price]];
        }),
      ),
    }),
  trustedOrigins: (account) => [new URL(account.baseUrl).origin],
  secrets: (account) => [account.token, account.webhookSecret],
  // REPLICATE_WEBHOOK_SECRET is the signing secret of the environment token's account: another
  // token's webhooks are verified with its own account's secret, read with that token.
  withKey: ({ replicate }, _hooks, token, baseUrl) => ({
    ...replicate,
    token,
    baseUrl: baseUrl ?? replicate.baseUrl,
    webhookSecret: token === replicate.token ? replicate.webhookSecret : undefined,
  }),
});
