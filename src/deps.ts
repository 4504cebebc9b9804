import type pg from 'pg';
import sharp from 'sharp';
import type { Deps } from './app-types.ts';
import { loadMediaCatalog } from './catalog/media-models.ts';
import { loadModelCatalog } from './catalog/models.ts';
import { addComfyRoutes } from './catalog/operator-routes.ts';
import { loadCreditPlans } from './catalog/plans.ts';
import type { Config } from './config.ts';
import { DatabaseHealth } from './db/health.ts';
import { RoomWaits } from './engine/room-waits.ts';
import { createMediaFetcher } from './engine/urls.ts';
import { WorkError } from './lib/errors.ts';
import { probeMedia } from './lib/ffmpeg.ts';
import { newId } from './lib/ids.ts';
import { AuthFailureThrottle, TeamRateLimiter } from './lib/rate-limiter.ts';
import { createSecretBox, type SecretBox } from './lib/secret-box.ts';
import { ApiKeyAuthenticator } from './modules/api-keys/authenticator.ts';
import { CredentialStore } from './modules/credentials/store.ts';
import { getBalance } from './modules/credits/service.ts';
import { completeIdempotencyKey, recordClaimedGeneration } from './modules/idempotency/service.ts';
import { linkLiveConfig } from './modules/live-config/link.ts';
import { LiveConfig } from './modules/live-config/store.ts';
import { enqueueWebhook, queueDeliveryAttempt, WEBHOOK_TASK } from './modules/webhooks/service.ts';
import { resolveWorkspace } from './modules/workspaces/service.ts';
import { executionContext, operations } from './operations.ts';
import { createCredentialMetrics, createMetricsRegistry, createServiceMetrics } from './plugins/metrics.ts';
import { loadWorkflows } from './providers/comfyui/workflows.ts';
import { createProviderRegistry } from './providers/registry.ts';
import { vendorFetch } from './providers/vendor-fetch.ts';
import { createStorage, defaultLocalRoot } from './storage/index.ts';
import { createMediaSigner } from './storage/signed-urls.ts';

/** Everything the API and the workers share, built once per process from the configuration. */
export function createDeps(
  config: Config,
  pool: pg.Pool,
  adminToken: string | undefined,
  secretsMaterial: string | undefined = config.secretsKey ?? adminToken,
): Deps {
  const { s3 } = config.storage;
  const catalog = loadModelCatalog();
  const media = loadMediaCatalog();
  const storage = createStorage({
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
  });
  const comfy = config.providers.comfyui;
  // The operator's own templates beside (or instead of) the built-in ones of the same name.
  const comfyWorkflows = comfy.url
    ? { ...loadWorkflows(), ...(comfy.workflowsDir ? loadWorkflows(comfy.workflowsDir) : {}) }
    : {};
  if (comfy.url && config.providers.mode === 'auto') {
    addComfyRoutes(catalog, media, comfy.models, Object.keys(comfyWorkflows));
  }
  const metrics = createMetricsRegistry();
  const secrets = secretBoxFor(secretsMaterial);
  const mediaSigner = createMediaSigner(secrets, config.publicBaseUrl, config.inputUrlTtlSeconds);
  // Read from the database when the API starts (buildApp); empty (the catalog as shipped) until then.
  const live = new LiveConfig(pool);
  linkLiveConfig(live, catalog, media);
  // The vendor credentials added through the admin API, and every credential's health.
  const credentials = new CredentialStore(
    pool,
    secrets,
    { after: config.providers.credentialCooldown.after, seconds: config.providers.credentialCooldown.seconds },
    createCredentialMetrics(metrics),
  );
  const deps: Deps = {
    config,
    pool,
    live,
    credentials,
    databaseHealth: new DatabaseHealth(pool, config.databaseTimeouts.checkMs, config.databaseTimeouts.connectMs),
    authenticator: new ApiKeyAuthenticator(pool, { ttlMs: config.authCacheTtlMs, trustMs: config.authKeyTrustMs }),
    rateLimiter: new TeamRateLimiter(config.rateLimit),
    authThrottle: new AuthFailureThrottle(config.authFailures),
    plans: loadCreditPlans(),
    catalog,
    media,
    storage,
    adminToken,
    secrets,
    mediaSigner,
    instanceId: newId('proc'),
    engine: {
      readBalance: getBalance,
      teamMaxConcurrentItems: config.items.teamMaxConcurrentItems,
      enqueueWebhook,
      webhookTask: WEBHOOK_TASK,
      queueDeliveryAttempt,
      resolveWorkspace,
      completeIdempotencyKey,
      recordClaimedGeneration,
      metrics: createServiceMetrics(metrics, pool),
      live,
    },
    providers: createProviderRegistry(
      config.providers,
      vendorFetch(config.providers.httpTimeoutMs),
      {
        comfyWorkflows,
        fetchInput: inputImageFetcher(createMediaFetcher(storage, mediaSigner, config.allowPrivateUrls)),
        fetchSample: inputAudioFetcher(createMediaFetcher(storage, mediaSigner, config.allowPrivateUrls)),
      },
      credentials,
    ),
    metrics,
    // Built before `deps` is complete; the context reads it only when work runs.
    work: { operations, context: (signal) => executionContext(deps, signal), rooms: new RoomWaits(pool) },
  };
  return deps;
}

