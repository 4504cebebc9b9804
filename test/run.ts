// Runs the whole test suite against one real PostgreSQL: starts an embedded server in a
// temporary folder, migrates a template database that every test file clones, runs
// `node --test`, and stops the server. Extra arguments select test files.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger, runMigrations } from 'graphile-worker';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';

const TEMPLATE = 'genmedia_template';

const dir = await mkdtemp(join(tmpdir(), 'genmedia-test-'));
const db = await startEmbeddedPostgres(dir, () => undefined, TEMPLATE);
let code = 1;
try {
  const pool = createPool(db.url, 2, () => undefined);
  await migrate(pool);
  await runMigrations({ pgPool: pool, logger: new Logger(() => () => undefined) });
  await pool.end();

  const files = process.argv.slice(2);
  const args = [
    '--test',
    `--test-concurrency=${process.env.TEST_CONCURRENCY ?? '2'}`,
    '--test-timeout=120000',
    ...(files.length > 0 ? files : ['test/**/*.test.ts']),
  ];
  const child = spawn(process.execPath, args, {
    stdio: 'inherit',
    env: { ...process.env, TEST_DATABASE_ADMIN_URL: db.adminUrl, TEST_TEMPLATE_DATABASE: TEMPLATE },
  });
  // An interrupted run still stops its database.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  code = await new Promise<number>((resolveExit) =>
    child.on('exit', (c, signal) => resolveExit(c ?? (signal ? 1 : 0))),
  );
} finally {
  await db.stop().catch((err: unknown) => console.error(err));
  await rm(dir, { recursive: true, force: true });
}
process.exit(code);
