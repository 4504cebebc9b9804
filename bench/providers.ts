// `npm run bench:providers`: the vendor path, against the fake fal queue (test/fakes/fal.ts) on
// 127.0.0.1, with the real service processes on a real embedded PostgreSQL.
//
// (a) Accept → completed of one image served by fal with webhook completion, one at a time
//     (BENCH_SAMPLES, default 100): POST /api/v1/images/generate (flux-1-schnell, 1024x1024) until
//     the generation's live status stream (GET /api/v1/generations/{id}/events, opened once the
//     POST has answered) says completed. The fake's own time (submit received → webhook sent,
//     ~20 ms) is subtracted per sample: what remains is ours (submit, record, webhook
//     verification, the poll of the result, the streamed copy, the completion, telling it).
//     Target: p50 ≤ 10 ms. Baseline in the same run, interleaved: a client calling the fake directly
//     (submit with fal_webhook, wait for the signed webhook) — what fal itself takes.
// (b) BENCH_ITEMS (default 10000) vendor items in flight on one worker process (ROLE=worker,
//     default WORKER_CONCURRENCY), the API in another: the fake holds every job; the worker's RSS
//     with all of them accepted, next to the same worker idle (baseline). Then every webhook is
//     sent (50 at a time): webhook sent → item completed, p50/p99, and the completion rate.
// (c) A 1 GiB result streamed into storage: `npm run bench:stream`, run at the end.
//
// BENCH_QUICK=1: 3 samples in (a), 50 items in (b), no (c): checks that the bench works (bench/lib.ts).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { type FakeFal, startFakeFal } from '../test/fakes/fal.ts';
import {
  createTeamWithKey,
  exited,
  failUnlessTargetMet,
  onCleanup,
  positiveIntEnv,
  prepareEnvironment,
  progress,
  QUICK,
  quantile,
  quick,
  ROOT,
  runBenchmark,
  SERVICE_DEFAULTS,
  type Server,
  sleep,
  startOurServer,
  stopChild,
  waitUntilHealthy,
  watchUntilFinished,
} from './lib.ts';

const MODEL = 'flux-1-schnell';
const ENDPOINT = 'fal-ai/flux/schnell';
const TARGET_OVERHEAD_P50_MS = 10;
const BATCH = 10;
/** How long the worker is left alone before its RSS is read. */
const SETTLE_MS = quick(200, 2000);

interface Stats {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    p50: round(quantile(sorted, 0.5)),
    p90: round(quantile(sorted, 0.9)),
    p99: round(quantile(sorted, 0.99)),
    max: round(sorted[sorted.length - 1] ?? 0),
  };
}

const row = (label: string, s: Stats) =>
  label.padEnd(44) + [s.p50, s.p90, s.p99, s.max].map((v) => v.toFixed(1).padStart(9)).join('');

function rssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

async function waitForOutput(server: Server, text: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!server.output().includes(text)) {
    if (exited(server.child) || Date.now() > deadline)
      throw new Error(`${server.name} did not start:\n${server.output()}`);
    await sleep(50);
  }
}

