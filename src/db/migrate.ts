import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Logger, runMigrations } from 'graphile-worker';
import type pg from 'pg';
import { withTransaction } from './pool.ts';
import * as sql from './sql.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));
// Arbitrary constant: one advisory lock serialises migration runs across processes.
const MIGRATION_LOCK = 7_305_002_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Reads `migrations/NNNN_name.sql` in order. */
export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    migrations.push({
      version: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      sql: await readFile(`${dir}${file}`, 'utf8'),
    });
  }
  return migrations;
}

/**
 * Applies every migration not yet applied, each in its own transaction, under an advisory lock
 * so that several processes starting together apply each one exactly once. Returns the versions applied.
 */
export async function migrate(pool: pg.Pool): Promise<number[]> {
  const migrations = await readMigrations();
  const applied: number[] = [];
  const lockClient = await pool.connect();
  try {
    await sql.lockMigrations(lockClient, MIGRATION_LOCK);
    await sql.ensureMigrationsTable(lockClient);
    const done = await sql.appliedMigrationVersions(lockClient);
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await withTransaction(pool, async (client) => {
        await client.query(m.sql);
        await sql.recordMigration(client, m.version, m.name);
      });
      applied.push(m.version);
    }
  } finally {
    await sql.unlockMigrations(lockClient, MIGRATION_LOCK).catch(() => undefined);
    lockClient.release();
  }
  return applied;
}

const quietGraphileLogger = new Logger(() => () => undefined);

/**
 * The service's migrations, then graphile-worker's (its job queue schema): what every process
 * runs at start, and what `src/cli/migrate.ts` runs alone. Returns the service's versions applied.
 */
export async function migrateAll(pool: pg.Pool): Promise<number[]> {
  const applied = await migrate(pool);
  await runMigrations({ pgPool: pool, logger: quietGraphileLogger });
  return applied;
}
