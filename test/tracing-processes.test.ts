// One trace across two real processes: this process serves the API (no worker) and a separate
// `node src/server.ts` with ROLE=worker runs the jobs, both exporting to one fake OTLP collector on
// 127.0.0.1. The worker's export delay is far beyond the test, so its spans reach the collector
// only through the export a graceful stop makes (SIGTERM).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type FakeCollector, startFakeCollector } from './fakes/otlp.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { waitForGeneration } from './media-helpers.ts';

describe('a trace across an API process and a worker process', () => {
  let collector: FakeCollector;
  let api: TestServer;
  let team: TeamFixture;
  let worker: ChildProcess;
  let workerOutput = '';
  let exited: Promise<number | null>;
  let receiver: Server;
  let receiverUrl: string;
  const delivered: string[] = [];

  before(async () => {
    collector = await startFakeCollector();
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        delivered.push(body);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    api = await startTestServer({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '50' },
      worker: false,
    });
    team = await createTeam(api, 1000);
    worker = spawn(process.execPath, ['src/server.ts'], {
      env: {
        PATH: process.env.PATH ?? '',
        ROLE: 'worker',
        DATABASE_URL: api.databaseUrl,
        ADMIN_TOKEN: api.adminToken,
        DATA_DIR: api.dataDir,
        PUBLIC_BASE_URL: api.url,
        ALLOW_PRIVATE_URLS: 'true',
        SIMULATOR_MODELS: '*',
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = new Promise((resolve) => worker.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        workerOutput += chunk.toString();
        if (workerOutput.includes('worker started')) resolve();
      };
      worker.stdout?.on('data', onData);
      worker.stderr?.on('data', onData);
      exited.then((code) => reject(new Error(`the worker exited (${code}):\n${workerOutput}`)));
    });
  });
  after(async () => {
    if (worker.exitCode === null) worker.kill('SIGKILL');
    await exited;
    await api.close();
    receiver.close();
    await collector.close();
  });

  test("the worker process continues the API's trace, and its spans are exported when it stops", async () => {
    const traceId = randomBytes(16).toString('hex');
    const created = await call<{ generation_id: string }>(api, 'POST', '/api/v1/images/generate', {
      token: team.key,
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      body: { prompt: 'a fox in two processes', webhook: receiverUrl },
    });
    assert.equal(created.status, 200, created.text);
    const id = created.body.generation_id;
    assert.equal((await waitForGeneration(api, team.key, id, 30_000)).status, 'completed');
    // The delivery is recorded after its POST: once it is, the worker has no span left open.
    for (;;) {
      const { rows } = await api.pool.query<{ state: string }>(
        'select state from webhook_deliveries where generation_id = $1',
        [id],
      );
      if (rows[0]?.state === 'delivered') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(delivered.some((b) => b.includes(id)));
    const fromWorker = () =>
      collector.spans.filter((s) => s.traceId === traceId && s.resource['genmedia.role'] === 'worker');
    assert.equal(fromWorker().length, 0, 'nothing exported by the worker before it stops');

    worker.kill('SIGTERM');
    assert.equal(await exited, 0, workerOutput);
    await collector.waitFor(() => fromWorker().some((s) => s.name === 'webhook POST'));

    const spans = collector.spans.filter((s) => s.traceId === traceId);
    const accept = spans.find((s) => s.name === 'accept generation');
    assert.ok(accept, 'the API exported its spans');
    assert.equal(accept.resource['genmedia.role'], 'api');
    const job = fromWorker().find((s) => s.name === 'process generation_item');
    assert.ok(job, `the worker ran the item in the trace: ${fromWorker().map((s) => s.name)}`);
    assert.equal(job.parentSpanId, accept.spanId);
    assert.notEqual(job.resource['process.pid'], accept.resource['process.pid'], 'two processes');
    assert.equal(job.resource['service.name'], 'genmedia');
    const vendor = fromWorker().find((s) => s.attributes['gen_ai.provider.name'] === 'simulator');
    assert.equal(vendor?.attributes['gen_ai.operation.name'], 'generate_content');
    assert.ok(fromWorker().some((s) => s.name === 'storage copy'));
  });
});
