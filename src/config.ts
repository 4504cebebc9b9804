import { isIP } from 'node:net';
import { type Static, Type } from 'typebox';
import Value from 'typebox/value';
import type { ComfyModelWorkflows } from './catalog/operator-routes.ts';
import { REPLICATE_HARDWARE_USD_PER_SECOND } from './catalog/replicate-hardware.ts';
import { PRESET_VOICES } from './catalog/voices.ts';
import type { DatabaseTimeouts } from './db/pool.ts';

const Role = Type.Enum(['api', 'worker', 'all']);

/** Every setting the service reads from the environment, with its default. */
const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  ROLE: Type.Enum(['api', 'worker', 'all'], { default: 'all' }),
  DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  DATA_DIR: Type.String({ default: '.data' }),
  ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 24 })),
  SECRETS_KEY: Type.Optional(Type.String({ minLength: 24 })),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  JSON_BODY_LIMIT: Type.Integer({ minimum: 1024, default: 1_048_576 }),
  JSON_MAX_DEPTH: Type.Integer({ minimum: 8, maximum: 1000, default: 64 }),
  AUTH_CACHE_TTL_MS: Type.Integer({ minimum: 0, maximum: 1000, default: 500 }),
  AUTH_KEY_TRUST_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 60_000 }),
  RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 0, default: 3000 }),
  RATE_LIMIT_WRITES_PER_MINUTE: Type.Integer({ minimum: 0, default: 600 }),
  AUTH_FAILURES_PER_MINUTE: Type.Integer({ minimum: 0, default: 60 }),
  AUTH_FAILURES_BURST: Type.Integer({ minimum: 1, default: 20 }),
  TRUST_PROXY: Type.Optional(Type.String({ minLength: 1 })),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 24 })),
  METRICS_PORT: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://[^/]+(/.*)?$' })),
  OTEL_SERVICE_NAME: Type.String({ minLength: 1, default: 'genmedia' }),
  OTEL_BSP_SCHEDULE_DELAY: Type.Integer({ minimum: 10, maximum: 600_000, default: 5000 }),
  OTEL_PROPAGATORS: Type.String({ pattern: '^[A-Za-z0-9_, -]*$', default: 'tracecontext,baggage' }),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  DATABASE_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 3000 }),
  DATABASE_STATEMENT_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 10_000 }),
  DATABASE_QUERY_TIMEOUT_MS: Type.Optional(Type.Integer({ minimum: 100 })),
  DATABASE_CHECK_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 1500 }),
  WORKER_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 100, default: 4 }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 10_000 }),
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+(/.*)?$' })),
  STORAGE_DRIVER: Type.Enum(['local', 's3'], { default: 'local' }),
  S3_BUCKET: Type.Optional(Type.String({ minLength: 1 })),
  S3_REGION: Type.String({ default: 'us-east-1' }),
  S3_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://' })),
  S3_FORCE_PATH_STYLE: Type.Boolean({ default: false }),
  S3_ACCESS_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  S3_SECRET_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  S3_PREFIX: Type.String({ default: '' }),
  S3_PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  ALLOW_PRIVATE_URLS: Type.Boolean({ default: false }),
  SIMULATOR_DELAY_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 0 }),
  MEDIA_RETENTION_DAYS: Type.Integer({ minimum: 0, maximum: 36_500, default: 30 }),
  INPUT_URL_TTL_S: Type.Integer({ minimum: 60, maximum: 7 * 86_400, default: 3600 }),
  RECORDS_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 36_500, default: 30 }),
  EVENTS_KEEP_ALIVE_MS: Type.Integer({ minimum: 1000, maximum: 120_000, default: 15_000 }),
  EVENTS_MAX_STREAMS: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 20_000 }),
  EVENTS_MAX_STREAMS_PER_TEAM: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 200 }),
  UPLOADS_MAX_CONCURRENT_PER_TEAM: Type.Integer({ minimum: 1, maximum: 10_000, default: 4 }),
  TEAM_STORAGE_QUOTA_MB: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 10_240 }),
  WEBHOOK_RETRY_DELAYS_S: Type.String({ pattern: '^\\d+(,\\d+)*$', default: '5,300,1800,7200,18000,36000,36000' }),
  WORKER_DEAD_AFTER_MS: Type.Integer({ minimum: 1000, default: 30_000 }),
  ITEM_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 25, default: 3 }),
  TEAM_MAX_CONCURRENT_ITEMS: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 100 }),
  SYNC_REQUEST_TIMEOUT_S: Type.Integer({ minimum: 1, maximum: 300, default: 300 }),
  CANCEL_REFUND: Type.Enum(['none', 'full'], { default: 'none' }),
  CONSOLE_SESSION_IDLE_MINUTES: Type.Integer({ minimum: 1, maximum: 10_080, default: 60 }),
  CONSOLE_SESSION_MAX_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 12 }),
  ITEM_LEASE_MS: Type.Integer({ minimum: 300, default: 60_000 }),
  ITEM_MAX_INTERRUPTIONS: Type.Integer({ minimum: 0, maximum: 100, default: 5 }),
  ITEM_FINISH_PATIENCE_MS: Type.Integer({ minimum: 0, default: 600_000 }),
  SWEEP_INTERVAL_MS: Type.Integer({ minimum: 100, default: 10_000 }),
  ITEM_DEADLINE_S: Type.String({
    pattern: '^((text|image|audio|video|model)=\\d+(,(text|image|audio|video|model)=\\d+)*)?$',
    default: '',
  }),
  PROVIDERS: Type.Enum(['auto', 'simulator'], { default: 'auto' }),
  CONFIG_FILE: Type.Optional(Type.String({ minLength: 1 })),
  SIMULATOR_MODELS: Type.Optional(
    Type.String({
      pattern:
        '^\\s*(\\*|[a-z0-9_]+:[A-Za-z0-9._/-]+|[A-Za-z0-9._/-]+)(\\s*,\\s*(\\*|[a-z0-9_]+:[A-Za-z0-9._/-]+|[A-Za-z0-9._/-]+))*\\s*$',
    }),
  ),
  FAL_KEY: Type.Optional(Type.String({ minLength: 1 })),
  FAL_QUEUE_URL: Type.String({ pattern: '^https?://[^/]+(/.*)?$', default: 'https://queue.fal.run' }),
  FAL_JWKS_URL: Type.String({ pattern: '^https?://', default: 'https://rest.fal.ai/.well-known/jwks.json' }),
  FAL_REQUEST_TIMEOUT_S: Type.Integer({ minimum: 10, maximum: 86_400, default: 3600 }),
  REPLICATE_API_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
  REPLICATE_BASE_URL: Type.String({ pattern: '^https?://[^/]+/?$', default: 'https://api.replicate.com' }),
  REPLICATE_WEBHOOK_SECRET: Type.Optional(Type.String({ pattern: '^whsec_[A-Za-z0-9+/=]+$' })),
  REPLICATE_MODEL_HARDWARE: Type.Optional(Type.String({ minLength: 2 })),
  COMFYUI_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+(/.*)?$' })),
  COMFYUI_HEADERS: Type.Optional(Type.String({ minLength: 2 })),
  COMFYUI_WORKFLOWS_DIR: Type.Optional(Type.String({ minLength: 1 })),
  COMFYUI_MODELS: Type.Optional(Type.String({ minLength: 2 })),
  OPENAI_COMPATIBLE_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+(/.*)?$' })),
  OPENAI_COMPATIBLE_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  OPENAI_COMPATIBLE_MODELS: Type.Optional(Type.String({ minLength: 2 })),
  ELEVENLABS_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  ELEVENLABS_BASE_URL: Type.String({ pattern: '^https?://[^/]+(/.*)?$', default: 'https://api.elevenlabs.io' }),
  ELEVENLABS_VOICE_MAP: Type.Optional(Type.String({ minLength: 2 })),
  ELEVENLABS_USD_PER_1K_CHARS: Type.Optional(Type.Number({ minimum: 0, maximum: 1000 })),
  MESHY_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  MESHY_BASE_URL: Type.String({ pattern: '^https?://[^/]+(/.*)?$', default: 'https://api.meshy.ai' }),
  MESHY_USD_PER_CREDIT: Type.Optional(Type.Number({ minimum: 0, maximum: 1000 })),
  SUNO_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  SUNO_BASE_URL: Type.String({ pattern: '^https?://[^/]+(/.*)?$', default: 'https://api.sunoapi.org' }),
  VENDOR_UNIT_PRICES_USD: Type.Optional(Type.String({ minLength: 2 })),
  CREDIT_VALUE_USD: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 })),
  VENDOR_HTTP_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 90_000 }),
  VENDOR_POLL_MIN_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 1000 }),
  VENDOR_POLL_MAX_MS: Type.Integer({ minimum: 1000, maximum: 600_000, default: 60_000 }),
  ROUTE_COOLDOWN_AFTER: Type.Integer({ minimum: 1, maximum: 1000, default: 3 }),
  ROUTE_COOLDOWN_S: Type.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
  CREDENTIAL_COOLDOWN_AFTER: Type.Integer({ minimum: 1, maximum: 1000, default: 3 }),
  CREDENTIAL_COOLDOWN_S: Type.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
  CREDENTIAL_RPM_WINDOW_S: Type.Integer({ minimum: 1, maximum: 3600, default: 60 }),
  CREDENTIAL_CAP_RETRY_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 1000 }),
  PAYMENT_PROVIDER: Type.Optional(Type.Enum(['builtin', 'stripe', 'lemonsqueezy'])),
  STRIPE_SECRET_KEY: Type.Optional(Type.String({ minLength: 1 })),
  STRIPE_WEBHOOK_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  STRIPE_API_BASE: Type.String({ pattern: '^https?://[^/]+(/.*)?$', default: 'https://api.stripe.com' }),
  LEMONSQUEEZY_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  LEMONSQUEEZY_STORE_ID: Type.Optional(Type.String({ minLength: 1 })),
  LEMONSQUEEZY_WEBHOOK_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  LEMONSQUEEZY_API_BASE: Type.String({ pattern: '^https?://[^/]+(/.*)?$', default: 'https://api.lemonsqueezy.com' }),
  LEMONSQUEEZY_VARIANT_IDS: Type.Optional(Type.String({ pattern: '^[^=,\\s]+=[^=,\\s]+(,[^=,\\s]+=[^=,\\s]+)*$' })),
});

