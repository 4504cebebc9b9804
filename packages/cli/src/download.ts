// --out: a generation's results downloaded into a folder, each named after the generation and its
// place, with the extension of its URL (our media URLs end in theirs).
import { mkdir } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import type { GenMedia } from '@genmedia/sdk';

/** Downloads every result URL into `dir`; answers the paths written. */
export async function downloadAll(
  gm: GenMedia,
  generation: { generation_id: string; result_urls: string[] },
  dir: string,
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const [index, url] of generation.result_urls.entries()) {
    const extension = extname(new URL(url).pathname) || '.bin';
    const suffix = generation.result_urls.length > 1 ? `-${index + 1}` : '';
    const path = resolve(join(dir, `${generation.generation_id}${suffix}${extension}`));
    await gm.download(url, path);
    files.push(path);
  }
  return files;
}
