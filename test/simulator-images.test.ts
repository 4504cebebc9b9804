// The simulator's image renderer: real PNGs of the requested size, deterministic in every
// input, visibly tied to the prompt, and derived from reference images when given. Standalone
// (no database): node --test test/simulator-images.test.ts

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { dimensionsFor } from '../src/catalog/image-sizes.ts';
import { WorkError } from '../src/lib/errors.ts';
import { type ImageRenderRequest, renderImage } from '../src/render/images.ts';
import { difference, thumb } from './pixel-helpers.ts';

const BASE: ImageRenderRequest = {
  prompt: 'a lighthouse on a cliff above crashing waves',
  seed: 7,
  width: 512,
  height: 512,
  model: 'flux-dev',
};
/** Mean absolute difference (0..255) above which two renders count as visibly different. */
const VISIBLY_DIFFERENT = 12;

async function render(overrides: Partial<ImageRenderRequest> = {}): Promise<Buffer> {
  return (await renderImage({ ...BASE, ...overrides })).data;
}

async function channelMeans(png: Buffer): Promise<{ r: number; g: number; b: number }> {
  const { channels } = await sharp(png).stats();
  return { r: channels[0]?.mean ?? 0, g: channels[1]?.mean ?? 0, b: channels[2]?.mean ?? 0 };
}

/** Mean luminance of the left and right halves. */
async function halves(png: Buffer): Promise<{ left: number; right: number }> {
  const t = await thumb(png);
  let left = 0;
  let right = 0;
  for (let p = 0; p < 64 * 64; p++) {
    const lum = 0.299 * (t[p * 3] ?? 0) + 0.587 * (t[p * 3 + 1] ?? 0) + 0.114 * (t[p * 3 + 2] ?? 0);
    if (p % 64 < 32) left += lum;
    else right += lum;
  }
  return { left: left / 2048, right: right / 2048 };
}

/** 512x384 reference: left half white, right half black. */
function halfWhiteReference(): Promise<Buffer> {
  return sharp({ create: { width: 512, height: 384, channels: 3, background: '#000000' } })
    .composite([
      { input: { create: { width: 256, height: 384, channels: 3, background: '#ffffff' } }, left: 0, top: 0 },
    ])
    .png()
    .toBuffer();
}

/** 300x300 reference: red and green vertical stripes. */
function stripedReference(): Promise<Buffer> {
  const raw = Buffer.alloc(300 * 300 * 3);
  for (let p = 0; p < 300 * 300; p++) raw[p * 3 + (Math.floor((p % 300) / 30) % 2 === 0 ? 0 : 1)] = 230;
  return sharp(raw, { raw: { width: 300, height: 300, channels: 3 } })
    .jpeg()
    .toBuffer();
}