/** The name of every setting the service reads from the environment. */
export const SETTING_NAMES: readonly string[] = Object.keys(EnvSchema.properties);

/** How a process runs items: retries, leases and the bound on interrupted runs. */
export interface ItemPolicy {
  /** Provider attempts of an item whose failures are retryable. */
  maxAttempts: number;
  /** How long a claim holds the item without renewal; renewed at a third of it while running. */
  leaseMs: number;
  /** Runs that may end without an outcome (a crash, an outage) before the item is failed. */
  maxInterruptions: number;
  /**
   * How long an item of each type (text, image, audio, video, model) may take from its start
   * (acceptance, less any wait for room in its team's cap) to its outcome before it is failed,
   * refunded and its vendor job cancelled, in seconds.
   */
  deadlinesS: Record<string, number>;
  /** How long recording a finished item waits for an unavailable database. */
  finishPatienceMs: number;
  /** Items a team runs at once unless its own cap says otherwise (TEAM_MAX_CONCURRENT_ITEMS). */
  teamMaxConcurrentItems: number;
}

/** The models the simulator may serve: all of them, or those named (`kind:model`, or `model` under any kind). */
export interface SimulatorAllowance {
  all: boolean;
  models: string[];
}

// The settings that configure a vendor: with any of them set, the simulator no longer stands in
// for a model no vendor serves unless SIMULATOR_MODELS names it.
const VENDOR_SETTINGS = [
  'FAL_KEY',
  'REPLICATE_API_TOKEN',
  'COMFYUI_URL',
  'OPENAI_COMPATIBLE_API_KEY',
  'OPENAI_COMPATIBLE_BASE_URL',
  'ELEVENLABS_API_KEY',
  'MESHY_API_KEY',
  'SUNO_API_KEY',
] as const;

