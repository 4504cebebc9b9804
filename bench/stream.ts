// `npm run bench:stream`: a large vendor result (BENCH_STREAM_MIB, default 1024 MiB) copied into
// local storage through the outbound policy's streaming fetch and Storage.putStream, next to a
// raw fetch + stream.pipeline into a file of the same bytes in the same run. Each copy runs in a
// fresh process; the figures are its time and its peak RSS growth. Targets: RSS growth ≤ 64 MB,
// throughput ≥ 0.8x the raw copy. BENCH_QUICK=1: 16 MiB, one round (checks that the bench works;
// see bench/lib.ts).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  failUnlessTargetMet,
  onCleanup,
  positiveIntEnv,
  progress,
  quick,
  ROOT,
  runBenchmark,
  SIDES,
  type Side,
} from './lib.ts';

interface Copy {
  ms: number;
  bytes: number;
  rss_growth_mb: number;
}

const MIB = 1024 * 1024;
const RSS_TARGET_MB = 64;
const THROUGHPUT_TARGET = 0.8;

await runBenchmark('stream', async () => {
  const mib = positiveIntEnv('BENCH_STREAM_MIB', quick(16, 1024));
  const rounds = positiveIntEnv('BENCH_ROUNDS', quick(1, 2));
  const chunk = randomBytes(MIB);
  // The vendor: serves `mib` MiB generated on the fly (nothing of it on disk or in memory at once).
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(mib * MIB) });
    let sent = 0;
    const pump = () => {
      while (sent < mib) {
        sent += 1;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onCleanup(() => new Promise((r) => server.close(r)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/result.mp4`;

  const copy = async (side: Side): Promise<Copy> => {
    const dir = await mkdtemp(join(tmpdir(), `genmedia-bench-stream-${side}-`));
    try {
      const out = await new Promise<string>((resolveCopy, reject) => {
        execFile(process.execPath, [join(ROOT, 'bench/stream-copy.ts'), side, url, dir], (err, stdout, stderr) =>
          err ? reject(new Error(`${side} copy failed: ${stderr || err.message}`)) : resolveCopy(stdout),
        );
      });
      const figures = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Copy;
      if (figures.bytes !== mib * MIB) throw new Error(`${side} copied ${figures.bytes} bytes, not ${mib * MIB}`);
      return figures;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  const runs: Record<Side, Copy[]> = { baseline: [], ours: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const side of round % 2 === 1 ? SIDES : [...SIDES].reverse()) {
      progress(`round ${round}: ${side} copies ${mib} MiB`);
      runs[side].push(await copy(side));
    }
  }
  const best = (side: Side) => runs[side].reduce((a, b) => (b.ms < a.ms ? b : a));
  const rate = (c: Copy) => c.bytes / MIB / (c.ms / 1000);
  const baseline = best('baseline');
  const ours = best('ours');
  const ratio = rate(ours) / rate(baseline);
  const rss = Math.max(...runs.ours.map((c) => c.rss_growth_mb));
  const pass = ratio >= THROUGHPUT_TARGET && rss <= RSS_TARGET_MB;
  const row = (name: string, c: Copy, all: Copy[]) =>
    `${name.padEnd(10)}${rate(c).toFixed(0).padStart(10)}${c.rss_growth_mb.toFixed(1).padStart(22)}    ${all
      .map((x) => rate(x).toFixed(0))
      .join(' / ')}`;
  process.stdout.write(
    [
      '',
      `a ${mib} MiB result copied into local storage, ${rounds} round(s) per side, best run`,
      `${''.padEnd(10)}${'MiB/s'.padStart(10)}${'peak RSS growth MB'.padStart(22)}    all runs (MiB/s)`,
      row('baseline', baseline, runs.baseline),
      row('ours', ours, runs.ours),
      '',
      `ours / baseline: ${ratio.toFixed(3)}x   target ≥ ${THROUGHPUT_TARGET}x; our largest RSS growth ${rss.toFixed(1)} MB, target ≤ ${RSS_TARGET_MB} MB   ${pass ? 'PASS' : 'FAIL'}`,
      '',
    ].join('\n'),
  );
  process.stdout.write(
    `${JSON.stringify({ bench: 'stream', mib, rounds, ratio: Math.round(ratio * 1000) / 1000, rss_growth_mb: Math.round(rss * 10) / 10, baseline_mib_s: Math.round(rate(baseline)), ours_mib_s: Math.round(rate(ours)), pass })}\n`,
  );
  failUnlessTargetMet(pass);
});
