import { defineVendor } from '../descriptor.ts';
import { checkElevenLabs } from './client.ts';
import { createElevenLabsProvider, ELEVENLABS_MAPPINGS } from './provider.ts';

/** ElevenLabs: configured by its key. */
export const ELEVENLABS_VENDOR = defineVendor({
  id: 'elevenlabs',
  mappings: ELEVENLABS_MAPPINGS,
  settings: ({ elevenLabs }, { fetchSample }) =>
    elevenLabs.apiKey
      ? {
          apiKey: elevenLabs.apiKey,
          baseUrl: elevenLabs.baseUrl,
          fetchSample,
          usdPer1kChars: elevenLabs.usdPer1kChars,
        }
      : undefined,
  create: (account, fetch) => {
    const settings = { ...account, fetch };
    return { ...createElevenLabsProvider(settings), check: () => checkElevenLabs(settings) };
  },
  trustedOrigins: () => [],
  secrets: (account) => [account.apiKey],
  withKey: ({ elevenLabs }, { fetchSample }, apiKey, baseUrl) => ({
    apiKey,
    baseUrl: baseUrl ?? elevenLabs.baseUrl,
    fetchSample,
    usdPer1kChars: elevenLabs.usdPer1kChars,
  }),
});
