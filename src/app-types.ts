import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type pg from 'pg';
import type { Registry } from 'prom-client';
import type { MediaCatalog } from './catalog/media-models.ts';
import type { ModelCatalog } from './catalog/models.ts';
import type { CreditPlan } from './catalog/plans.ts';
import type { Config } from './config.ts';
import type { DatabaseHealth } from './db/health.ts';
import type { EngineServices, Work } from './engine/types.ts';
import type { AuthFailureThrottle, TeamRateLimiter } from './lib/rate-limiter.ts';
import type { SecretBox } from './lib/secret-box.ts';
import type { ApiKeyAuthenticator, Principal } from './modules/api-keys/authenticator.ts';
import type { CredentialStore } from './modules/credentials/store.ts';
import type { IdempotencyClaim } from './modules/idempotency/service.ts';
import type { LiveConfig } from './modules/live-config/store.ts';
import type { ProviderRegistry } from './providers/registry.ts';
import type { MediaSigner } from './storage/signed-urls.ts';
import type { Storage } from './storage/types.ts';

/** What every module's routes and services may use; built once per process in app.ts. */
export interface Deps {
  config: Config;
  pool: pg.Pool;
  /** The operator's live changes over the catalog (prices, availability, aliases, team rules). */
  live: LiveConfig;
  /** The vendor credentials added through the admin API, and the health of every credential. */
  credentials: CredentialStore;
  /** Whether the database answers; requests that need it are refused at once while it does not. */
  databaseHealth: DatabaseHealth;
  authenticator: ApiKeyAuthenticator;
  rateLimiter: TeamRateLimiter;
  /** Failed authentications per client address: credentials are refused unchecked past the limit. */
  authThrottle: AuthFailureThrottle;
  plans: CreditPlan[];
  catalog: ModelCatalog;
  media: MediaCatalog;
  storage: Storage;
  /** Bearer token of the admin API; the admin API refuses every call when unset. */
  adminToken: string | undefined;
  /** Seals and opens the secrets stored in the database (webhook signing secrets). */
  secrets: SecretBox;
  /** Signs (and checks) the short-lived URLs of the copies of input media that vendors are given. */
  mediaSigner: MediaSigner;
  /** The configured vendors behind the catalog (the simulator serves the rest). */
  providers: ProviderRegistry;
  /** What the generation engine is given of the features above it (ledger, webhooks, idempotency). */
  engine: EngineServices;
  /** Every operation, and the context its items run with in this process (workers, synchronous requests). */
  work: Work;
  /** This process's id in service_instances (owner of the Idempotency-Key claims it takes). */
  instanceId: string;
  /** The process's Prometheus metrics, served at /metrics. */
  metrics: Registry;
}

/** The Fastify instance type every module receives (TypeBox schemas give typed requests). */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

declare module 'fastify' {
  interface FastifyInstance {
    deps: Deps;
  }
  interface FastifyRequest {
    /** The team and key behind an authenticated /api request. */
    principal: Principal;
    /** The Idempotency-Key this request holds, if it sent one. */
    idempotency: IdempotencyClaim | null;
  }
  interface FastifyContextConfig {
    /** Which credential a route takes; set from its path prefix by the auth plugin. */
    auth?: 'api-key' | 'admin' | 'none';
    /** The answer holds a secret: it is never stored to replay an Idempotency-Key (the key is ignored). */
    answersSecret?: boolean;
  }
}
