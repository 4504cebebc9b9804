import type { Queryable } from './pool.ts';

// Queries of the database plumbing itself: migrations, health and the job queue.

export async function lockMigrations(db: Queryable, lockId: number): Promise<void> {
  await db.query('select pg_advisory_lock($1::bigint)', [lockId]);
}

export async function unlockMigrations(db: Queryable, lockId: number): Promise<void> {
  await db.query('select pg_advisory_unlock($1::bigint)', [lockId]);
}

export async function ensureMigrationsTable(db: Queryable): Promise<void> {
  await db.query(
    `create table if not exists schema_migrations (
       version integer primary key,
       name text not null,
       applied_at timestamptz not null default now()
     )`,
  );
}

export async function appliedMigrationVersions(db: Queryable): Promise<Set<number>> {
  const { rows } = await db.query<{ version: number }>('select version from schema_migrations');
  return new Set(rows.map((r) => r.version));
}

export async function recordMigration(db: Queryable, version: number, name: string): Promise<void> {
  await db.query('insert into schema_migrations (version, name) values ($1::int, $2::text)', [version, name]);
}

/** One round trip: the database health check (and /readyz). */
export async function ping(db: Queryable): Promise<void> {
  await db.query('select 1');
}

export async function databaseExists(db: Queryable, name: string): Promise<boolean> {
  const { rowCount } = await db.query('select 1 from pg_database where datname = $1::text', [name]);
  return (rowCount ?? 0) > 0;
}

/** CREATE DATABASE cannot take parameters; the name is quoted as an identifier. */
export async function createDatabase(db: Queryable, name: string, template?: string): Promise<void> {
  const quote = (id: string) => `"${id.replaceAll('"', '""')}"`;
  await db.query(`create database ${quote(name)}${template ? ` template ${quote(template)}` : ''}`);
}

export async function dropDatabase(db: Queryable, name: string): Promise<void> {
  await db.query(`drop database if exists "${name.replaceAll('"', '""')}" with (force)`);
}

/** Queues one graphile-worker job in the caller's transaction. */
export async function addJob(
  db: Queryable,
  task: string,
  payload: unknown,
  options: { maxAttempts?: number; runAt?: Date; jobKey?: string } = {},
): Promise<void> {
  await db.query(
    `select graphile_worker.add_job($1::text, $2::json, max_attempts => $3::int, run_at => $4::timestamptz,
       job_key => $5::text)`,
    [task, JSON.stringify(payload), options.maxAttempts ?? 25, options.runAt ?? null, options.jobKey ?? null],
  );
}
