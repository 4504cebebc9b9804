// One side of `npm run bench:stream`, in a process of its own so that its memory is its own:
// copies `url` into a folder, the baseline with a raw fetch + stream.pipeline into a file, ours
// with safeFetchStream + LocalStorage.putStream (what a vendor's result goes through), and prints
// `{"ms": …, "bytes": …, "rss_growth_mb": …}`.
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { safeFetchStream } from '../src/lib/safe-fetch.ts';
import { LocalStorage } from '../src/storage/local.ts';

const [side, url, dir] = process.argv.slice(2);
if ((side !== 'baseline' && side !== 'ours') || !url || !dir) {
  throw new Error('usage: stream-copy.ts baseline|ours <url> <dir>');
}

const before = process.memoryUsage.rss();
let peak = before;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 10);

const started = performance.now();
let bytes: number;
if (side === 'baseline') {
  const response = await fetch(url);
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  const file = createWriteStream(join(dir, 'baseline.mp4'));
  let total = 0;
  const counted = Readable.fromWeb(response.body as ReadableStream<Uint8Array>).on('data', (c: Buffer) => {
    total += c.length;
  });
  await pipeline(counted, file);
  bytes = total;
} else {
  const fetched = await safeFetchStream(url, { allowPrivate: true, timeoutMs: 30 * 60_000, maxBytes: 4 * 1024 ** 3 });
  const storage = new LocalStorage({ root: join(dir, 'media'), publicBaseUrl: 'http://unused' });
  ({ size: bytes } = await storage.putStream('gen_bench/result.mp4', fetched.body, 'video/mp4'));
}
const ms = performance.now() - started;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage.rss());
process.stdout.write(`${JSON.stringify({ ms, bytes, rss_growth_mb: (peak - before) / 1024 / 1024 })}\n`);
