// Benchmark: GET /api/v1/generations/{id}/status of a completed generation (`npm run bench:status`).
//
// What is measured: requests/s and latency of the status read that clients poll, on the real
// service (src/server.ts as its own process, ROLE=api, on a real embedded PostgreSQL), for a
// COMPLETED generation of 4 images, against a baseline that does the same work the simplest way:
// a raw node:http server with a `pg` pool (bench/baseline-status-server.ts) that checks the key
// with one query on api_keys and then runs the very statement of the service's selectStatus
// (the generation and its items as JSON in one statement) and builds the same record. The ratio
// ours/baseline shows what the service's stack (Fastify, hooks, auth pipeline, validation,
// metrics, schema-driven serialisation) costs against doing that work bare; the target is at
// least 1.0 (the service, with its auth cache, polls at least as fast as the bare server).
//
// Setup: the generation is made through the public API (POST /api/v1/images/generate, batch 4)
// and run by a worker-only process of the service (ROLE=worker, the same DATA_DIR and
// PUBLIC_BASE_URL), which is stopped once the generation is completed, so no worker shares the
// CPUs during the measurement. Both servers must then answer byte-identical bodies, and every
// response under load must equal that body.
//
// Fairness: both are single Node processes on the same machine and database, with the same pool
// size and clean environment. The baseline re-checks the key on every request (two queries per
// request); the service, with its default settings, trusts a verified key for up to
// AUTH_CACHE_TTL_MS (750 ms), so in steady state it runs only the status statement. That cache is
// part of what is measured, as in bench/auth.ts. Sides alternate with a warm-up before every
// measured run; each side's best run counts.
//
// Environment: BENCH_DURATION (seconds per measured run, default 10), BENCH_QUICK=1 (one round of
// 1 s warm-up + 1 s per side: checks that the bench works; see bench/lib.ts).
import { randomBytes } from 'node:crypto';
import {
  alternateRounds,
  createTeamWithKey,
  durationSeconds,
  exited,
  failUnlessTargetMet,
  load,
  prepareEnvironment,
  printComparison,
  progress,
  quick,
  runBenchmark,
  SERVICE_DEFAULTS,
  type Server,
  type Side,
  sleep,
  startBaseline,
  startOurServer,
  stopChild,
  waitUntilHealthy,
} from './lib.ts';

const CONNECTIONS = 50;
const WARMUP_SECONDS = quick(1, 2);
const ROUNDS = quick(1, 2);
const TARGET_RATIO = 1.0;
const BATCH = 4;
const TEAM_CREDITS = 10_000;
const COMPLETION_TIMEOUT_MS = 60_000;

interface StatusRecord {
  generation_id: string;
  status: string;
  result_urls: string[];
  completed_items: number;
  total_items: number;
  items: unknown[];
}

async function request(
  server: Server,
  path: string,
  authorization: string | undefined,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, text: await res.text() };
}

/** Creates a batch-4 generation through the API and waits until the worker has completed it. */
async function completedGeneration(ours: Server, worker: Server, key: string): Promise<string> {
  const created = await request(ours, '/api/v1/images/generate', `Bearer ${key}`, {
    prompt: 'bench status: golden sunset over blue ocean waves',
    batch: BATCH,
  });
  if (created.status !== 200)
    throw new Error(`POST /api/v1/images/generate answered ${created.status}: ${created.text}`);
  const id = (JSON.parse(created.text) as { generation_id: string }).generation_id;

  const deadline = Date.now() + COMPLETION_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    if (exited(worker.child)) throw new Error(`The worker exited before completing ${id}:\n${worker.output()}`);
    const res = await request(ours, `/api/v1/generations/${id}/status`, `Bearer ${key}`);
    last = `${res.status} ${res.text}`;
    if (res.status !== 200) throw new Error(`status of ${id} answered ${last}`);
    const record = JSON.parse(res.text) as StatusRecord;
    if (record.status === 'completed') {
      if (record.completed_items !== BATCH || record.result_urls.length !== BATCH) {
        throw new Error(`generation ${id} completed without ${BATCH} results: ${res.text}`);
      }
      return id;
    }
    if (record.status === 'failed') throw new Error(`generation ${id} failed: ${res.text}\n${worker.output()}`);
    await sleep(50);
  }
  throw new Error(
    `generation ${id} not completed within ${COMPLETION_TIMEOUT_MS} ms; last: ${last}\n${worker.output()}`,
  );
}

