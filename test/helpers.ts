import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { buildApp, buildMetricsApp } from '../src/app.ts';
import type { App } from '../src/app-types.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { freePort } from '../src/db/embedded.ts';
import { createPool } from '../src/db/pool.ts';
import * as dbSql from '../src/db/sql.ts';
import { createDeps } from '../src/deps.ts';
import { startTracing } from '../src/lib/tracing.ts';
import type { RegisteredRoute } from '../src/plugins/auth.ts';
import { startWorker } from '../src/worker.ts';

const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL;
const TEMPLATE = process.env.TEST_TEMPLATE_DATABASE;

function requireEnv(): { adminUrl: string; template: string } {
  if (!ADMIN_URL || !TEMPLATE) throw new Error('Run the tests with `npm test` (it starts the test database).');
  return { adminUrl: ADMIN_URL, template: TEMPLATE };
}

/** A fresh database cloned from the migrated template; dropped by the returned function. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const { adminUrl, template } = requireEnv();
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await dbSql.createDatabase(admin, name, template);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await dbSql.dropDatabase(c, name);
      } finally {
        await c.end();
      }
    },
  };
}

export interface TestServer {
  url: string;
  app: App;
  routes: RegisteredRoute[];
  adminToken: string;
  databaseUrl: string;
  /** A pool on the same database, for checks a user could make through SQL reports. */
  pool: pg.Pool;
  dataDir: string;
  /** The listener of METRICS_PORT, when the test set one. */
  metricsUrl: string | undefined;
  close(): Promise<void>;
}

export interface ServerOptions {
  env?: Record<string, string>;
  /** Reuse a database (a second process on the same data). */
  databaseUrl?: string;
  adminToken?: string;
  /** Also run a worker in this process (default true). */
  worker?: boolean;
  /** Where the API's request log goes (as JSON lines), at LOG_LEVEL (silent unless the test sets it). */
  logStream?: { write(line: string): void };
}

/** Starts the real HTTP app on a free port against a real PostgreSQL database of its own. */
/** How long a test server's close waits for connections still open before it cuts them. */
const CLOSE_GRACE_MS = 3000;

