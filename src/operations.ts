import { isIP } from 'node:net';
import type { Deps } from './app-types.ts';
import { simulatorMayServe } from './config.ts';
import type { ExecutionContext, Operation } from './engine/types.ts';
import { createMediaFetcher } from './engine/urls.ts';
import { itemWebhookCredential, WEBHOOK_CREDENTIAL_PARAM, WEBHOOK_ITEM_PARAM } from './engine/vendor.ts';
import { isPublicAddress } from './lib/safe-fetch.ts';
import { imageOperations } from './modules/images/operations.ts';
import { influencerOperations } from './modules/influencers/operations.ts';
import { model3dOperations } from './modules/models3d/operations.ts';
import { musicOperations } from './modules/music/operations.ts';
import { speechOperations } from './modules/speech/operations.ts';
import { textOperations } from './modules/text/operations.ts';
import { videoOperations } from './modules/videos/operations.ts';
import { voiceOperations } from './modules/voices/operations.ts';
import { createSimulatorProvider } from './providers/simulator/provider.ts';

/** Every operation the service runs, by name (a generation row's `operation`). */
export const operations: Record<string, Operation> = {
  ...imageOperations,
  ...videoOperations,
  ...musicOperations,
  ...model3dOperations,
  ...textOperations,
  ...speechOperations,
  ...influencerOperations,
  ...voiceOperations,
};

/**
 * Whether a vendor on the internet can post to `publicBaseUrl`: a public host (a name other than
 * localhost and the like, or a public address), or any when private URLs are allowed (tests).
 */
export function vendorsCanReach(publicBaseUrl: string, allowPrivateUrls: boolean): boolean {
  if (allowPrivateUrls) return true;
  const host = new URL(publicBaseUrl).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return isPublicAddress(host);
  return !/(^|\.)(localhost|local|internal|lan|home\.arpa)$/i.test(host) && host.includes('.');
}

/** What operations run with, in a worker or (for synchronous endpoints) in the API process. */
export function executionContext(deps: Deps, signal: AbortSignal): ExecutionContext {
  const fetchMedia = createMediaFetcher(deps.storage, deps.mediaSigner, deps.config.allowPrivateUrls);
  return {
    pool: deps.pool,
    services: deps.engine,
    storage: deps.storage,
    mediaSigner: deps.mediaSigner,
    catalog: deps.catalog,
    media: deps.media,
    fetchMedia,
    recordUrl: (key) => `${deps.config.publicBaseUrl}/media/${key}`,
    signal,
    itemPolicy: deps.config.items,
    providers: deps.providers,
    simulator: createSimulatorProvider({ delayMs: deps.config.simulatorDelayMs, fetchMedia }),
    simulatorMayServe: (kind, model) => simulatorMayServe(deps.config.providers.simulator, kind, model),
    poll: deps.config.providers.poll,
    routeCooldown: deps.config.providers.cooldown,
    credentialCaps: deps.config.providers.credentialCaps,
    vendorVoiceIds: deps.config.providers.elevenLabs.voiceMap,
    vendorUnitPricesUsd: deps.config.providers.unitPricesUsd,
    vendorWebhookUrl: (providerId, itemId) => {
      if (!vendorsCanReach(deps.config.publicBaseUrl, deps.config.allowPrivateUrls)) return undefined;
      const query = new URLSearchParams({
        [WEBHOOK_ITEM_PARAM]: itemId,
        [WEBHOOK_CREDENTIAL_PARAM]: itemWebhookCredential(deps.secrets, providerId, itemId),
      });
      return `${deps.config.publicBaseUrl}/webhooks/providers/${providerId}?${query}`;
    },
    trustedOriginsOf: (providerId) => deps.providers.trustedOrigins(providerId),
    allowPrivateUrls: deps.config.allowPrivateUrls,
  };
}