/**
 * The box of stored secrets (SECRETS_KEY, else ADMIN_TOKEN; the embedded setup keeps its own key).
 * Without key material it refuses to seal or open: a process that signs or shows webhook secrets
 * needs one (server start checks that).
 */
function secretBoxFor(material: string | undefined): SecretBox {
  if (material) return createSecretBox(material);
  const refuse = (): never => {
    throw new Error('Set SECRETS_KEY (or ADMIN_TOKEN): webhook signing secrets are stored encrypted under it');
  };
  return { seal: refuse, open: refuse, mac: refuse, isSealed: (stored) => stored.startsWith('enc:') };
}

/** An input image for a self-hosted server: its bytes under the outbound policy, and its type. */
/** A recording fetched for a vendor that is given its bytes, with its audio type as ffprobe reads it. */
function inputAudioFetcher(fetchMedia: (url: string) => Promise<Buffer>) {
  return async (url: string): Promise<{ data: Buffer; contentType: string }> => {
    const data = await fetchMedia(url);
    const probe = await probeMedia(data).catch(() => undefined);
    const contentType = probe?.hasAudio
      ? AUDIO_CONTAINERS.find(([name]) => probe.format.split(',').includes(name))?.[1]
      : undefined;
    if (!contentType)
      throw new WorkError(`${url} is not a recording in a format we can send`, false, { kind: 'invalid_input' });
    return { data, contentType };
  };
}

/** ffprobe's format names of the recordings a clone may be made from, with their media types. */
const AUDIO_CONTAINERS: ReadonlyArray<readonly [string, string]> = [
  ['mp3', 'audio/mpeg'],
  ['wav', 'audio/wav'],
  ['ogg', 'audio/ogg'],
  ['flac', 'audio/flac'],
  ['aac', 'audio/aac'],
  ['mp4', 'audio/mp4'],
  ['m4a', 'audio/mp4'],
  ['webm', 'audio/webm'],
  ['matroska', 'audio/webm'],
];

function inputImageFetcher(fetchMedia: (url: string) => Promise<Buffer>) {
  return async (url: string): Promise<{ data: Buffer; contentType: string }> => {
    const data = await fetchMedia(url);
    const { format } = await sharp(data)
      .metadata()
      .catch(() => ({ format: undefined }));
    if (!format) throw new WorkError(`${url} is not an image`, false, { kind: 'invalid_input' });
    return { data, contentType: `image/${format}` };
  };
}