/** A client of fal itself: submit with a webhook, and wait for it (the baseline of (a)). */
async function directClient(fal: FakeFal) {
  const waiting = new Map<string, () => void>();
  const early = new Set<string>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = (JSON.parse(Buffer.concat(chunks).toString()) as { request_id: string }).request_id;
      res.end('{}');
      const done = waiting.get(id);
      if (done) done();
      else early.add(id);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  onCleanup(() => new Promise((r) => receiver.close(r)));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  return async (prompt: string): Promise<number> => {
    const start = performance.now();
    const res = await fetch(`${fal.url}/${ENDPOINT}?fal_webhook=${encodeURIComponent(hook)}`, {
      method: 'POST',
      headers: { authorization: `Key ${fal.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, image_size: { width: 1024, height: 1024 } }),
    });
    const { request_id: id } = (await res.json()) as { request_id: string };
    if (!early.delete(id)) await new Promise<void>((r) => waiting.set(id, r));
    waiting.delete(id);
    return performance.now() - start;
  };
}

async function measureOurs(server: Server, key: string, fal: FakeFal, prompt: string) {
  const headers = { authorization: `Bearer ${key}` };
  const start = performance.now();
  const res = await fetch(`${server.baseUrl}/api/v1/images/generate`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, model: MODEL, settings: { num_inference_steps: 4 } }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST answered ${res.status}: ${text}`);
  const id = (JSON.parse(text) as { generation_id: string }).generation_id;
  const seen = await watchUntilFinished(server, headers, id, 30_000);
  if (seen.record.status !== 'completed') throw new Error(`generation ${id} failed:\n${server.output()}`);
  const total = seen.at - start;
  const hook = fal.webhooks.find(
    (w) => (JSON.parse(w.body) as { payload: { prompt: string } }).payload.prompt === prompt,
  );
  if (!hook) throw new Error('no webhook for the sample');
  const vendor = hook.sentAt - hook.submittedAt;
  // Where our part goes: before the vendor has the job, and after its webhook.
  const toVendor = hook.submittedAt - start;
  return { total, vendor, overhead: total - vendor, toVendor, afterWebhook: total - (hook.sentAt - start) };
}

await runBenchmark('providers', async () => {
  const samples = positiveIntEnv('BENCH_SAMPLES', quick(3, 100));
  const items = positiveIntEnv('BENCH_ITEMS', quick(50, 10_000));
  const env = await prepareEnvironment();
  const fal = await startFakeFal();
  onCleanup(() => fal.close());
  const falEnv = {
    ...fal.env,
    ALLOW_PRIVATE_URLS: 'true',
    // (b) holds every item in flight at once: the team's cap must not hold them back.
    TEAM_MAX_CONCURRENT_ITEMS: '1000000',
  };

  // (a) ------------------------------------------------------------------------------------------
  const all = await startOurServer(env, { role: 'all', env: falEnv });
  await waitUntilHealthy(all);
  const { key } = await createTeamWithKey(all, env.adminToken, 'bench', 100_000_000);
  const direct = await directClient(fal);
  progress(`(a) ${samples} images through fal one at a time, each next to a direct call of the fake`);
  for (let i = 0; i < quick(1, 5); i++) {
    await measureOurs(all, key, fal, `warm ${i}`);
    await direct(`warm direct ${i}`);
  }
  const ours: Array<Awaited<ReturnType<typeof measureOurs>>> = [];
  const baseline: number[] = [];
  for (let i = 0; i < samples; i++) {
    ours.push(await measureOurs(all, key, fal, `sample ${i}`));
    baseline.push(await direct(`direct ${i}`));
  }
  await stopChild(all);
  const overhead = stats(ours.map((o) => o.overhead));
  const passA = overhead.p50 <= TARGET_OVERHEAD_P50_MS;

  // (b) ------------------------------------------------------------------------------------------
  const api = await startOurServer(env, { name: 'api', role: 'api', env: falEnv });
  await waitUntilHealthy(api);
  const worker = await startOurServer(env, {
    name: 'worker',
    role: 'worker',
    publicBaseUrl: api.baseUrl,
    env: { ...falEnv, LOG_LEVEL: 'info' },
  });
  await waitForOutput(worker, 'worker started');
  await sleep(SETTLE_MS);
  const idleRss = rssMb(worker.child.pid);
  const db = new pg.Pool({ connectionString: env.databaseUrl, max: 2 });
  onCleanup(() => db.end());
  // Items of the generations of (b) in a given state.
  const count = async (states: string[], vendorState?: string) =>
    (
      await db.query<{ n: number }>(
        `select count(*)::int as n from generation_items
         where generation_id = any($1::text[]) and status = any($2::text[])
           and ($3::text is null or vendor_state = $3::text)`,
        [generations, states, vendorState ?? null],
      )
    ).rows[0]?.n ?? 0;

  progress(`(b) ${items} items in flight at fal on one worker`);
  fal.hold(true);
  const posts = Math.ceil(items / BATCH);
  const generations: string[] = [];
  let next = 0;
  const poster = async () => {
    while (next < posts) {
      const i = next++;
      const batch = Math.min(BATCH, items - i * BATCH);
      const res = await fetch(`${api.baseUrl}/api/v1/images/generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: `flight ${i}`, model: MODEL, batch }),
      });
      if (res.status !== 200) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
      generations.push(((await res.json()) as { generation_id: string }).generation_id);
    }
  };
  const submitStart = performance.now();
  await Promise.all(Array.from({ length: 8 }, poster));
  let peakRss = idleRss;
  for (;;) {
    peakRss = Math.max(peakRss, rssMb(worker.child.pid));
    const accepted = await count(['PROCESSING'], 'accepted');
    if (accepted >= items && fal.held() >= items) break;
    if (exited(worker.child)) throw new Error(`the worker exited:\n${worker.output()}`);
    if (performance.now() - submitStart > 600_000) throw new Error(`only ${accepted} accepted`);
    await sleep(500);
  }
  const submitSeconds = (performance.now() - submitStart) / 1000;
  await sleep(SETTLE_MS);
  const inFlightRss = rssMb(worker.child.pid);
  peakRss = Math.max(peakRss, inFlightRss);

  progress(`(b) all ${items} accepted in ${submitSeconds.toFixed(1)} s; sending every webhook`);
  const firstSent = fal.webhooks.length;
  fal.hold(false);
  const releaseStart = performance.now();
  await fal.release();
  for (;;) {
    peakRss = Math.max(peakRss, rssMb(worker.child.pid));
    const done = await count(['COMPLETED', 'FAILED']);
    if (done >= items) break;
    if (exited(worker.child)) throw new Error(`the worker exited:\n${worker.output()}`);
    if (performance.now() - releaseStart > 900_000) throw new Error(`only ${done} finished`);
    await sleep(250);
  }
  const { rows } = await db.query<{ vendor_request_id: string; status: string; finished_ms: number }>(
    `select vendor_request_id, status, extract(epoch from updated_at) * 1000 as finished_ms
     from generation_items where generation_id = any($1::text[])`,
    [generations],
  );
  const sentAt = new Map(fal.webhooks.slice(firstSent).map((w) => [w.requestId, performance.timeOrigin + w.sentAt]));
  const failed = rows.filter((r) => r.status !== 'COMPLETED').length;
  const latencies = rows.map((r) => Number(r.finished_ms) - (sentAt.get(r.vendor_request_id) ?? 0));
  const lastDone = Math.max(...rows.map((r) => Number(r.finished_ms)));
  const drainSeconds = (lastDone - (performance.timeOrigin + releaseStart)) / 1000;
  const webhookToDone = stats(latencies);
  // Nothing is in flight now: what stays is the heap's high-water mark, not per-item state.
  await sleep(SETTLE_MS);
  const drainedRss = rssMb(worker.child.pid);

  const lines = [
    '',
    `(a) accept → completed of one image through fal (${MODEL} → ${ENDPOINT}, webhook completion), ${samples} samples, ms`,
    `${''.padEnd(44)}${['p50', 'p90', 'p99', 'max'].map((h) => h.padStart(9)).join('')}`,
    row('ours: POST → completed', stats(ours.map((o) => o.total))),
    row('  of which the fake (submit → webhook sent)', stats(ours.map((o) => o.vendor))),
    row('  ours minus the fake', overhead),
    row('    POST → the fake has the job', stats(ours.map((o) => o.toVendor))),
    row('    webhook sent → completed', stats(ours.map((o) => o.afterWebhook))),
    row('baseline: the fake called directly', stats(baseline)),
    `target: ours minus the fake p50 ≤ ${TARGET_OVERHEAD_P50_MS} ms: ${overhead.p50.toFixed(1)} ms   ${passA ? 'PASS' : 'FAIL'}`,
    '',
    `(b) ${items} vendor items in flight on one worker (WORKER_CONCURRENCY ${SERVICE_DEFAULTS.workerConcurrency})`,
    `worker RSS idle (baseline) ${idleRss} MB; with ${items} in flight ${inFlightRss} MB; peak ${peakRss} MB ` +
      `(${(((inFlightRss - idleRss) * 1024) / items).toFixed(2)} KB per item in flight); ${drainedRss} MB once all finished`,
    `submitted and accepted in ${submitSeconds.toFixed(1)} s (${(items / submitSeconds).toFixed(0)} items/s)`,
    row('webhook sent → item completed (ms)', webhookToDone),
    `all ${rows.length} finished ${drainSeconds.toFixed(1)} s after the first webhook ` +
      `(${(rows.length / drainSeconds).toFixed(0)} items/s), ${failed} failed`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  process.stdout.write(
    `${JSON.stringify({
      bench: 'providers',
      a: {
        samples,
        ours_ms: stats(ours.map((o) => o.total)),
        overhead_ms: overhead,
        baseline_ms: stats(baseline),
        pass: passA,
      },
      b: {
        items,
        idle_rss_mb: idleRss,
        in_flight_rss_mb: inFlightRss,
        peak_rss_mb: peakRss,
        drained_rss_mb: drainedRss,
        submit_seconds: submitSeconds,
        webhook_to_completed_ms: webhookToDone,
        drain_seconds: drainSeconds,
        failed,
      },
    })}\n`,
  );
  await stopChild(worker);
  await stopChild(api);

  // (c) ------------------------------------------------------------------------------------------
  if (process.env.BENCH_SKIP_STREAM !== '1' && !QUICK) {
    progress('(c) a 1 GiB result streamed into local storage: npm run bench:stream');
    await new Promise<void>((resolveRun, reject) => {
      const child = execFile(
        process.execPath,
        ['bench/stream.ts'],
        { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
        (err) => (err ? reject(err) : resolveRun()),
      );
      child.stdout?.pipe(process.stdout);
      child.stderr?.pipe(process.stderr);
    });
  }
  failUnlessTargetMet(passA);
  if (failed > 0) process.exitCode = 1;
});
