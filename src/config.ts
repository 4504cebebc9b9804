import { type Static, Type } from 'typebox';
import Value from 'typebox/value';

const Role = Type.Enum(['api', 'worker', 'all']);

/** Every setting the service reads from the environment, with its default. */
const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  ROLE: Type.Enum(['api', 'worker', 'all'], { default: 'all' }),
  DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  DATA_DIR: Type.String({ default: '.data' }),
  ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 24 })),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  JSON_BODY_LIMIT: Type.Integer({ minimum: 1024, default: 1_048_576 }),
  AUTH_CACHE_TTL_MS: Type.Integer({ minimum: 0, maximum: 1000, default: 750 }),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  WORKER_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 100, default: 4 }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 10_000 }),
});

export type Role = Static<typeof Role>;

export interface Config {
  port: number;
  host: string;
  role: Role;
  /** Set when an external PostgreSQL is used; otherwise an embedded one is started under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  adminToken: string | undefined;
  logLevel: string;
  jsonBodyLimit: number;
  /** How long a verified API key is trusted without asking the database again (at most 1 s). */
  authCacheTtlMs: number;
  databasePoolSize: number;
  workerConcurrency: number;
  shutdownTimeoutMs: number;
}

/** Parses and validates the environment once; a bad value stops the start with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const known = Object.keys(EnvSchema.properties);
  const raw: Record<string, unknown> = {};
  for (const name of known) {
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
  return {
    port: e.PORT,
    host: e.HOST,
    role: e.ROLE,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    adminToken: e.ADMIN_TOKEN,
    logLevel: e.LOG_LEVEL,
    jsonBodyLimit: e.JSON_BODY_LIMIT,
    authCacheTtlMs: e.AUTH_CACHE_TTL_MS,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    workerConcurrency: e.WORKER_CONCURRENCY,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
  };
}
