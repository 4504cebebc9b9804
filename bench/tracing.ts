// Benchmark: what tracing costs on the status poll (`npm run bench:tracing`).
//
// What is measured: requests/s and latency of GET /api/v1/generations/{id}/status of a completed
// 4-image generation, as in bench/status.ts, on three servers side by side on one embedded
// PostgreSQL: the raw node:http + pg baseline of bench/status.ts, the service with tracing off
// (no OTEL_EXPORTER_OTLP_ENDPOINT: the default) and the service with tracing on, exporting every
// request's server span over OTLP/HTTP to a collector in this process that reads and drops them
// (so the export path is real; a real collector's own cost is not counted). Tracing off is
// expected within noise of the service as bench/status.ts measures it (ratio to the baseline ≈
// that bench's); on costs one span per request and its export.
//
// Sides rotate (baseline, off, on, …), each measured run after its own warm-up; each side's best
// run counts. Environment: BENCH_DURATION (seconds per measured run, default 10).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  best,
  createTeamWithKey,
  durationSeconds,
  exited,
  load,
  onCleanup,
  prepareEnvironment,
  progress,
  type RunFigures,
  runBenchmark,
  type Server,
  sleep,
  startBaseline,
  startOurServer,
  stopChild,
  waitUntilHealthy,
} from './lib.ts';

const CONNECTIONS = 50;
const WARMUP_SECONDS = 2;
const ROUNDS = 2;
const BATCH = 4;
const SIDES = ['baseline', 'tracing off', 'tracing on'] as const;
type TracingSide = (typeof SIDES)[number];

/** A collector that takes OTLP/HTTP exports, counts their spans, and drops them. */
async function startSink(): Promise<{ url: string; spans: () => number }> {
  let spans = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      spans += body.split('"spanId"').length - 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onCleanup(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans: () => spans };
}

async function get(server: Server, path: string, key: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, text: await res.text() };
}

async function main(): Promise<void> {
  const seconds = durationSeconds();
  const env = await prepareEnvironment();
  const sink = await startSink();
  const servers: Record<TracingSide, Server> = {
    baseline: await startBaseline(env, 'bench/baseline-status-server.ts'),
    'tracing off': await startOurServer(env, { name: 'off', role: 'api' }),
    'tracing on': await startOurServer(env, {
      name: 'on',
      role: 'api',
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'genmedia-bench' },
    }),
  };
  await Promise.all(Object.values(servers).map(waitUntilHealthy));
  const ours = servers['tracing off'];
  const { key } = await createTeamWithKey(ours, env.adminToken, 'bench', 10_000);

  progress(`creating a generation of ${BATCH} images and running it with a worker-only process…`);
  const worker = await startOurServer(env, { name: 'worker', role: 'worker', publicBaseUrl: ours.baseUrl });
  const created = await fetch(`${ours.baseUrl}/api/v1/images/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'bench tracing: a lighthouse at dusk', batch: BATCH }),
  });
  if (created.status !== 200) throw new Error(`generate answered ${created.status}: ${await created.text()}`);
  const id = ((await created.json()) as { generation_id: string }).generation_id;
  const path = `/api/v1/generations/${id}/status`;
  for (const deadline = Date.now() + 60_000; ; await sleep(50)) {
    if (exited(worker.child)) throw new Error(`the worker exited:\n${worker.output()}`);
    const status = JSON.parse((await get(ours, path, key)).text) as { status: string };
    if (status.status === 'completed') break;
    if (status.status === 'failed' || Date.now() > deadline) throw new Error(`generation ${id}: ${status.status}`);
  }
  await stopChild(worker);
  // Both of ours answer the same body. The baseline's record lags the service's (it lacks fields
  // added since it was written): it is only checked to be this generation's, and is held to its own.
  const bodies = {} as Record<TracingSide, string>;
  for (const side of SIDES) {
    const answer = await get(servers[side], path, key);
    if (answer.status !== 200 || !answer.text.includes(id))
      throw new Error(`${side} answered ${answer.status}: ${answer.text}`);
    bodies[side] = answer.text;
  }
  if (bodies['tracing on'] !== bodies['tracing off']) throw new Error('the traced server answers another body');
  const spansBefore = sink.spans();

  const runs: Record<TracingSide, RunFigures[]> = { baseline: [], 'tracing off': [], 'tracing on': [] };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const side of SIDES) {
      const options = {
        path,
        connections: CONNECTIONS,
        headers: { authorization: `Bearer ${key}` },
        expectBody: bodies[side],
      };
      await load(servers[side], { ...options, seconds: WARMUP_SECONDS }, `round ${round} warm-up`);
      const figures = await load(servers[side], { ...options, seconds }, `round ${round}`);
      runs[side].push(figures);
      progress(
        `round ${round}/${ROUNDS} ${side.padEnd(12)} ${figures.requestsPerSecond.toFixed(1).padStart(9)} req/s  ` +
          `p50 ${figures.latencyP50Ms} ms  p99 ${figures.latencyP99Ms} ms  (${figures.requests} requests)`,
      );
    }
  }
  // The spans of the last runs reach the sink within the export delay (5 s by default).
  await sleep(6000);
  const exported = sink.spans() - spansBefore;

  const row = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(14) : i === cells.length - 1 ? `    ${c}` : c.padStart(12))).join('');
  const figures = Object.fromEntries(SIDES.map((s) => [s, best(runs[s])])) as Record<TracingSide, RunFigures>;
  const rps = (side: TracingSide) => figures[side].requestsPerSecond;
  const lines = [
    '',
    `GET /api/v1/generations/{id}/status, tracing off and on: ${CONNECTIONS} connections, ${ROUNDS} × ${seconds} s per side, best run`,
    row(['', 'requests/s', 'p50 ms', 'p99 ms', 'avg ms', 'all runs']),
    ...SIDES.map((side) =>
      row([
        side,
        rps(side).toFixed(1),
        String(figures[side].latencyP50Ms),
        String(figures[side].latencyP99Ms),
        figures[side].latencyAvgMs.toFixed(2),
        runs[side].map((r) => r.requestsPerSecond.toFixed(0)).join(' / '),
      ]),
    ),
    '',
    `off / baseline: ${(rps('tracing off') / rps('baseline')).toFixed(3)}x   on / baseline: ${(rps('tracing on') / rps('baseline')).toFixed(3)}x   on / off: ${(rps('tracing on') / rps('tracing off')).toFixed(3)}x`,
    `spans exported by the traced server during the runs: ${exported}`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  const summary = {
    bench: 'tracing',
    endpoint: 'GET /api/v1/generations/{id}/status',
    connections: CONNECTIONS,
    duration_s: seconds,
    rounds: ROUNDS,
    ...Object.fromEntries(SIDES.map((s) => [s.replace(' ', '_'), Math.round(rps(s) * 10) / 10])),
    off_vs_baseline: Math.round((rps('tracing off') / rps('baseline')) * 1000) / 1000,
    on_vs_off: Math.round((rps('tracing on') / rps('tracing off')) * 1000) / 1000,
    spans_exported: exported,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

await runBenchmark('tracing', main);
