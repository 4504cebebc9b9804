import { defineVendor } from '../descriptor.ts';
import { createFalProvider } from './client.ts';
import { FAL_MAPPINGS } from './mappings/index.ts';
import { jwksFromUrl } from './webhook.ts';

/** fal.ai: configured by its key. */
export const FAL_VENDOR = defineVendor({
  id: 'fal',
  mappings: FAL_MAPPINGS,
  settings: ({ fal }) => (fal.key ? { ...fal, key: fal.key } : undefined),
  create: (fal, fetch) =>
    createFalProvider({
      key: fal.key,
      queueUrl: fal.queueUrl,
      requestTimeoutS: fal.requestTimeoutS,
      fetch,
      jwks: jwksFromUrl(fal.jwksUrl, fetch),
    }),
  trustedOrigins: (fal) => [new URL(fal.queueUrl).origin],
  secrets: (fal) => [fal.key],
  withKey: ({ fal }, _hooks, key, queueUrl) => ({ ...fal, key, queueUrl: queueUrl ?? fal.queueUrl }),
});