/**
 * What the simulator may serve: everything with PROVIDERS=simulator, or on the local start (no
 * vendor configured and no DATABASE_URL); otherwise only what SIMULATOR_MODELS names.
 */
function simulatorAllowance(e: Record<string, unknown>): SimulatorAllowance {
  const named = String(e.SIMULATOR_MODELS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const localStart = e.DATABASE_URL === undefined && VENDOR_SETTINGS.every((name) => e[name] === undefined);
  const all = e.PROVIDERS === 'simulator' || named.includes('*') || (e.SIMULATOR_MODELS === undefined && localStart);
  return { all, models: all ? [] : named };
}

/** Whether the allowance lets the simulator serve the model `model` of the model list's kind `kind`. */
export function simulatorMayServe(allowance: SimulatorAllowance, kind: string, model: string | null): boolean {
  if (allowance.all) return true;
  if (model === null) return false;
  return allowance.models.includes(model) || allowance.models.includes(`${kind}:${model}`);
}

/** Which payment provider turns POST /api/v1/billing/top-up into a checkout. */
export type PaymentProviderName = 'builtin' | 'stripe' | 'lemonsqueezy';

// The settings each provider cannot run without (checked at start when that provider is chosen).
const PAYMENT_REQUIRED: Record<PaymentProviderName, string[]> = {
  builtin: [],
  stripe: ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'],
  lemonsqueezy: ['LEMONSQUEEZY_API_KEY', 'LEMONSQUEEZY_STORE_ID', 'LEMONSQUEEZY_WEBHOOK_SECRET'],
};

export type Role = Static<typeof Role>;

export interface Config {
  port: number;
  host: string;
  role: Role;
  /** Set when an external PostgreSQL is used; otherwise an embedded one is started under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** A live configuration document (JSON) the API applies when it starts (`config apply`); unset: none. */
  configFile: string | undefined;
  adminToken: string | undefined;
  /** What the key of stored secrets (webhook signing secrets) is derived from; ADMIN_TOKEN when unset. */
  secretsKey: string | undefined;
  logLevel: string;
  jsonBodyLimit: number;
  /** Deepest nesting of objects and arrays a JSON body may have (400 beyond). */
  jsonMaxDepth: number;
  /** How long a verified API key is trusted without asking the database again (at most 1 s). */
  authCacheTtlMs: number;
  /** How long it is trusted while the process hears revocations (LISTEN); at least authCacheTtlMs. */
  authKeyTrustMs: number;
  /** Per team and API process; 0 turns the limit off. */
  rateLimit: { requestsPerMinute: number; writesPerMinute: number };
  /** Failed authentications per client address and API process; perMinute 0 turns it off. */
  authFailures: { perMinute: number; burst: number };
  /**
   * The addresses and CIDR ranges of the proxies in front of the service, trusted to name the
   * client in X-Forwarded-For; false: the peer address is the client.
   */
  trustProxy: false | string[];
  metrics: {
    /** When set, GET /metrics takes it as a bearer token. */
    token: string | undefined;
    /** When set, /metrics is served on its own listener on this port (same host), not on `port`. */
    port: number | undefined;
  };
  /** OpenTelemetry traces: exported over OTLP/HTTP to `endpoint` when it is set, otherwise off. */
  tracing: {
    endpoint: string | undefined;
    serviceName: string;
    exportDelayMs: number;
    /** Whether calls to vendors and webhook deliveries carry the W3C `traceparent` (OTEL_PROPAGATORS). */
    propagate: boolean;
  };
  databasePoolSize: number;
  /** When the database counts as unavailable (503 to clients, work retried later). */
  databaseTimeouts: DatabaseTimeouts;
  workerConcurrency: number;
  shutdownTimeoutMs: number;
  /** The origin clients reach the service at; media URLs start with it. */
  publicBaseUrl: string;
  storage: {
    driver: 'local' | 's3';
    s3: {
      bucket: string | undefined;
      region: string;
      endpoint: string | undefined;
      forcePathStyle: boolean;
      accessKeyId: string | undefined;
      secretAccessKey: string | undefined;
      prefix: string;
      publicUrl: string | undefined;
    };
  };
  /** Lifts the public-address rule for outbound URLs (local development and tests only). */
  allowPrivateUrls: boolean;
  simulatorDelayMs: number;
  /** Days a generation's result files are kept (0: for good). */
  mediaRetentionDays: number;
  /** How long a signed URL of a request's input copy, as a vendor is given it, can be read. */
  inputUrlTtlSeconds: number;
  /** Days finished webhook deliveries (with their attempts) and dead queue jobs are kept. */
  recordsRetentionDays: number;
  /** How often an idle live-status stream gets a keep-alive comment. */
  eventsKeepAliveMs: number;
  /** Live-status streams one API process holds open, in all and per team (429 past either). */
  eventsMaxStreams: { total: number; perTeam: number };
  /** Desktop-project uploads one team sends at once to one API process (429 past it). */
  uploadsMaxConcurrentPerTeam: number;
  /** The bytes a team may hold in storage (desktop media and snapshots, kept results); 0: no quota. */
  teamStorageQuotaBytes: number;
  /**
   * How long a synchronous request (text, speech, the LoRA video, voices) waits for its items;
   * what has not finished by then is failed and refunded.
   */
  syncRequestTimeoutS: number;
  /**
   * What a team's cancel refunds of an item a vendor was already running (and charges for):
   * `none` or `full`. Work no vendor had started is always refunded in full.
   */
  cancelRefund: 'none' | 'full';
  /**
   * What one credit is worth in US dollars (what a team pays for it): the margin report's revenue
   * is credits × this; undefined: unset, the report answers its revenue and margin as null.
   */
  creditValueUsd: number | undefined;
  /** Console sign-in sessions: they end after `idleMs` without a request, or `maxMs` after sign-in. */
  console: { idleMs: number; maxMs: number };
  /** Delays before each webhook retry, in seconds. */
  webhookRetryDelaysS: number[];
  /** A worker whose heartbeat is older than this is dead and its jobs are released. */
  workerDeadAfterMs: number;
  /** How items are run: provider attempts, leases, interruptions, patience with an outage. */
  items: ItemPolicy;
  /** How often a worker process looks for stranded items and deliveries. */
  sweepIntervalMs: number;
  /** The vendors behind the catalog, and what the simulator may stand in for. */
  providers: {
    /** `simulator` makes the simulator serve everything, keys or not. */
    mode: 'auto' | 'simulator';
    /**
     * The models the simulator may serve when no configured vendor does: every model (`all`: the
     * local start with no vendor and no DATABASE_URL, PROVIDERS=simulator, or SIMULATOR_MODELS=*),
     * or the `kind:model` and `model` entries of SIMULATOR_MODELS (none when unset). A model it may
     * not serve and no vendor serves is refused before any charge (503 model_unavailable).
     */
    simulator: SimulatorAllowance;
    /** The longest one call to a vendor's API may take (a submit, a poll; not a result download). */
    httpTimeoutMs: number;
    /** Vendor job polls: at least `minMs` apart, backing off with the job's age up to `maxMs`. */
    poll: { minMs: number; maxMs: number };
    /** The circuit breaker: a route cools for `seconds` after `after` failures in a row. */
    cooldown: { after: number; seconds: number };
    /** A vendor credential cools for `seconds` after `after` unavailabilities in a row (5xx, 429, timeouts). */
    credentialCooldown: { after: number; seconds: number };
    /**
     * A credential's caps: `rpm` counts its submits in the last `rpmWindowS` seconds (60: a minute);
     * an item none of its vendor's credentials has room for is tried again after `retryMs` (a
     * `max_in_flight` cap) or when the window frees (`rpm`).
     */
    credentialCaps: { rpmWindowS: number; retryMs: number };
    /**
     * What the operator pays, in US dollars, for one completed job of a route whose vendor reports
     * no cost of its own (fal, ComfyUI, Suno), by `'<provider> <endpoint>'` (VENDOR_UNIT_PRICES_USD).
     */
    unitPricesUsd: Readonly<Record<string, number>>;
    fal: { key: string | undefined; queueUrl: string; jwksUrl: string; requestTimeoutS: number };
    /**
     * A self-hosted ComfyUI: its headers (a proxy's auth), a folder of workflow templates (the
     * built-in ones when unset), and the catalog models it serves, as `kind:model` → workflows.
     */
    comfyui: {
      url: string | undefined;
      headers: Record<string, string>;
      workflowsDir: string | undefined;
      models: Record<string, ComfyModelWorkflows>;
    };
    /**
     * Any OpenAI-compatible chat server (OpenRouter by default): configured by its key, or by a base
     * URL alone (a local server needs no key); catalog model ids → the server's own names.
     */
    openAiCompatible: {
      configured: boolean;
      baseUrl: string;
      apiKey: string | undefined;
      modelNames: Record<string, string>;
    };
    /** ElevenLabs for speech; preset voice id → ElevenLabs voice id (unmapped presets are not sent there). */
    elevenLabs: {
      apiKey: string | undefined;
      baseUrl: string;
      voiceMap: Record<string, string>;
      /** The plan's US dollars per 1,000 characters spoken; undefined: a speech's cost is unknown. */
      usdPer1kChars: number | undefined;
    };
    /** Meshy's own API for 3D (its models' first route). */
    meshy: {
      apiKey: string | undefined;
      baseUrl: string;
      /** What one Meshy credit costs in US dollars; undefined: a task's cost is unknown. */
      usdPerCredit: number | undefined;
    };
    /** A sunoapi.org-compatible music API. */
    suno: { apiKey: string | undefined; baseUrl: string };
    /** Replicate's predictions API; its webhook secret is read from Replicate when not set. */
    replicate: {
      token: string | undefined;
      baseUrl: string;
      webhookSecret: string | undefined;
      /**
       * The hardware each Replicate model runs on (`owner/name` → sku, REPLICATE_MODEL_HARDWARE): a
       * prediction does not say, and its cost is its predict time at that hardware's price.
       */
      modelHardware: Record<string, string>;
    };
  };
  payments: {
    /** Who takes the money; `builtin` is a test checkout that credits without charging anyone. */
    provider: PaymentProviderName;
    stripe: {
      secretKey: string | undefined;
      /** Verifies POST /webhooks/stripe; when unset that route answers 404. */
      webhookSecret: string | undefined;
      apiBase: string;
    };
    lemonSqueezy: {
      apiKey: string | undefined;
      storeId: string | undefined;
      /** Verifies POST /webhooks/lemonsqueezy; when unset that route answers 404. */
      webhookSecret: string | undefined;
      apiBase: string;
      /** Catalog variant id -> Lemon Squeezy variant id; a variant not listed is sent under its own id. */
      variantIds: Record<string, string>;
    };
  };
}

/**
 * How long an item of each type may take, generous next to any vendor's real time so only work
 * that is truly stuck is stopped: `ITEM_DEADLINE_S` (`video=3600,image=600`) overrides some.
 */
export const DEFAULT_ITEM_DEADLINES_S: Readonly<Record<string, number>> = {
  text: 15 * 60,
  image: 30 * 60,
  audio: 30 * 60,
  video: 2 * 3600,
  model: 2 * 3600,
};

function itemDeadlines(setting: string): Record<string, number> {
  const deadlines = { ...DEFAULT_ITEM_DEADLINES_S };
  for (const pair of setting.split(',').filter((p) => p !== '')) {
    const [kind = '', seconds = ''] = pair.split('=');
    deadlines[kind] = Math.max(1, Number(seconds));
  }
  return deadlines;
}

/** The workflows a self-hosted ComfyUI runs for one catalog model: without and with input images. */
function parseJsonSetting(name: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new Error(`Invalid configuration:\n  ${name}: must be JSON`);
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A setting that is a JSON object of strings (COMFYUI_HEADERS, OPENAI_COMPATIBLE_MODELS). */
function stringMap(name: string, value: string | undefined, example = '{"a":"b"}'): Record<string, string> {
  if (value === undefined) return {};
  const parsed = parseJsonSetting(name, value);
  if (!isPlainObject(parsed) || !Object.values(parsed).every((v) => typeof v === 'string')) {
    throw new Error(`Invalid configuration:\n  ${name}: must be a JSON object of strings, e.g. ${example}`);
  }
  return parsed as Record<string, string>;
}

/**
 * VENDOR_UNIT_PRICES_USD: `{"fal fal-ai/flux/dev": 0.025}`, US dollars per completed job of a
 * route (`<provider> <endpoint>`), for vendors that report no cost of their own.
 */
function unitPrices(value: string | undefined): Record<string, number> {
  if (value === undefined) return {};
  const parsed = parseJsonSetting('VENDOR_UNIT_PRICES_USD', value);
  const problem = (detail: string) =>
    new Error(`Invalid configuration:\n  VENDOR_UNIT_PRICES_USD: ${detail}, e.g. {"fal fal-ai/flux/dev":0.025}`);
  if (!isPlainObject(parsed)) throw problem('must be a JSON object');
  for (const [key, price] of Object.entries(parsed)) {
    if (!/^[a-z0-9-]+ \S+$/.test(key)) throw problem(`"${key}" is not "<provider> <endpoint>"`);
    if (typeof price !== 'number' || !Number.isFinite(price) || price < 0 || price > 1_000_000)
      throw problem(`the price of "${key}" must be a number of US dollars, 0 or more`);
  }
  return parsed as Record<string, number>;
}

/** REPLICATE_MODEL_HARDWARE: `{"owner/name": "gpu-a100-large"}`, each sku one of replicate-hardware.json. */
function replicateModelHardware(value: string | undefined): Record<string, string> {
  const map = stringMap('REPLICATE_MODEL_HARDWARE', value, '{"owner/name":"gpu-a100-large"}');
  for (const [model, sku] of Object.entries(map)) {
    if (!/^[^/\s]+\/[^/\s]+$/.test(model))
      throw new Error(`Invalid configuration:\n  REPLICATE_MODEL_HARDWARE: "${model}" is not owner/name`);
    if (REPLICATE_HARDWARE_USD_PER_SECOND[sku] === undefined)
      throw new Error(
        `Invalid configuration:\n  REPLICATE_MODEL_HARDWARE: "${sku}" is not Replicate hardware; one of ${Object.keys(REPLICATE_HARDWARE_USD_PER_SECOND).join(', ')}`,
      );
  }
  return map;
}

/** ELEVENLABS_VOICE_MAP: preset voice ids to ElevenLabs voice ids; a key naming no preset would never be used. */
function elevenLabsVoiceMap(value: string | undefined): Record<string, string> {
  const map = stringMap('ELEVENLABS_VOICE_MAP', value, '{"Wise_Woman":"<voice id>"}');
  const unknown = Object.keys(map).filter((id) => !PRESET_VOICES.some((voice) => voice.id === id));
  if (unknown.length > 0) {
    const named = unknown.map((id) => `"${id}"`).join(', ');
    throw new Error(
      `Invalid configuration:\n  ELEVENLABS_VOICE_MAP: no preset voice has the id ${named}: map preset ids (GET /api/v2/voices lists them, e.g. "Wise_Woman"; case-sensitive)`,
    );
  }
  return map;
}

/**
 * COMFYUI_MODELS: `{"image:sdxl": "text-to-image", "video:wan-2.2": {"image_workflow": "image-to-video"}}`:
 * each `kind:model` (kind image, edit, face or video) to a workflow, or to the workflows without
 * and with input images. Whether the models and workflows exist is checked once both are loaded.
 */
function comfyModels(value: string | undefined): Record<string, ComfyModelWorkflows> {
  if (value === undefined) return {};
  const parsed = parseJsonSetting('COMFYUI_MODELS', value);
  const problem = (detail: string) =>
    new Error(`Invalid configuration:\n  COMFYUI_MODELS: ${detail}, e.g. {"image:sdxl":"text-to-image"}`);
  if (!isPlainObject(parsed)) throw problem('must be a JSON object');
  const models: Record<string, ComfyModelWorkflows> = {};
  for (const [key, given] of Object.entries(parsed)) {
    if (!/^(image|edit|face|video):[a-z0-9][a-z0-9._-]*$/.test(key)) {
      throw problem(`"${key}" is not kind:model with kind image, edit, face or video`);
    }
    const workflows = typeof given === 'string' ? { workflow: given, image_workflow: given } : given;
    if (
      !isPlainObject(workflows) ||
      Object.keys(workflows).some((k) => k !== 'workflow' && k !== 'image_workflow') ||
      !Object.values(workflows).every((v) => typeof v === 'string' && v !== '') ||
      Object.keys(workflows).length === 0
    ) {
      throw problem(`"${key}" must name a workflow, or {"workflow"?, "image_workflow"?}`);
    }
    models[key] = workflows as ComfyModelWorkflows;
  }
  return models;
}

/**
 * Whether OTEL_PROPAGATORS asks for W3C trace context on outgoing calls: `tracecontext` among its
 * names and not `none` (OpenTelemetry's meaning). Other names (`baggage`, `b3`, `jaeger`, `xray`, as
 * an operator or the OpenTelemetry Operator may set them) are accepted and carry nothing here.
 */
function propagatesTraceContext(value: string): boolean {
  const names = value.split(',').map((name) => name.trim());
  return names.includes('tracecontext') && !names.includes('none');
}

/** Parses and validates the environment once; a bad value stops the start with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const converted = Value.Default(EnvSchema, Value.Convert(EnvSchema, raw));
  if (!Value.Check(EnvSchema, converted)) {
    const problems = [...Value.Errors(EnvSchema, converted)].map(
      (e) => `${e.instancePath.replace(/^\//, '') || '(environment)'}: ${e.message}`,
    );
    throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const e = converted as Static<typeof EnvSchema>;
  const trustProxy = parseTrustProxy(e.TRUST_PROXY);
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT === e.PORT && e.ROLE !== 'worker')
    throw new Error(
      'Invalid configuration:\n  METRICS_PORT must differ from PORT (metrics get a listener of their own)',
    );
  if (e.STORAGE_DRIVER === 's3' && !e.S3_BUCKET)
    throw new Error('Invalid configuration:\n  S3_BUCKET is required when STORAGE_DRIVER=s3');
  // The test checkout credits without a payment: it is the default only on the local start
  // (embedded database); an API process of a deployment on its own database names its provider
  // (a worker opens no checkout).
  if (e.PAYMENT_PROVIDER === undefined && e.DATABASE_URL !== undefined && e.ROLE !== 'worker')
    throw new Error(
      'Invalid configuration:\n  PAYMENT_PROVIDER is required when DATABASE_URL is set: stripe or lemonsqueezy to take payments, ' +
        'or builtin for a test checkout that adds credits with no payment (never for real customers)',
    );
  const paymentProvider = (e.PAYMENT_PROVIDER ?? 'builtin') as PaymentProviderName;
  const missing = PAYMENT_REQUIRED[paymentProvider].filter(
    (name) => (e as Record<string, unknown>)[name] === undefined,
  );
  if (missing.length > 0)
    throw new Error(
      `Invalid configuration:\n  ${missing.map((name) => `${name} is required when PAYMENT_PROVIDER=${paymentProvider}`).join('\n  ')}`,
    );
  return {
    port: e.PORT,
    host: e.HOST,
    role: e.ROLE,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    configFile: e.CONFIG_FILE,
    adminToken: e.ADMIN_TOKEN,
    secretsKey: e.SECRETS_KEY,
    logLevel: e.LOG_LEVEL,
    jsonBodyLimit: e.JSON_BODY_LIMIT,
    jsonMaxDepth: e.JSON_MAX_DEPTH,
    authCacheTtlMs: e.AUTH_CACHE_TTL_MS,
    authKeyTrustMs: e.AUTH_KEY_TRUST_MS,
    rateLimit: { requestsPerMinute: e.RATE_LIMIT_PER_MINUTE, writesPerMinute: e.RATE_LIMIT_WRITES_PER_MINUTE },
    authFailures: { perMinute: e.AUTH_FAILURES_PER_MINUTE, burst: e.AUTH_FAILURES_BURST },
    trustProxy,
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT },
    tracing: {
      endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
      serviceName: e.OTEL_SERVICE_NAME,
      exportDelayMs: e.OTEL_BSP_SCHEDULE_DELAY,
      propagate: propagatesTraceContext(e.OTEL_PROPAGATORS),
    },
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseTimeouts: {
      connectMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      queryMs: e.DATABASE_QUERY_TIMEOUT_MS ?? e.DATABASE_STATEMENT_TIMEOUT_MS + 2000,
      checkMs: e.DATABASE_CHECK_TIMEOUT_MS,
    },
    workerConcurrency: e.WORKER_CONCURRENCY,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    storage: {
      driver: e.STORAGE_DRIVER as 'local' | 's3',
      s3: {
        bucket: e.S3_BUCKET,
        region: e.S3_REGION,
        endpoint: e.S3_ENDPOINT,
        forcePathStyle: e.S3_FORCE_PATH_STYLE,
        accessKeyId: e.S3_ACCESS_KEY_ID,
        secretAccessKey: e.S3_SECRET_ACCESS_KEY,
        prefix: e.S3_PREFIX,
        publicUrl: e.S3_PUBLIC_URL,
      },
    },
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS,
    simulatorDelayMs: e.SIMULATOR_DELAY_MS,
    eventsKeepAliveMs: e.EVENTS_KEEP_ALIVE_MS,
    eventsMaxStreams: { total: e.EVENTS_MAX_STREAMS, perTeam: e.EVENTS_MAX_STREAMS_PER_TEAM },
    uploadsMaxConcurrentPerTeam: e.UPLOADS_MAX_CONCURRENT_PER_TEAM,
    teamStorageQuotaBytes: e.TEAM_STORAGE_QUOTA_MB * 1024 * 1024,
    syncRequestTimeoutS: e.SYNC_REQUEST_TIMEOUT_S,
    cancelRefund: e.CANCEL_REFUND,
    creditValueUsd: e.CREDIT_VALUE_USD,
    console: { idleMs: e.CONSOLE_SESSION_IDLE_MINUTES * 60_000, maxMs: e.CONSOLE_SESSION_MAX_HOURS * 3_600_000 },
    mediaRetentionDays: e.MEDIA_RETENTION_DAYS,
    inputUrlTtlSeconds: e.INPUT_URL_TTL_S,
    recordsRetentionDays: e.RECORDS_RETENTION_DAYS,
    webhookRetryDelaysS: e.WEBHOOK_RETRY_DELAYS_S.split(',').map(Number),
    workerDeadAfterMs: e.WORKER_DEAD_AFTER_MS,
    items: {
      maxAttempts: e.ITEM_MAX_ATTEMPTS,
      leaseMs: e.ITEM_LEASE_MS,
      maxInterruptions: e.ITEM_MAX_INTERRUPTIONS,
      finishPatienceMs: e.ITEM_FINISH_PATIENCE_MS,
      teamMaxConcurrentItems: e.TEAM_MAX_CONCURRENT_ITEMS,
      deadlinesS: itemDeadlines(e.ITEM_DEADLINE_S),
    },
    sweepIntervalMs: e.SWEEP_INTERVAL_MS,
    providers: {
      mode: e.PROVIDERS as 'auto' | 'simulator',
      simulator: simulatorAllowance(e),
      httpTimeoutMs: e.VENDOR_HTTP_TIMEOUT_MS,
      poll: { minMs: e.VENDOR_POLL_MIN_MS, maxMs: Math.max(e.VENDOR_POLL_MIN_MS, e.VENDOR_POLL_MAX_MS) },
      cooldown: { after: e.ROUTE_COOLDOWN_AFTER, seconds: e.ROUTE_COOLDOWN_S },
      credentialCooldown: { after: e.CREDENTIAL_COOLDOWN_AFTER, seconds: e.CREDENTIAL_COOLDOWN_S },
      credentialCaps: { rpmWindowS: e.CREDENTIAL_RPM_WINDOW_S, retryMs: e.CREDENTIAL_CAP_RETRY_MS },
      unitPricesUsd: unitPrices(e.VENDOR_UNIT_PRICES_USD),
      fal: {
        key: e.FAL_KEY,
        queueUrl: e.FAL_QUEUE_URL.replace(/\/+$/, ''),
        jwksUrl: e.FAL_JWKS_URL,
        requestTimeoutS: e.FAL_REQUEST_TIMEOUT_S,
      },
      comfyui: {
        url: e.COMFYUI_URL?.replace(/\/+$/, ''),
        headers: stringMap('COMFYUI_HEADERS', e.COMFYUI_HEADERS, '{"x-api-key":"…"}'),
        workflowsDir: e.COMFYUI_WORKFLOWS_DIR,
        models: comfyModels(e.COMFYUI_MODELS),
      },
      openAiCompatible: {
        configured: e.OPENAI_COMPATIBLE_API_KEY !== undefined || e.OPENAI_COMPATIBLE_BASE_URL !== undefined,
        baseUrl: (e.OPENAI_COMPATIBLE_BASE_URL ?? 'https://openrouter.ai/api/v1').replace(/\/+$/, ''),
        apiKey: e.OPENAI_COMPATIBLE_API_KEY,
        modelNames: stringMap('OPENAI_COMPATIBLE_MODELS', e.OPENAI_COMPATIBLE_MODELS),
      },
      elevenLabs: {
        apiKey: e.ELEVENLABS_API_KEY,
        baseUrl: e.ELEVENLABS_BASE_URL.replace(/\/+$/, ''),
        voiceMap: elevenLabsVoiceMap(e.ELEVENLABS_VOICE_MAP),
        usdPer1kChars: e.ELEVENLABS_USD_PER_1K_CHARS,
      },
      meshy: {
        apiKey: e.MESHY_API_KEY,
        baseUrl: e.MESHY_BASE_URL.replace(/\/+$/, ''),
        usdPerCredit: e.MESHY_USD_PER_CREDIT,
      },
      suno: { apiKey: e.SUNO_API_KEY, baseUrl: e.SUNO_BASE_URL.replace(/\/+$/, '') },
      replicate: {
        token: e.REPLICATE_API_TOKEN,
        baseUrl: e.REPLICATE_BASE_URL.replace(/\/+$/, ''),
        webhookSecret: e.REPLICATE_WEBHOOK_SECRET,
        modelHardware: replicateModelHardware(e.REPLICATE_MODEL_HARDWARE),
      },
    },
    payments: {
      provider: paymentProvider,
      stripe: {
        secretKey: e.STRIPE_SECRET_KEY,
        webhookSecret: e.STRIPE_WEBHOOK_SECRET,
        apiBase: e.STRIPE_API_BASE.replace(/\/+$/, ''),
      },
      lemonSqueezy: {
        apiKey: e.LEMONSQUEEZY_API_KEY,
        storeId: e.LEMONSQUEEZY_STORE_ID,
        webhookSecret: e.LEMONSQUEEZY_WEBHOOK_SECRET,
        apiBase: e.LEMONSQUEEZY_API_BASE.replace(/\/+$/, ''),
        variantIds: Object.fromEntries(
          (e.LEMONSQUEEZY_VARIANT_IDS ?? '')
            .split(',')
            .filter((pair) => pair !== '')
            .map((pair) => pair.split('=') as [string, string]),
        ),
      },
    },
  };
}

// Names of address ranges that Fastify's proxy-addr knows.
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** TRUST_PROXY: a comma-separated list of proxy addresses, CIDR ranges and range names. */
function parseTrustProxy(value: string | undefined): Config['trustProxy'] {
  if (value === undefined) return false;
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isProxyAddress(entry));
  if (bad.length > 0)
    throw new Error(
      `Invalid configuration:\n  TRUST_PROXY: ${bad.map((b) => `'${b}'`).join(', ')} is not an address, a CIDR range, loopback, linklocal or uniquelocal`,
    );
  return entries;
}