describe('simulator images', () => {
  test('dimensionsFor picks sizes of the right ratio, in multiples of 16', () => {
    assert.deepEqual(dimensionsFor('1:1'), { width: 1024, height: 1024 });
    assert.deepEqual(dimensionsFor('1:1', 0.25), { width: 512, height: 512 });
    for (const ratio of ['16:9', '9:16', '4:3', '3:4', '21:9', '3:2', '2:3']) {
      const [w, h] = ratio.split(':').map(Number) as [number, number];
      const { width, height } = dimensionsFor(ratio);
      assert.equal(width % 16, 0, `${ratio} width ${width}`);
      assert.equal(height % 16, 0, `${ratio} height ${height}`);
      assert.ok(Math.abs(width / height / (w / h) - 1) < 0.02, `${ratio} → ${width}x${height}`);
      assert.ok(Math.abs((width * height) / 2 ** 20 - 1) < 0.05, `${ratio} area ${width * height}`);
    }
    assert.ok(dimensionsFor('16:9', 4).width <= 4096);
    assert.throws(() => dimensionsFor('wide'), WorkError);
    assert.throws(() => dimensionsFor('0:1'), WorkError);
  });

  test('renders a PNG of exactly the requested size for each aspect ratio', async () => {
    for (const ratio of ['1:1', '16:9', '9:16', '4:3', '21:9']) {
      const { width, height } = dimensionsFor(ratio);
      const file = await renderImage({ ...BASE, width, height });
      assert.equal(file.contentType, 'image/png');
      assert.equal(file.extension, 'png');
      assert.equal(file.width, width);
      assert.equal(file.height, height);
      const meta = await sharp(file.data).metadata();
      assert.equal(meta.format, 'png');
      assert.equal(meta.width, width, ratio);
      assert.equal(meta.height, height, ratio);
    }
  });

  test('rejects sizes outside 64..4096', async () => {
    for (const bad of [{ width: 32 }, { height: 5000 }, { width: 100.5 }]) {
      await assert.rejects(render(bad), (err: unknown) => err instanceof WorkError && !err.retryable);
    }
  });

  test('identical inputs give byte-identical output', async () => {
    const full = { negativePrompt: 'blurry', steps: 30, variant: 'lora:https://example.com/a.safetensors' };
    assert.ok((await render(full)).equals(await render(full)));
    const references = [await halfWhiteReference(), await stripedReference()];
    assert.ok((await render({ references })).equals(await render({ references })));
  });

  test('prompt, seed and model each change the picture visibly', async (t) => {
    const base = await render();
    const cases: Array<[string, Partial<ImageRenderRequest>]> = [
      ['prompt', { prompt: 'a bowl of fruit on a wooden table' }],
      ['seed', { seed: 8 }],
      ['model', { model: 'sdxl' }],
    ];
    for (const [name, change] of cases) {
      const diff = await difference(base, await render(change));
      t.diagnostic(`${name}: mean abs difference ${diff.toFixed(1)}`);
      assert.ok(diff > VISIBLY_DIFFERENT, `${name} difference ${diff.toFixed(1)}`);
    }
  });

  test('steps, negative prompt and variant are part of the result', async (t) => {
    const base = await render();
    const cases: Array<[string, Partial<ImageRenderRequest>]> = [
      ['steps', { steps: 4 }],
      ['negative prompt', { negativePrompt: 'people' }],
      ['variant', { variant: 'style:watercolor' }],
    ];
    for (const [name, change] of cases) {
      const other = await render(change);
      assert.ok(!base.equals(other), name);
      const diff = await difference(base, other);
      t.diagnostic(`${name}: mean abs difference ${diff.toFixed(1)}`);
      assert.ok(diff > 2, `${name} difference ${diff.toFixed(1)}`);
    }
  });

  test('colour words steer the palette', async () => {
    for (const seed of [1, 2, 3]) {
      const red = await channelMeans(await render({ seed, prompt: 'a red apple' }));
      const blue = await channelMeans(await render({ seed, prompt: 'a blue ocean' }));
      assert.ok(red.r > blue.r + 20, `seed ${seed}: red ${red.r.toFixed(0)} vs blue ocean ${blue.r.toFixed(0)}`);
      assert.ok(blue.b > red.b + 20, `seed ${seed}: blue ${blue.b.toFixed(0)} vs red ${red.b.toFixed(0)}`);
    }
  });

  test('a negative colour word takes that colour away', async () => {
    const plain = await channelMeans(await render({ prompt: 'red roses' }));
    const negated = await channelMeans(await render({ prompt: 'red roses', negativePrompt: 'red' }));
    assert.ok(negated.r < plain.r - 20, `red ${plain.r.toFixed(0)} → ${negated.r.toFixed(0)}`);
  });

  test('image-to-image follows the reference', async (t) => {
    const reference = await halfWhiteReference();
    const request = { width: 1024, height: 768, prompt: 'a red sunset' };
    const derived = await render({ ...request, references: [reference] });
    const meta = await sharp(derived).metadata();
    assert.equal(meta.format, 'png');
    assert.equal(meta.width, 1024);
    assert.equal(meta.height, 768);
    const { left, right } = await halves(derived);
    t.diagnostic(`left half ${left.toFixed(0)}, right half ${right.toFixed(0)}`);
    assert.ok(left > right + 60, `left ${left.toFixed(0)} right ${right.toFixed(0)}`);
    const diff = await difference(derived, await render(request));
    assert.ok(diff > VISIBLY_DIFFERENT, `with vs without reference ${diff.toFixed(1)}`);
  });

  test('every reference shows in the result', async (t) => {
    const one = await render({ references: [await halfWhiteReference()] });
    const two = await render({ references: [await halfWhiteReference(), await stripedReference()] });
    const diff = await difference(one, two);
    t.diagnostic(`one vs two references: ${diff.toFixed(1)}`);
    assert.ok(diff > VISIBLY_DIFFERENT, `one vs two references ${diff.toFixed(1)}`);
    // Swapping the content of the second reference changes the picture too.
    const other = await render({ references: [await halfWhiteReference(), await halfWhiteReference()] });
    assert.ok((await difference(two, other)) > 2);
  });

  test('undecodable references fail without retry, naming the reference', async () => {
    const good = await halfWhiteReference();
    const png = await stripedReference();
    const truncated = (await sharp(png).png().toBuffer()).subarray(0, 200);
    const cases: Array<[Buffer[], string]> = [
      [[Buffer.from('not an image')], 'reference image 1 could not be decoded'],
      [[good, Buffer.alloc(0)], 'reference image 2 could not be decoded'],
      [[good, good, truncated], 'reference image 3 could not be decoded'],
    ];
    for (const [references, message] of cases) {
      await assert.rejects(render({ references }), (err: unknown) => {
        assert.ok(err instanceof WorkError, String(err));
        assert.equal(err.retryable, false);
        assert.equal(err.message, message);
        return true;
      });
    }
  });

  test('a 1024x1024 text-to-image render is fast', async (t) => {
    const request = { ...BASE, width: 1024, height: 1024 };
    for (let i = 0; i < 2; i++) await renderImage({ ...request, seed: 100 + i });
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      await renderImage({ ...request, seed: 200 + i });
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const median = times[2] ?? Number.POSITIVE_INFINITY;
    t.diagnostic(`1024x1024 render: median ${median.toFixed(1)} ms (${times.map((ms) => ms.toFixed(0)).join(', ')})`);
    assert.ok(median < 250, `median ${median.toFixed(1)} ms`);
  });
});
