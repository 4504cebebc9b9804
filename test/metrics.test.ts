import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { buildMetricsApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { freePort } from '../src/db/embedded.ts';
import { createPool } from '../src/db/pool.ts';
import { createDeps } from '../src/deps.ts';
import { type ServiceProcess, startServiceProcess } from './chaos/service.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { type ErrorReply, waitForGeneration } from './media-helpers.ts';
import { closedPort } from './provider-helpers.ts';

const metricsToken = () => `mt_${randomBytes(24).toString('base64url')}`;

function assertUnauthorized(r: { status: number; body: unknown; headers: Headers; text: string }, message: RegExp) {
  assert.equal(r.status, 401, r.text);
  const body = r.body as ErrorReply;
  assert.equal(body.error.code, 'unauthorized');
  assert.match(body.error.message, message);
  assert.ok(r.headers.get('x-request-id'));
}

describe('METRICS_TOKEN', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    token = metricsToken();
    server = await startTestServer({
      worker: false,
      env: { METRICS_TOKEN: token, AUTH_FAILURES_PER_MINUTE: '6', AUTH_FAILURES_BURST: '3', TRUST_PROXY: '127.0.0.1' },
    });
  });
  after(() => server.close());

  test('GET /metrics takes the bearer token and refuses anything else with 401', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.40' };
    assertUnauthorized(await call(server, 'GET', '/metrics', { headers }), /Missing credential.*metrics token/);
    assertUnauthorized(await call(server, 'GET', '/metrics', { token: `${token}x`, headers }), /Invalid metrics token/);
    assertUnauthorized(
      await call(server, 'GET', '/metrics', { token: server.adminToken, headers }),
      /Invalid metrics token/,
    );
    const r = await call(server, 'GET', '/metrics', { token, headers });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /text\/plain/);
    assert.match(r.text, /http_requests_total\{method="GET",route="\/metrics",status="401"\} 3/);
  });

  test('wrong metrics tokens count as failed authentications of the address', async () => {
    const address = { 'x-forwarded-for': '203.0.113.50' };
    for (let i = 0; i < 3; i += 1) {
      assert.equal((await call(server, 'GET', '/metrics', { token: metricsToken(), headers: address })).status, 401);
    }
    const refused = await call<ErrorReply>(server, 'GET', '/metrics', { token, headers: address });
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.body.error.code, 'rate_limited');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    const other = await call(server, 'GET', '/metrics', { token, headers: { 'x-forwarded-for': '203.0.113.51' } });
    assert.equal(other.status, 200);
  });
});

describe('METRICS_PORT', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    token = metricsToken();
    server = await startTestServer({
      worker: false,
      env: { METRICS_PORT: String(await freePort()), METRICS_TOKEN: token },
    });
  });
  after(() => server.close());

  test('serves /metrics on its own port, counting the main port’s requests; the main port answers 404', async () => {
    const team = await createTeam(server, 2);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: team.key })).status, 200);
    const main = await call<ErrorReply>(server, 'GET', '/metrics', { token });
    assert.equal(main.status, 404);
    assert.equal(main.body.error.code, 'not_found');
    assert.ok(server.metricsUrl);
    const metrics = { url: server.metricsUrl };
    const r = await call(metrics, 'GET', '/metrics', { token });
    assert.equal(r.status, 200, r.text);
    assert.match(r.text, /http_requests_total\{method="GET",route="\/api\/v1\/billing\/credits",status="200"\} 1/);
    assert.match(r.text, /http_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
    assert.match(r.text, /process_cpu_user_seconds_total/);
    // The metrics port serves nothing else, and takes the token there too.
    assertUnauthorized(await call(metrics, 'GET', '/metrics'), /metrics token/);
    const other = await call<ErrorReply>(metrics, 'GET', '/healthz');
    assert.equal(other.status, 404);
    assert.equal(other.body.error.code, 'not_found');
  });
});

describe('metrics settings', () => {
  test('METRICS_PORT must differ from PORT, and METRICS_TOKEN must be long enough to resist guessing', () => {
    assert.throws(() => loadConfig({ PORT: '9000', METRICS_PORT: '9000' }), /METRICS_PORT must differ from PORT/);
    assert.equal(loadConfig({ PORT: '9000', METRICS_PORT: '9000', ROLE: 'worker' }).metrics.port, 9000);
    assert.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), /METRICS_TOKEN/);
    assert.deepEqual(loadConfig({}).metrics, { token: undefined, port: undefined });
  });
});

/** One series of a Prometheus text answer, by its exact labels; undefined when it is not there. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (isDeepStrictEqual(got, labels)) return Number(m[3]);
  }
  return undefined;
}

/** Every series of one metric, as `{labels} value` lines (for assertion messages). */
const seriesOf = (text: string, name: string) => text.split('\n').filter((line) => line.startsWith(`${name}{`));

