import { join, resolve } from 'node:path';
import pino from 'pino';
import { buildApp, buildMetricsApp } from './app.ts';
import type { App } from './app-types.ts';
import { DEFAULT_TEAM_CREDITS, type LocalSetup, prepareLocalSetup } from './bootstrap.ts';
import { type Config, loadConfig } from './config.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from './db/embedded.ts';
import { isDatabaseUnavailable } from './db/errors.ts';
import { migrateAll } from './db/migrate.ts';
import { createPool } from './db/pool.ts';
import { createDeps } from './deps.ts';
import { startTracing } from './lib/tracing.ts';
import { sealStoredSecrets } from './modules/webhooks/service.ts';
import { installShutdown, type Shutdown } from './shutdown.ts';
import { startWorker } from './worker.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: config.logLevel });
  const shutdown = installShutdown(log, config.shutdownTimeoutMs);
  const { closers } = shutdown;
  const servesApi = config.role !== 'worker';
  // Before anything that makes spans: off (no endpoint), nothing is registered.
  const tracing = startTracing({ ...config.tracing, role: config.role });

  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres(config.dataDir, (line) => log.debug({ postgres: line }));
    shutdown.useDatabase(embedded);
    databaseUrl = embedded.url;
    log.info({ dataDir: resolve(config.dataDir) }, 'embedded PostgreSQL started');
  } else if (servesApi && !config.adminToken) {
    throw new Error('ADMIN_TOKEN must be set (24 characters or more) when DATABASE_URL is used.');
  }

  const logPoolError = (err: Error) => log.warn({ err }, 'database connection error');
  // Migrations run on a pool of their own, without timeouts: they may wait on another process's
  // lock or run long. The service's pool gives up on a hung or absent database in seconds.
  const migrationPool = createPool(databaseUrl, 2, logPoolError, { applicationName: 'genmedia-migrate' });
  let adminToken = config.adminToken;
  let secretsMaterial = config.secretsKey ?? config.adminToken;
  try {
    const applied = await migrateAll(migrationPool);
    if (applied.length > 0) log.info({ versions: applied }, 'migrations applied');
    if (embedded) {
      const setup = await prepareLocalSetup(migrationPool, config.dataDir, config.adminToken, config.secretsKey);
      adminToken = setup.adminToken;
      secretsMaterial = setup.secretsKey;
      if (setup.created || setup.adminTokenIsNew) printCredentials(config, setup);
    }
  } catch (err) {
    await migrationPool.end().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw err;
  }
  await migrationPool.end();

  const pool = createPool(databaseUrl, config.databasePoolSize, logPoolError, {
    timeouts: config.databaseTimeouts,
  });
  closers.push(async () => {
    await pool.end();
    await embedded?.stop();
  });
  // Last: the spans of the work that stopped before it are exported.
  if (tracing) closers.push(() => tracing.shutdown().catch((err: unknown) => log.warn({ err }, 'trace export failed')));
  rideOutDatabaseOutages(log, shutdown);

  if (!secretsMaterial) {
    throw new Error('SECRETS_KEY (or ADMIN_TOKEN) must be set: webhook signing secrets are stored encrypted under it.');
  }
  const deps = createDeps(config, pool, adminToken, secretsMaterial);
  // Secrets stored before they were sealed (an upgrade) are sealed now.
  const sealed = await sealStoredSecrets(pool, deps.secrets);
  if (sealed > 0) log.info({ teams: sealed }, 'webhook signing secrets sealed');
  // The vendor credentials and their health: the API's app reads them when it starts; a process
  // that only works reads them here (its submits pick among them).
  if (!servesApi) {
    await deps.credentials.start(log);
    closers.unshift(() => deps.credentials.stop());
  }
  if (config.role !== 'api') {
    const worker = await startWorker(deps, log.child({ role: 'worker' }));
    closers.unshift(() => worker.stop());
    log.info({ concurrency: config.workerConcurrency }, 'worker started');
  }

  // Metrics on a port of their own, for the API and for worker-only processes alike.
  if (config.metrics.port !== undefined) {
    const metricsApp = await buildMetricsApp(deps);
    closers.unshift(() => metricsApp.close());
    await listen(metricsApp, config.metrics.port, config.host, 'METRICS_PORT', shutdown);
  }

  if (servesApi) {
    const { app } = await buildApp(deps);
    closers.unshift(() => app.close());
    await listen(app, config.port, config.host, 'PORT', shutdown);
  }

  shutdown.started();
}

/**
 * A background database call that fails while the database is away (graphile-worker completes
 * jobs without awaiting them, for one) must not take the process down with it: such work is
 * retried, or found again by the recovery sweep, once the database is back. Any other
 * unhandled rejection is a bug and still ends the process.
 */
function rideOutDatabaseOutages(log: pino.Logger, shutdown: Shutdown): void {
  process.on('unhandledRejection', (reason) => {
    if (isDatabaseUnavailable(reason)) {
      log.warn(
        { err: reason },
        'database unavailable during background work; it is recovered once the database is back',
      );
      return;
    }
    log.fatal({ err: reason }, 'unhandled rejection');
    void shutdown.fail();
  });
}

function printCredentials(config: Config, setup: LocalSetup): void {
  const lines: string[] = [];
  if (setup.created) lines.push(`First start: created the default team with ${DEFAULT_TEAM_CREDITS} credits.`);
  if (setup.created) lines.push(`  API key:      ${setup.created.apiKey}`);
  if (setup.adminTokenIsNew) lines.push(`  Admin token:  ${setup.adminToken}`);
  lines.push(`  (saved in ${join(config.dataDir, 'credentials.json')}, readable only by you; shown this once)`);
  if (setup.created) {
    lines.push(
      `  Try: curl -H "Authorization: Bearer ${setup.created.apiKey}" http://localhost:${config.port}/api/v1/billing/credits`,
      `  or sign in to the console with the key at http://localhost:${config.port}/console`,
    );
  }
  process.stdout.write(`\n${lines.join('\n')}\n\n`);
}

/** Listens, or closes everything started so far and says which setting to change. */
async function listen(app: App, port: number, host: string, setting: string, shutdown: Shutdown): Promise<void> {
  try {
    await app.listen({ port, host });
  } catch (err) {
    await shutdown.closeAll();
    const code = (err as NodeJS.ErrnoException).code;
    throw code === 'EADDRINUSE' ? new Error(`Port ${port} is already in use; set ${setting} to another one.`) : err;
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
