// Applies the database migrations and exits: a deployment's one-shot migration step (a compose
// service, a Kubernetes Job) that runs before its API and worker processes start.
//   DATABASE_URL=postgres://... node src/cli/migrate.ts
// Every process also migrates at its start, under the same advisory lock, so this step orders an
// upgrade (the schema first, then the new processes) rather than being required. Exits 0 once the
// database is up to date, 1 (with the reason on standard error) otherwise.
import pino from 'pino';
import { migrateAll } from '../db/migrate.ts';
import { createPool } from '../db/pool.ts';

const log = pino({ level: process.env.LOG_LEVEL || 'info' });
const url = process.env.DATABASE_URL;
if (!url) {
  process.stderr.write('DATABASE_URL must be set: the PostgreSQL database to migrate.\n');
  process.exit(1);
}
const pool = createPool(url, 2, (err) => log.warn({ err }, 'database connection error'), {
  applicationName: 'genmedia-migrate',
});
try {
  const applied = await migrateAll(pool);
  log.info({ versions: applied }, applied.length > 0 ? 'migrations applied' : 'database already up to date');
} catch (err) {
  process.stderr.write(`Migrations failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  await pool.end().catch(() => undefined);
}
