import type { Queryable } from './pool.ts';

// Queries of the database plumbing itself: migrations and health.

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

/** One round trip, for /readyz. */
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
