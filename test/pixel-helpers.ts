// Pixel comparisons shared by the simulator and media tests. Standalone: no server, no database.
import assert from 'node:assert/strict';
import sharp from 'sharp';

/** A 64x64 RGB thumbnail, the basis of every pixel comparison. */
export async function thumb(image: Buffer): Promise<Buffer> {
  return sharp(image).resize(64, 64, { fit: 'fill' }).removeAlpha().raw().toBuffer();
}

/** Mean absolute difference (0..255) between the thumbnails of two images. */
export async function difference(a: Buffer, b: Buffer): Promise<number> {
  const [ta, tb] = await Promise.all([thumb(a), thumb(b)]);
  assert.equal(ta.length, tb.length);
  let sum = 0;
  for (let i = 0; i < ta.length; i++) sum += Math.abs((ta[i] ?? 0) - (tb[i] ?? 0));
  return sum / ta.length;
}