describe('what the service counts: generations, items, durations and vendor attempts', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;
  before(async () => {
    fal = await startFakeFal();
    server = await startTestServer({
      env: { ...fal.env, ITEM_MAX_ATTEMPTS: '1' },
    });
    team = await createTeam(server, 10_000);
  });
  after(async () => {
    await server.close();
    await fal.close();
  });

  test('each outcome is counted once by operation, model, provider and kind, with its duration', async () => {
    // The simulator (no text vendor is configured), in the request: one completed, one failed.
    const text = (prompt: string) =>
      call(server, 'POST', '/api/v1/text/generate', { token: team.key, body: { prompt } });
    assert.equal((await text('a haiku about metrics')).status, 200);
    assert.equal((await text('fail please [simulate:fail]')).status, 500);
    // fal.ai, on the worker: one completed, one refused at submit (422).
    const image = async (prompt: string) => {
      const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
        token: team.key,
        body: { prompt, model: 'flux-1-schnell' },
      });
      assert.equal(r.status, 200, r.text);
      return waitForGeneration(server, team.key, r.body.generation_id, 30_000);
    };
    assert.equal((await image('a lighthouse for the dashboard')).status, 'completed');
    assert.equal((await image('bad size [fal:422]')).status, 'failed');
    // Refused before acceptance: not counted.
    assert.equal((await call(server, 'POST', '/api/v1/text/generate', { token: team.key, body: {} })).status, 400);

    const r = await call(server, 'GET', '/metrics');
    assert.equal(r.status, 200);
    const m = r.text;
    const accepted = (operation: string, model: string) =>
      sample(m, 'genmedia_generations_accepted_total', { operation, model });
    assert.equal(
      accepted('text.generate', 'openai/gpt-4o-mini'),
      2,
      seriesOf(m, 'genmedia_generations_accepted_total').join('\n'),
    );
    assert.equal(accepted('image.generate', 'flux-1-schnell'), 2);

    const items = (labels: Record<string, string>) => sample(m, 'genmedia_items_finished_total', labels);
    const text4o = { operation: 'text.generate', model: 'openai/gpt-4o-mini', provider: 'simulator' };
    const flux = { operation: 'image.generate', model: 'flux-1-schnell', provider: 'fal' };
    const all = seriesOf(m, 'genmedia_items_finished_total').join('\n');
    assert.equal(items({ ...text4o, outcome: 'completed', error_kind: 'none' }), 1, all);
    assert.equal(items({ ...text4o, outcome: 'failed', error_kind: 'internal' }), 1, all);
    assert.equal(items({ ...flux, outcome: 'completed', error_kind: 'none' }), 1, all);
    assert.equal(items({ ...flux, outcome: 'failed', error_kind: 'invalid_input' }), 1, all);
    assert.equal(seriesOf(m, 'genmedia_items_finished_total').length, 4, all);

    const finished = (operation: string, model: string, status: string) =>
      sample(m, 'genmedia_generations_finished_total', { operation, model, status });
    const allFinished = seriesOf(m, 'genmedia_generations_finished_total').join('\n');
    assert.equal(finished('text.generate', 'openai/gpt-4o-mini', 'completed'), 1, allFinished);
    assert.equal(finished('text.generate', 'openai/gpt-4o-mini', 'failed'), 1, allFinished);
    assert.equal(finished('image.generate', 'flux-1-schnell', 'completed'), 1, allFinished);
    assert.equal(finished('image.generate', 'flux-1-schnell', 'failed'), 1, allFinished);

    const count = (operation: string, provider: string, outcome: string) =>
      sample(m, 'genmedia_item_duration_seconds_count', { operation, provider, outcome });
    assert.equal(count('text.generate', 'simulator', 'completed'), 1);
    assert.equal(count('text.generate', 'simulator', 'failed'), 1);
    assert.equal(count('image.generate', 'fal', 'completed'), 1);
    assert.equal(count('image.generate', 'fal', 'failed'), 1);
    // Media buckets from half a second to half an hour; these took less than half a minute.
    const falCompleted = { operation: 'image.generate', provider: 'fal', outcome: 'completed' };
    const bucket = (le: string) => sample(m, 'genmedia_item_duration_seconds_bucket', { le, ...falCompleted });
    assert.equal(bucket('30'), 1);
    assert.equal(bucket('1800'), 1);
    assert.ok((sample(m, 'genmedia_item_duration_seconds_sum', falCompleted) ?? 0) > 0);

    const attempts = (labels: Record<string, string>) => sample(m, 'genmedia_vendor_attempts_total', labels);
    const schnell = { provider: 'fal', endpoint: 'fal-ai/flux/schnell' };
    const allAttempts = seriesOf(m, 'genmedia_vendor_attempts_total').join('\n');
    assert.equal(attempts({ ...schnell, outcome: 'completed', error_kind: 'none' }), 1, allAttempts);
    assert.equal(attempts({ ...schnell, outcome: 'submit_failed', error_kind: 'invalid_input' }), 1, allAttempts);
    assert.equal(seriesOf(m, 'genmedia_vendor_attempts_total').length, 2, allAttempts);

    // Group commit: four accepts made one after the other, each carried once (alone, or in a batch
    // with a settle under way when it came), and the settles of the items that ran.
    const statements = (kind: string) => sample(m, 'genmedia_db_statements_total', { kind });
    const calls = (fn: string, kind: string) => sample(m, 'genmedia_db_calls_total', { function: fn, kind });
    const allStatements = seriesOf(m, 'genmedia_db_statements_total').join('\n');
    assert.deepEqual(
      seriesOf(m, 'genmedia_db_statements_total').map((line) => line.replace(/ .*$/, '')),
      ['genmedia_db_statements_total{kind="alone"}', 'genmedia_db_statements_total{kind="batch"}'],
      allStatements,
    );
    assert.equal((calls('accept_generation', 'alone') ?? 0) + (calls('accept_generation', 'batch') ?? 0), 4);
    assert.equal(sample(m, 'genmedia_db_calls_sent_again_total', { function: 'accept_generation' }), 0);
    assert.ok((calls('finish_item', 'alone') ?? 0) + (calls('finish_item', 'batch') ?? 0) >= 2);
    const carried = ['accept_generation', 'finish_item'].reduce(
      (sum, fn) => sum + (calls(fn, 'alone') ?? 0) + (calls(fn, 'batch') ?? 0),
      0,
    );
    // Every call went in one statement: alone, or one of a batch's (at least two) calls.
    assert.equal(
      statements('alone'),
      (calls('accept_generation', 'alone') ?? 0) + (calls('finish_item', 'alone') ?? 0),
    );
    assert.ok((statements('batch') ?? 0) * 2 <= carried - (statements('alone') ?? 0), allStatements);

    // Nothing the user sent becomes a label; nothing is left in the queue.
    assert.ok(!m.includes('lighthouse') && !m.includes('haiku'), 'prompts must not become labels');
    assert.equal(sample(m, 'genmedia_queue_stats_up'), 1);
    assert.deepEqual(seriesOf(m, 'genmedia_queue_items'), []);
  });
});

