import type pg from 'pg';
import type { Deps } from './app-types.ts';
import { loadMediaCatalog } from './catalog/media-models.ts';
import { loadModelCatalog } from './catalog/models.ts';
import { loadCreditPlans } from './catalog/plans.ts';
import type { Config } from './config.ts';
import { newId } from './lib/ids.ts';
import { AuthFailureThrottle, TeamRateLimiter } from './lib/rate-limiter.ts';
import { ApiKeyAuthenticator } from './modules/api-keys/authenticator.ts';
import { changeCredits } from './modules/credits/service.ts';
import { completeIdempotencyKey, recordClaimedGeneration } from './modules/idempotency/service.ts';
import { enqueueWebhook, queueDeliveryAttempt, WEBHOOK_TASK } from './modules/webhooks/service.ts';
import { resolveWorkspace } from './modules/workspaces/service.ts';
import { createMetricsRegistry } from './plugins/metrics.ts';
import { createProviderRegistry } from './providers/registry.ts';
import type { Fetch } from './providers/types.ts';
import { createStorage, defaultLocalRoot } from './storage/index.ts';

/** Everything the API and the workers share, built once per process from the configuration. */
export function createDeps(config: Config, pool: pg.Pool, adminToken: string | undefined): Deps {
  const { s3 } = config.storage;
  return {
    config,
    pool,
    authenticator: new ApiKeyAuthenticator(pool, config.authCacheTtlMs),
    rateLimiter: new TeamRateLimiter(config.rateLimit),
    authThrottle: new AuthFailureThrottle(config.authFailures),
    plans: loadCreditPlans(),
    catalog: loadModelCatalog(),
    media: loadMediaCatalog(),
    storage: createStorage({
      driver: config.storage.driver,
      localRoot: defaultLocalRoot(config.dataDir),
      publicBaseUrl: config.publicBaseUrl,
      s3: {
        bucket: s3.bucket,
        region: s3.region,
        endpoint: s3.endpoint,
        forcePathStyle: s3.forcePathStyle,
        accessKeyId: s3.accessKeyId,
        secretAccessKey: s3.secretAccessKey,
        prefix: s3.prefix,
        publicUrl: s3.publicUrl,
      },
    }),
    adminToken,
    instanceId: newId('proc'),
    engine: {
      changeCredits,
      enqueueWebhook,
      webhookTask: WEBHOOK_TASK,
      queueDeliveryAttempt,
      resolveWorkspace,
      completeIdempotencyKey,
      recordClaimedGeneration,
    },
    providers: createProviderRegistry(config.providers, vendorFetch(config.providers.httpTimeoutMs)),
    metrics: createMetricsRegistry(),
  };
}

/** The fetch vendor adapters get: every call to a vendor's API ends within `timeoutMs`. */
function vendorFetch(timeoutMs: number): Fetch {
  return (url, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    return fetch(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout });
  };
}
