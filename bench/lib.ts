// Shared machinery of the benchmarks (bench/*.ts): a real embedded PostgreSQL in a temporary
// folder, the service and its baselines as child processes with a clean environment, autocannon
// runs that fail on any unexpected answer, alternating best-of rounds, the printed comparison
// table with its one-line JSON summary, and cleanup that runs once whether the benchmark
// succeeded, failed or was interrupted.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Logger, runMigrations } from 'graphile-worker';
import { loadConfig } from '../src/config.ts';
import { freePort, startEmbeddedPostgres } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';

/** Generous: a shared two-core machine under load takes long to start a server. */
export const STARTUP_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The service's settings when nothing is configured: both sides use its pool size. */
export const SERVICE_DEFAULTS = loadConfig({});
export const POOL_SIZE = SERVICE_DEFAULTS.databasePoolSize;

export type Side = 'baseline' | 'ours';
export const SIDES: readonly Side[] = ['baseline', 'ours'];

export const sleep = (ms: number) => new Promise<void>((resolveSleep) => setTimeout(resolveSleep, ms));

/** Progress goes to stderr; stdout carries only the report. */
export const progress = (message: string) => process.stderr.write(`${message}\n`);

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A whole number ≥ 1 from the environment, or the default. */
export function positiveIntEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1, not '${raw}'`);
  return value;
}

/**
 * BENCH_QUICK=1: the quick mode every benchmark has, which npm test runs (test/bench.test.ts) so
 * that a benchmark that no longer works against the service fails the tests: few samples, short
 * runs (a load run sends a few requests per connection, however long they take), small data. Its figures mean little on a busy machine, so its targets are printed but do
 * not fail the run; every correctness check still does.
 */
export const QUICK = process.env.BENCH_QUICK === '1';

/** `quickValue` in quick mode, else `full`. */
export function quick<T>(quickValue: T, full: T): T {
  return QUICK ? quickValue : full;
}

/** Seconds per measured run: BENCH_DURATION, default 10 (1 in quick mode). */
export function durationSeconds(): number {
  return positiveIntEnv('BENCH_DURATION', quick(1, 10));
}

/** A missed performance target fails the run, except in quick mode. */
export function failUnlessTargetMet(pass: boolean): void {
  if (!pass && !QUICK) process.exitCode = 1;
}

// ---------------------------------------------------------------------------------------------
// Cleanup.

/** Undo steps, run last-in first-out, once, whether the benchmark succeeded, failed or was interrupted. */
const cleanups: Array<() => Promise<unknown>> = [];
let cleaning: Promise<void> | undefined;

export function onCleanup(undo: () => Promise<unknown>): void {
  cleanups.push(undo);
}

function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const undo of cleanups.reverse()) {
      await undo().catch((err: unknown) => progress(`cleanup: ${errorText(err)}`));
    }
  })();
  return cleaning;
}

/**
 * Runs a benchmark's main function with cleanup in `finally` and on SIGINT/SIGTERM; a failure is
 * printed as `bench:<name> failed: …` and sets exit code 1.
 */
export async function runBenchmark(name: string, main: () => Promise<void>): Promise<void> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      progress(`${signal}: cleaning up`);
      cleanUp().finally(() => process.exit(130));
    });
  }
  try {
    await main();
  } catch (err) {
    process.stderr.write(`bench:${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}

// ---------------------------------------------------------------------------------------------
// Database.

export interface BenchEnvironment {
  /** The temporary folder holding everything; removed at cleanup. */
  dir: string;
  /** The service's DATA_DIR (local media storage lives there). */
  dataDir: string;
  databaseUrl: string;
  adminToken: string;
}

/**
 * A temporary folder with a fresh embedded PostgreSQL, migrated with our migrations and
 * graphile-worker's schema; everything is stopped and removed at cleanup. With BENCH_DATABASE_URL
 * (an empty database already migrated so, which the tests hand to each bench they run), that
 * database is used instead and no PostgreSQL is started.
 */