describe('what the service counts: webhook attempts', () => {
  let server: TestServer;
  let team: TeamFixture;
  let receiver: HttpServer;
  let receiverUrl: string;
  before(async () => {
    // /ok takes every webhook; anything else answers 500.
    receiver = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(req.url === '/ok' ? 200 : 500).end());
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
    // One retry, a second after the first attempt.
    server = await startTestServer({ env: { WEBHOOK_RETRY_DELAYS_S: '1' } });
    team = await createTeam(server, 10_000);
  });
  after(async () => {
    await server.close();
    await new Promise<void>((r) => receiver.close(() => r()));
  });

  test('each attempt is counted by outcome and status class', async () => {
    const hooks = [`${receiverUrl}/ok`, `${receiverUrl}/down`, `http://127.0.0.1:${await closedPort()}/gone`];
    for (const webhook of hooks) {
      const r = await call(server, 'POST', '/api/v1/images/generate', {
        token: team.key,
        body: { prompt: 'tell me when it is done', webhook },
      });
      assert.equal(r.status, 200, r.text);
    }
    const expected: Array<[Record<string, string>, number]> = [
      [{ outcome: 'delivered', status_class: '2xx' }, 1],
      [{ outcome: 'failed_attempt', status_class: '5xx' }, 1],
      [{ outcome: 'gave_up', status_class: '5xx' }, 1],
      [{ outcome: 'failed_attempt', status_class: 'network' }, 1],
      [{ outcome: 'gave_up', status_class: 'network' }, 1],
    ];
    // Every delivery ends (the team's own view says so); its attempts are then on /metrics.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const list = await call<{ data: Array<{ status: string }> }>(server, 'GET', '/api/v1/webhooks/deliveries', {
        token: team.key,
      });
      const ended = list.body.data.filter((d) => d.status === 'delivered' || d.status === 'failed');
      if (ended.length === hooks.length) break;
      assert.ok(Date.now() < deadline, `deliveries still under way: ${list.text}`);
      await sleep(200);
    }
    const m = (await call(server, 'GET', '/metrics')).text;
    for (const [labels, n] of expected) {
      assert.equal(
        sample(m, 'genmedia_webhook_attempts_total', labels),
        n,
        `${JSON.stringify(labels)}:\n${seriesOf(m, 'genmedia_webhook_attempts_total').join('\n')}`,
      );
    }
    assert.equal(seriesOf(m, 'genmedia_webhook_attempts_total').length, expected.length);
  });
});