export async function startTestServer(options: ServerOptions = {}): Promise<TestServer> {
  const database = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => {} }
    : await createTestDatabase();
  const adminToken = options.adminToken ?? `gma_${randomBytes(30).toString('base64url')}`;
  const dataDir = await mkdtemp(join(tmpdir(), 'genmedia-server-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config: Config = loadConfig({
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: dataDir,
    PUBLIC_BASE_URL: url,
    ALLOW_PRIVATE_URLS: 'true',
    WORKER_DEAD_AFTER_MS: '2000',
    // Most tests send many wrong credentials from one address on purpose; the tests of the
    // failed-authentication limit turn it on.
    AUTH_FAILURES_PER_MINUTE: '0',
    // The suite runs on its own database (a production-style start), where the simulator serves only
    // what the operator names and the test checkout must be chosen: most tests rely on both. A test
    // opts out by setting either to ''.
    SIMULATOR_MODELS: '*',
    PAYMENT_PROVIDER: 'builtin',
    ...options.env,
  });
  // As the service's start does (once a process; nothing without OTEL_EXPORTER_OTLP_ENDPOINT).
  startTracing({ ...config.tracing, role: options.worker === false ? 'api' : 'all' });
  const pool = createPool(database.url, config.databasePoolSize, () => undefined, {
    timeouts: config.databaseTimeouts,
  });
  const deps = createDeps(config, pool, adminToken);
  const { app, routes } = await buildApp(deps, { logStream: options.logStream });
  await app.listen({ port, host: '127.0.0.1' });
  const metricsApp = config.metrics.port === undefined ? undefined : await buildMetricsApp(deps);
  await metricsApp?.listen({ port: config.metrics.port, host: '127.0.0.1' });
  const worker = options.worker === false ? undefined : await startWorker(deps, pino({ level: 'silent' }));
  return {
    url,
    app,
    routes,
    adminToken,
    databaseUrl: database.url,
    pool,
    dataDir,
    metricsUrl: config.metrics.port === undefined ? undefined : `http://127.0.0.1:${config.metrics.port}`,
    close: async () => {
      const closing = app.close();
      // Connections still open after the grace are cut. In full runs one stayed open, after the
      // file's own requests were done, until the server's keep-alive timeout (72 s): most likely a
      // client of another test file (they run side by side on free ports) on a port this reused.
      const force = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS);
      await closing;
      clearTimeout(force);
      await metricsApp?.close();
      await worker?.stop();
      await pool.end();
      if (!options.databaseUrl) await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  /** Bearer credential (API key or admin token). */
  token?: string;
  body?: unknown;
  /** A raw body sent as is (with its own content type). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/** One HTTP call; parses a JSON answer when there is one. */
export async function call<T = unknown>(
  server: { url: string },
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${server.url}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export interface TeamFixture {
  id: string;
  key: string;
  keyId: string;
}

/** Creates a team with credits and an API key through the admin API. */
/** A vendor credential as the admin API lists it (the fields the tests read). */
export interface ListedCredential {
  id: string;
  state: 'active' | 'cooling' | 'disabled';
  reason: string | null;
}

/**
 * Waits until the admin API lists credential `id` as `state` (a change reaches each process's list
 * through NOTIFY, a moment after it is made), for at most 10 s; answers it as listed then.
 */
export async function credentialBecomes(
  server: Pick<TestServer, 'url' | 'adminToken'>,
  id: string,
  state: ListedCredential['state'],
): Promise<ListedCredential> {
  for (const deadline = Date.now() + 10_000; ; await sleep(20)) {
    const listed = await call<{ data: ListedCredential[] }>(server, 'GET', '/admin/v1/credentials', {
      token: server.adminToken,
    });
    const found = listed.body.data?.find((c) => c.id === id);
    if (found?.state === state) return found;
    if (Date.now() > deadline) throw new Error(`credential ${id} is ${found?.state ?? 'not listed'}, not ${state}`);
  }
}

export async function createTeam(
  server: Pick<TestServer, 'url' | 'adminToken'>,
  credits = 1000,
  name = 'team',
): Promise<TeamFixture> {
  const team = await call<{ id: string }>(server, 'POST', '/admin/v1/teams', {
    token: server.adminToken,
    body: { name, credits },
  });
  if (team.status !== 201) throw new Error(`team create failed: ${team.status} ${team.text}`);
  const key = await call<{ id: string; key: string }>(server, 'POST', `/admin/v1/teams/${team.body.id}/api-keys`, {
    token: server.adminToken,
    body: { name: 'test' },
  });
  if (key.status !== 201) throw new Error(`key create failed: ${key.status} ${key.text}`);
  return { id: team.body.id, key: key.body.key, keyId: key.body.id };
}

/** Fills a route pattern's parameters with plausible ids. */
export function concretePath(url: string): string {
  return url.replace(/:([A-Za-z_]+)/g, (_m, name: string) => `${name}-${randomBytes(4).toString('hex')}`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a client saw when it sent the rest of its body only after reading an early answer. */
export interface LateBodyOutcome {
  /** The raw answer: status line, headers and body. */
  answer: string;
  /** A socket error while sending the rest or afterwards (a reset), if any. */
  error?: Error;
  /** Whether the server closed its side cleanly. */
  ended: boolean;
}

/**
 * Sends a request over a raw socket in two steps, as a slow client does: the head (request
 * line and headers, with the Content-Length of the whole body) and the first part of the body,
 * then, only once the answer has been read in full, the rest of the body.
 */
export async function sendRestAfterAnswer(
  server: { url: string },
  head: string,
  first: Buffer,
  rest: Buffer,
): Promise<LateBodyOutcome> {
  const { port } = new URL(server.url);
  const socket = connect(Number(port), '127.0.0.1');
  let ended = false;
  socket.on('end', () => {
    ended = true;
  });
  const closed = new Promise<Error | undefined>((resolveClose) => {
    socket.on('error', (error) => resolveClose(error));
    socket.on('close', () => resolveClose(undefined));
  });
  let answer = '';
  const answered = new Promise<void>((resolveAnswer) => {
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      const split = answer.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(answer);
      if (split >= 0 && length && answer.length >= split + 4 + Number(length[1])) resolveAnswer();
    });
  });
  socket.write(head);
  if (first.length > 0) socket.write(first);
  await Promise.race([answered, closed]);
  const written = await new Promise<Error | undefined>((resolveWrite) =>
    socket.write(rest, (err) => resolveWrite(err ?? undefined)),
  );
  const error = written ?? (await closed);
  socket.destroy();
  return { answer, error, ended };
}

/**
 * Asserts that a late body was answered with `status` and `code` and a `Connection: close`, and
 * that the server then read the rest instead of resetting the connection, and closed cleanly.
 */
export function assertAnsweredEarlyAndClosedCleanly(outcome: LateBodyOutcome, status: number, code: string): void {
  assert.match(outcome.answer, new RegExp(`^HTTP/1\\.1 ${status} `));
  assert.match(outcome.answer, /\r\nconnection: close\r\n/i);
  assert.match(outcome.answer, new RegExp(`"code":"${code}"`));
  assert.equal(outcome.error, undefined, 'the server read the rest of the body instead of resetting the connection');
  assert.ok(outcome.ended, 'the server closed its side cleanly');
}

/**
 * Resolves with `check`'s answer once it is not undefined, asking again each time the generation
 * changes (LISTEN on the channel its triggers notify at commit): no polling, no fixed wait.
 */
export async function whenGeneration<T>(
  databaseUrl: string,
  generationId: string,
  check: () => Promise<T | undefined>,
): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    let changed: () => void = () => undefined;
    client.on('notification', (n) => {
      if (n.payload === generationId) changed();
    });
    await client.query('listen generation_events');
    for (;;) {
      const next = new Promise<void>((resolve) => {
        changed = resolve;
      });
      const value = await check();
      if (value !== undefined) return value;
      await next;
    }
  } finally {
    await client.end();
  }
}
