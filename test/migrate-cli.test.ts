// `node src/cli/migrate.ts`: the one-shot migration step of a deployment (compose's `migrate`,
// the Kubernetes Job), run as they run it against an empty database and again on a migrated one.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { readMigrations } from '../src/db/migrate.ts';
import * as dbSql from '../src/db/sql.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runMigrate(env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, ['src/cli/migrate.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

const adminUrl = process.env.TEST_DATABASE_ADMIN_URL as string;
const name = `t_${randomBytes(6).toString('hex')}`;
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
const clean = { PATH: process.env.PATH, HOME: process.env.HOME };

async function onAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

describe('the migration step (src/cli/migrate.ts)', () => {
  before(async () => {
    // An empty database, not the migrated template the other tests clone.
    await onAdmin((admin) => dbSql.createDatabase(admin, name, 'template0'));
  });
  after(async () => {
    await onAdmin((admin) => dbSql.dropDatabase(admin, name));
  });

  test('applies every migration and the job queue schema to an empty database, then none on a second run', async () => {
    const first = await runMigrate({ ...clean, DATABASE_URL: databaseUrl });
    assert.equal(first.code, 0, first.stderr);
    const log = JSON.parse(first.stdout.trim().split('\n').at(-1) as string) as { versions: number[]; msg: string };
    const all = (await readMigrations()).map((m) => m.version);
    assert.deepEqual(log.versions, all);
    assert.equal(log.msg, 'migrations applied');

    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ jobs: string | null }>(
        `select to_regclass('graphile_worker._private_jobs')::text as jobs`,
      );
      assert.equal(rows[0]?.jobs, 'graphile_worker._private_jobs');
    } finally {
      await client.end();
    }

    const second = await runMigrate({ ...clean, DATABASE_URL: databaseUrl });
    assert.equal(second.code, 0, second.stderr);
    const again = JSON.parse(second.stdout.trim().split('\n').at(-1) as string) as { versions: number[]; msg: string };
    assert.deepEqual(again.versions, []);
    assert.equal(again.msg, 'database already up to date');
  });

  test('without DATABASE_URL, or on a database it cannot reach, it exits 1 saying why', async () => {
    const missing = await runMigrate(clean);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /DATABASE_URL must be set/);
    const unreachable = Object.assign(new URL(adminUrl), { pathname: '/no_such_database' }).toString();
    const failed = await runMigrate({ ...clean, DATABASE_URL: unreachable });
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /Migrations failed: .*no_such_database/);
  });
});