describe('metrics of a worker process and of the queue', () => {
  let server: TestServer;
  let team: TeamFixture;
  let worker: ServiceProcess | undefined;
  let metricsPort: number;
  before(async () => {
    server = await startTestServer({ worker: false });
    team = await createTeam(server, 10_000);
    metricsPort = await freePort();
  });
  after(async () => {
    await worker?.kill();
    await server.close();
  });

  test('the queue is read from the database at scrape time; a ROLE=worker process serves the items it ran on METRICS_PORT', async () => {
    // No worker yet: the item waits.
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'waits in the queue', model: 'flux-1-schnell' },
    });
    assert.equal(created.status, 200, created.text);
    await sleep(1100);
    const queued = (await call(server, 'GET', '/metrics')).text;
    assert.equal(sample(queued, 'genmedia_queue_stats_up'), 1);
    assert.equal(
      sample(queued, 'genmedia_queue_items', { type: 'image', status: 'QUEUED' }),
      1,
      seriesOf(queued, 'genmedia_queue_items').join('\n'),
    );
    const age = sample(queued, 'genmedia_queue_oldest_age_seconds', { type: 'image' }) ?? 0;
    assert.ok(age >= 1 && age < 60, `oldest queued item is ${age} s old`);
    assert.equal(
      sample(queued, 'genmedia_generations_accepted_total', { operation: 'image.generate', model: 'flux-1-schnell' }),
      1,
    );

    worker = await startServiceProcess({
      role: 'worker',
      databaseUrl: server.databaseUrl,
      adminToken: server.adminToken,
      dataDir: server.dataDir,
      env: { METRICS_PORT: String(metricsPort) },
    });
    await worker.ready();
    assert.equal((await waitForGeneration(server, team.key, created.body.generation_id, 30_000)).status, 'completed');

    const ran = (await call({ url: `http://127.0.0.1:${metricsPort}` }, 'GET', '/metrics')).text;
    const labels = {
      operation: 'image.generate',
      model: 'flux-1-schnell',
      provider: 'simulator',
      outcome: 'completed',
    };
    assert.equal(sample(ran, 'genmedia_items_finished_total', { ...labels, error_kind: 'none' }), 1, ran);
    assert.equal(
      sample(ran, 'genmedia_item_duration_seconds_count', {
        operation: 'image.generate',
        provider: 'simulator',
        outcome: 'completed',
      }),
      1,
    );
    assert.deepEqual(seriesOf(ran, 'genmedia_queue_items'), [], 'the queue is empty again, as every process sees it');
    // The API process accepted it; the worker finished it: each counts what it did.
    const api = (await call(server, 'GET', '/metrics')).text;
    assert.deepEqual(seriesOf(api, 'genmedia_items_finished_total'), []);
    assert.deepEqual(seriesOf(ran, 'genmedia_generations_accepted_total'), []);
  });
});

describe('metrics while the database does not answer', () => {
  let hung: Server;
  const sockets = new Set<Socket>();
  let dir: string;
  before(async () => {
    // A database that accepts connections and never answers (a hung server).
    hung = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    dir = await mkdtemp(join(tmpdir(), 'genmedia-metrics-'));
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((r) => hung.close(() => r()));
    await rm(dir, { recursive: true, force: true });
  });

  test('/metrics still answers in time with the process metrics, and says the queue could not be read', async () => {
    const address = hung.address() as { port: number };
    const databaseUrl = `postgres://genmedia@127.0.0.1:${address.port}/genmedia`;
    const port = await freePort();
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      DATABASE_URL: databaseUrl,
      PAYMENT_PROVIDER: 'builtin',
      DATA_DIR: dir,
      METRICS_PORT: String(port),
      HOST: '127.0.0.1',
    });
    const pool = createPool(databaseUrl, 2, () => undefined, { timeouts: config.databaseTimeouts });
    const app = await buildMetricsApp(createDeps(config, pool, undefined));
    await app.listen({ port, host: '127.0.0.1' });
    try {
      const started = Date.now();
      const r = await call({ url: `http://127.0.0.1:${port}` }, 'GET', '/metrics');
      const ms = Date.now() - started;
      assert.equal(r.status, 200, r.text);
      assert.ok(ms < 3000, `answered in ${ms} ms`);
      assert.equal(sample(r.text, 'genmedia_queue_stats_up'), 0);
      assert.deepEqual(seriesOf(r.text, 'genmedia_queue_items'), []);
      assert.ok(sample(r.text, 'process_cpu_user_seconds_total') !== undefined);
      assert.match(r.text, /# TYPE genmedia_items_finished_total counter/);
    } finally {
      await app.close();
      for (const socket of sockets) socket.destroy();
      await pool.end().catch(() => undefined);
    }
  });
});