/**
 * Checks, before any load, that both servers answer the same body for the generation and
 * refuse a missing or unknown key (401) and an unknown generation (404). Returns the body.
 */
async function verify(servers: Record<Side, Server>, key: string, id: string): Promise<string> {
  const path = `/api/v1/generations/${id}/status`;
  const bodies: Partial<Record<Side, string>> = {};
  for (const side of ['baseline', 'ours'] as const) {
    const server = servers[side];
    const ok = await request(server, path, `Bearer ${key}`);
    if (ok.status !== 200) throw new Error(`${side}: expected 200 for ${path}, got ${ok.status}: ${ok.text}`);
    bodies[side] = ok.text;
    const unknownKey = `gms_${randomBytes(30).toString('base64url')}`;
    for (const authorization of [undefined, `Bearer ${unknownKey}`]) {
      const refused = await request(server, path, authorization);
      if (refused.status !== 401) {
        throw new Error(
          `${side}: expected 401 for ${authorization ? 'an unknown key' : 'no key'}, got ${refused.status}`,
        );
      }
    }
    const unknown = await request(server, '/api/v1/generations/gen_00000000000000000000000000/status', `Bearer ${key}`);
    if (unknown.status !== 404)
      throw new Error(`${side}: expected 404 for an unknown generation, got ${unknown.status}`);
  }
  if (bodies.ours !== bodies.baseline) {
    throw new Error(`the bodies differ:\n  ours:     ${bodies.ours}\n  baseline: ${bodies.baseline}`);
  }
  const record = JSON.parse(bodies.ours ?? '') as StatusRecord;
  // The media the worker stored is served by the API process.
  const media = await fetch(record.result_urls[0] ?? '');
  const bytes = (await media.arrayBuffer()).byteLength;
  if (media.status !== 200 || media.headers.get('content-type') !== 'image/png' || bytes === 0) {
    throw new Error(`result ${record.result_urls[0]} answered ${media.status} ${media.headers.get('content-type')}`);
  }
  return bodies.ours ?? '';
}

async function main(): Promise<void> {
  const seconds = durationSeconds();
  const env = await prepareEnvironment();

  const servers: Record<Side, Server> = {
    ours: await startOurServer(env, { role: 'api' }),
    baseline: await startBaseline(env, 'bench/baseline-status-server.ts'),
  };
  await Promise.all(Object.values(servers).map(waitUntilHealthy));
  const { key } = await createTeamWithKey(servers.ours, env.adminToken, 'bench', TEAM_CREDITS);

  progress(`creating a generation of ${BATCH} images and running it with a worker-only process…`);
  const worker = await startOurServer(env, { name: 'worker', role: 'worker', publicBaseUrl: servers.ours.baseUrl });
  const id = await completedGeneration(servers.ours, worker, key);
  await stopChild(worker);

  const body = await verify(servers, key, id);
  const path = `/api/v1/generations/${id}/status`;
  progress(
    `generation ${id} completed (${Buffer.byteLength(body)}-byte status record, identical on both sides); ` +
      `worker stopped; pool size ${SERVICE_DEFAULTS.databasePoolSize}, service auth cache ` +
      `${SERVICE_DEFAULTS.authCacheTtlMs} ms; ${ROUNDS} rounds of ${WARMUP_SECONDS} s warm-up + ${seconds} s measured per side`,
  );

  const runs = await alternateRounds({
    servers,
    rounds: ROUNDS,
    warmupSeconds: WARMUP_SECONDS,
    seconds,
    run: (server, runSeconds, phase) =>
      load(
        server,
        {
          path,
          connections: CONNECTIONS,
          seconds: runSeconds,
          headers: { authorization: `Bearer ${key}` },
          expectBody: body,
        },
        phase,
      ),
  });
  const pass = printComparison({
    bench: 'status',
    endpoint: 'GET /api/v1/generations/{id}/status',
    title: `GET /api/v1/generations/{id}/status of a completed ${BATCH}-image generation`,
    connections: CONNECTIONS,
    seconds,
    rounds: ROUNDS,
    target: TARGET_RATIO,
    runs,
    notes: [
      `baseline: key check (1 query) + the selectStatus statement per request; ours: the same statement, ` +
        `key verified at most every ${SERVICE_DEFAULTS.authCacheTtlMs} ms (auth cache)`,
    ],
    extra: { items: BATCH, body_bytes: Buffer.byteLength(body) },
  });
  failUnlessTargetMet(pass);
}

await runBenchmark('status', main);