export async function prepareEnvironment(): Promise<BenchEnvironment> {
  const dir = await mkdtemp(join(tmpdir(), 'genmedia-bench-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  const adminToken = `bench_${randomBytes(24).toString('base64url')}`;
  const given = process.env.BENCH_DATABASE_URL;
  if (given !== undefined && given !== '') {
    return { dir, dataDir: join(dir, 'data'), databaseUrl: given, adminToken };
  }

  progress('starting PostgreSQL…');
  const db = await startEmbeddedPostgres(dir, () => undefined, 'genmedia_bench');
  onCleanup(() => db.stop());
  // migrate() holds one client for its lock while each migration runs on another.
  const pool = createPool(db.url, 2, () => undefined);
  try {
    await migrate(pool);
    await runMigrations({ pgPool: pool, logger: new Logger(() => () => undefined) });
  } finally {
    await pool.end();
  }
  return {
    dir,
    dataDir: join(dir, 'data'),
    databaseUrl: db.url,
    adminToken,
  };
}

// ---------------------------------------------------------------------------------------------
// Child processes.

export interface Server {
  /** How it is named in messages: 'ours', 'baseline', 'worker'. */
  name: string;
  baseUrl: string;
  /** The port it was given. */
  port: number;
  child: ChildProcess;
  /** The end of what the process printed, shown when it fails. */
  output: () => string;
  /**
   * Starts it again on another free port: another process took the one it was given between
   * freePort() finding it free and this one listening on it (tests start servers beside the
   * benches).
   */
  respawn?: () => Promise<void>;
}

/** Starts a Node script as a child process with a clean environment, keeping its last output. */
export function startChild(
  name: string,
  script: string,
  port: number,
  env: Record<string, string>,
  args: string[] = [],
): Server {
  const child = spawn(process.execPath, [join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer | string) => {
    output = (output + chunk.toString()).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('exit', (code, signal) => keep(`\n[${name} server exited: ${signal ?? `code ${code}`}]`));
  return { name, baseUrl: `http://127.0.0.1:${port}`, port, child, output: () => output.trim() };
}

/**
 * Whether the process listening on the server's port is its child (Linux: the listening socket of
 * /proc/net/tcp{,6} among the child's open files). Where /proc cannot say, it is taken to be.
 */
async function listensOnItsPort(server: Server): Promise<boolean> {
  const pid = server.child.pid;
  if (pid === undefined) return false;
  const tables = (
    await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map((f) => readFile(f, 'utf8').catch(() => '')))
  ).join('\n');
  if (tables.trim() === '') return true;
  const port = `:${server.port.toString(16).toUpperCase().padStart(4, '0')}`;
  const listening = new Set<string>();
  for (const line of tables.split('\n')) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
    const cols = line.trim().split(/\s+/);
    if (cols[3] === '0A' && cols[1]?.endsWith(port) && cols[9]) listening.add(cols[9]);
  }
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => undefined);
  if (fds === undefined) return true;
  for (const fd of fds) {
    const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    if (inode !== undefined && listening.has(inode)) return true;
  }
  return false;
}

/** Starts a script on a free port, again on another should that one be taken first; stopped at cleanup. */
async function startOnFreePort(
  name: string,
  script: string,
  envAt: (port: number) => Record<string, string>,
  argsAt: (port: number) => string[],
): Promise<Server> {
  const launch = async (): Promise<Server> => {
    const port = await freePort();
    return startChild(name, script, port, envAt(port), argsAt(port));
  };
  const server = await launch();
  let stopped = false;
  server.respawn = async () => {
    await stopChild(server);
    if (stopped) throw new Error(`The ${name} server was stopped while it was being started again`);
    const { baseUrl, port, child, output } = await launch();
    Object.assign(server, { baseUrl, port, child, output });
  };
  onCleanup(() => {
    stopped = true;
    return stopChild(server);
  });
  return server;
}

export function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

export function waitUntilHealthy(server: Server): Promise<void> {
  return waitUntilAnswering(server, '/healthz');
}

/**
 * Until a GET of `path` answers a 2xx from the server itself, or STARTUP_TIMEOUT_MS. Another process
 * that took its port first (and answers there) has it started again on another port, at most 3 times.
 */
export async function waitUntilAnswering(server: Server, path: string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  let respawns = 0;
  const portTaken = async (): Promise<boolean> => {
    if (!server.respawn || respawns >= 3) return false;
    respawns += 1;
    await server.respawn();
    return true;
  };
  while (Date.now() < deadline) {
    if (exited(server.child)) {
      if (/EADDRINUSE/.test(server.output()) && (await portTaken())) continue;
      throw new Error(`The ${server.name} server exited during start-up:\n${server.output()}`);
    }
    let answered = false;
    try {
      const res = await fetch(`${server.baseUrl}${path}`, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      answered = res.ok;
    } catch {
      // Not listening yet.
    }
    if (answered) {
      if (await listensOnItsPort(server)) return;
      if (await portTaken()) continue;
      throw new Error(`Another process answers on ${server.baseUrl}, the port the ${server.name} server was given`);
    }
    await sleep(100);
  }
  throw new Error(
    `The ${server.name} server did not answer ${path} within ${STARTUP_TIMEOUT_MS} ms:\n${server.output()}`,
  );
}

export async function stopChild(server: Server): Promise<void> {
  const { child } = server;
  if (exited(child)) return;
  const gone = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await gone;
  clearTimeout(timer);
}

/** Starts a script on a free port and stops it at cleanup (not waiting for it to be healthy). */
export async function startServer(
  name: string,
  script: string,
  env: Record<string, string>,
  args: (port: number) => string[] = () => [],
): Promise<Server> {
  return startOnFreePort(name, script, () => env, args);
}

export interface OurServerOptions {
  name?: string;
  role: 'api' | 'worker' | 'all';
  /** Where clients reach the API (media URLs start with it); default this process's own address. */
  publicBaseUrl?: string;
  env?: Record<string, string>;
}

/**
 * Our service (src/server.ts) on the benchmark's database, with the service's default pool size,
 * LOG_LEVEL=warn, the benchmark's admin token, and DATA_DIR/PUBLIC_BASE_URL for local media. The
 * team rate limits are raised out of reach (one team makes every request of the load), not turned
 * off: their buckets are still taken on every request, so their cost is part of the figure.
 */
export async function startOurServer(env: BenchEnvironment, options: OurServerOptions): Promise<Server> {
  return startOnFreePort(
    options.name ?? 'ours',
    'src/server.ts',
    (port) => ({
      DATABASE_URL: env.databaseUrl,
      DATABASE_POOL_SIZE: String(POOL_SIZE),
      LOG_LEVEL: 'warn',
      ADMIN_TOKEN: env.adminToken,
      ROLE: options.role,
      PUBLIC_BASE_URL: options.publicBaseUrl ?? `http://127.0.0.1:${port}`,
      DATA_DIR: env.dataDir,
      RATE_LIMIT_PER_MINUTE: '1000000000',
      RATE_LIMIT_WRITES_PER_MINUTE: '1000000000',
      // The watchers of bench/events.ts are one team's, as many as it is asked for.
      EVENTS_MAX_STREAMS: '1000000',
      EVENTS_MAX_STREAMS_PER_TEAM: '1000000',
      // The benchmarks run on the simulator and the test checkout, named as a deployment must.
      SIMULATOR_MODELS: '*',
      PAYMENT_PROVIDER: 'builtin',
      ...options.env,
    }),
    () => [],
  );
}

/** A baseline script on the benchmark's database, with the service's pool size. */
export function startBaseline(env: BenchEnvironment, script: string, extra: Record<string, string> = {}) {
  return startServer('baseline', script, {
    DATABASE_URL: env.databaseUrl,
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    LOG_LEVEL: 'warn',
    ...extra,
  });
}

// ---------------------------------------------------------------------------------------------
// Setup through the admin API.

export async function adminPost<T>(baseUrl: string, token: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** A team with a starting balance and one API key for it, made through our admin API. */
export async function createTeamWithKey(
  server: Server,
  adminToken: string,
  name: string,
  credits: number,
): Promise<{ teamId: string; key: string }> {
  const team = await adminPost<{ id: string }>(server.baseUrl, adminToken, '/admin/v1/teams', { name, credits });
  const { key } = await adminPost<{ key: string }>(server.baseUrl, adminToken, `/admin/v1/teams/${team.id}/api-keys`, {
    name,
  });
  return { teamId: team.id, key };
}

// ---------------------------------------------------------------------------------------------
// Load.

export interface RunFigures {
  requestsPerSecond: number;
  latencyAvgMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  requests: number;
}

export interface LoadOptions {
  path: string;
  connections: number;
  seconds: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Every response body must equal this. */
  expectBody?: string;
  /** Or every response body must pass this. */
  verifyBody?: (body: string) => boolean;
}

/** Requests per connection of a quick run (QUICK), whatever its duration. */
const QUICK_REQUESTS_PER_CONNECTION = 2;

/**
 * One autocannon run; throws if any response was not a 2xx with the expected body. A quick run
 * sends QUICK_REQUESTS_PER_CONNECTION requests per connection instead of lasting `seconds`: its
 * answers are checked however slow a loaded machine makes them.
 */
export async function load(server: Server, options: LoadOptions, phase: string): Promise<RunFigures> {
  const result = await autocannon({
    url: `${server.baseUrl}${options.path}`,
    connections: options.connections,
    ...(QUICK ? { amount: options.connections * QUICK_REQUESTS_PER_CONNECTION } : { duration: options.seconds }),
    method: options.method ?? 'GET',
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(options.expectBody !== undefined ? { expectBody: options.expectBody } : {}),
    ...(options.verifyBody ? { verifyBody: options.verifyBody } : {}),
  });
  const { non2xx, errors, timeouts, mismatches } = result;
  if (non2xx > 0 || errors > 0 || timeouts > 0 || mismatches > 0 || result.requests.total === 0) {
    const codes = Object.entries(result.statusCodeStats)
      .map(([code, stat]) => `${code}×${stat.count}`)
      .join(', ');
    throw new Error(
      `${server.name} ${phase}: ${non2xx} non-2xx (${codes}), ${errors} errors, ${timeouts} timeouts, ` +
        `${mismatches} unexpected bodies, ${result.requests.total} requests\n${server.output()}`,
    );
  }
  return {
    requestsPerSecond: result.requests.average,
    latencyAvgMs: result.latency.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    requests: result.requests.total,
  };
}

export function best(runs: RunFigures[]): RunFigures {
  const [first, ...rest] = runs;
  if (!first) throw new Error('no measured run');
  return rest.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a), first);
}

export interface RoundsOptions {
  servers: Record<Side, Server>;
  rounds: number;
  warmupSeconds: number;
  seconds: number;
  /** One run (warm-up or measured) against one side. */
  run: (server: Server, seconds: number, phase: string) => Promise<RunFigures>;
  /** Called after every run, warm-ups included; what it returns is appended to the progress line. */
  afterRun?: (side: Side, phase: string) => Promise<string | undefined>;
}

/**
 * The sides alternate (baseline, ours, baseline, ours, …), each measured run preceded by its
 * own warm-up; each side's best run counts, which damps the noise of a small machine where the
 * load generator shares the CPUs with both servers.
 */
export async function alternateRounds(options: RoundsOptions): Promise<Record<Side, RunFigures[]>> {
  const runs: Record<Side, RunFigures[]> = { baseline: [], ours: [] };
  for (let round = 1; round <= options.rounds; round++) {
    for (const side of SIDES) {
      const server = options.servers[side];
      const warmPhase = `round ${round} warm-up`;
      await options.run(server, options.warmupSeconds, warmPhase);
      const warmNote = await options.afterRun?.(side, warmPhase);
      if (warmNote) progress(`round ${round}/${options.rounds} ${side.padEnd(8)} warm-up: ${warmNote}`);
      const phase = `round ${round}`;
      const figures = await options.run(server, options.seconds, phase);
      runs[side].push(figures);
      const note = await options.afterRun?.(side, phase);
      progress(
        `round ${round}/${options.rounds} ${side.padEnd(8)} ${figures.requestsPerSecond.toFixed(1).padStart(9)} req/s  ` +
          `p50 ${figures.latencyP50Ms} ms  p99 ${figures.latencyP99Ms} ms  (${figures.requests} requests)` +
          (note ? `  ${note}` : ''),
      );
    }
  }
  return runs;
}

// ---------------------------------------------------------------------------------------------
// Report.

export interface ComparisonReport {
  bench: string;
  /** e.g. `GET /api/v1/billing/credits`. */
  endpoint: string;
  /** What the first line says is measured, e.g. `GET /api/v1/billing/credits with a valid API key`. */
  title: string;
  connections: number;
  seconds: number;
  rounds: number;
  target: number;
  runs: Record<Side, RunFigures[]>;
  /** Lines printed under the verdict. */
  notes?: string[];
  /** Extra fields of the JSON summary. */
  extra?: Record<string, unknown>;
}

/** Prints the table (best run of each side), the ratio against its target, and a one-line JSON summary. */
export function printComparison(report: ComparisonReport): boolean {
  const baseline = best(report.runs.baseline);
  const ours = best(report.runs.ours);
  const ratio = ours.requestsPerSecond / baseline.requestsPerSecond;
  const pass = ratio >= report.target;

  const row = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(10) : i === cells.length - 1 ? `    ${c}` : c.padStart(12))).join('');
  const lines = [
    '',
    `${report.title}: ${report.connections} connections, ${report.rounds} × ${report.seconds} s per side, best run`,
    row(['', 'requests/s', 'p50 ms', 'p99 ms', 'avg ms', 'all runs']),
    ...SIDES.map((side) => {
      const f = best(report.runs[side]);
      const all = report.runs[side].map((r) => r.requestsPerSecond.toFixed(0)).join(' / ');
      return row([
        side,
        f.requestsPerSecond.toFixed(1),
        String(f.latencyP50Ms),
        String(f.latencyP99Ms),
        f.latencyAvgMs.toFixed(2),
        all,
      ]);
    }),
    '',
    `ours / baseline: ${ratio.toFixed(3)}x   target ≥ ${report.target.toFixed(2)}x   ${pass ? 'PASS' : 'FAIL'}`,
    ...(report.notes ?? []),
    '',
  ];
  process.stdout.write(lines.join('\n'));

  const side = (f: RunFigures, all: RunFigures[]) => ({
    rps: Math.round(f.requestsPerSecond * 10) / 10,
    p50_ms: f.latencyP50Ms,
    p99_ms: f.latencyP99Ms,
    runs_rps: all.map((r) => Math.round(r.requestsPerSecond * 10) / 10),
  });
  const summary = {
    bench: report.bench,
    endpoint: report.endpoint,
    connections: report.connections,
    duration_s: report.seconds,
    rounds: report.rounds,
    pool_size: POOL_SIZE,
    baseline: side(baseline, report.runs.baseline),
    ours: side(ours, report.runs.ours),
    ratio: Math.round(ratio * 1000) / 1000,
    target: report.target,
    pass,
    ...report.extra,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  return pass;
}

/** The data of an SSE block if it is an event `status`. */
export function statusData(block: string): string | undefined {
  let event = 'message';
  let data: string | undefined;
  for (const line of block.split('\n')) {
    if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data = data === undefined ? line.slice(6) : `${data}\n${line.slice(6)}`;
  }
  return event === 'status' ? data : undefined;
}

/**
 * Follows a generation's live status (GET /api/v1/generations/{id}/events, Server-Sent Events)
 * until the record that says it completed or failed: that record, when its event arrived
 * (performance.now()) and how many status events came. Opened once the generation is accepted: the
 * stream answers its current record at once, then every change.
 */
export async function watchUntilFinished(
  server: Server,
  headers: Record<string, string>,
  id: string,
  timeoutMs: number,
): Promise<{ record: { status: string; result_urls: string[] }; at: number; events: number }> {
  const res = await fetch(`${server.baseUrl}/api/v1/generations/${id}/events`, {
    headers,
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (res.status !== 200 || !res.body) throw new Error(`events of ${id} answered ${res.status}: ${await res.text()}`);
  const decoder = new TextDecoder();
  let buffered = '';
  let events = 0;
  try {
    for await (const chunk of res.body) {
      const at = performance.now();
      buffered += decoder.decode(chunk, { stream: true });
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const data = statusData(buffered.slice(0, end));
        buffered = buffered.slice(end + 2);
        if (data === undefined) continue;
        events++;
        const record = JSON.parse(data) as { status: string; result_urls: string[] };
        if (record.status === 'completed' || record.status === 'failed') return { record, at, events };
      }
    }
  } finally {
    await res.body.cancel().catch(() => undefined);
  }
  throw new Error(`the events of ${id} ended before it finished\n${server.output()}`);
}

/** The value at quantile q (0..1) of ascending samples, nearest rank. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) throw new Error('no samples');
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}
