// Pixel sizes of the image operations: an aspect ratio at about a megapixel, as the API prices
// and validates it and as every provider is asked for it.
import { WorkError } from '../lib/errors.ts';

export const MIN_SIDE = 64;
export const MAX_SIDE = 4096;

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/**
 * Picks pixel dimensions for an aspect ratio string like '16:9' at about `megapixels`
 * (default 1.0 → 1024x1024 for 1:1; one megapixel is 1024 * 1024 pixels), each side a
 * multiple of 16 between 64 and 4096.
 */
export function dimensionsFor(aspectRatio: string, megapixels = 1): { width: number; height: number } {
  const match = /^\s*(\d+(?:\.\d+)?)\s*[:x/]\s*(\d+(?:\.\d+)?)\s*$/.exec(aspectRatio);
  const rw = Number(match?.[1]);
  const rh = Number(match?.[2]);
  if (!match || !(rw > 0) || !(rh > 0)) throw new WorkError(`invalid aspect ratio '${aspectRatio}'`, false);
  if (!(megapixels > 0) || !Number.isFinite(megapixels)) {
    throw new WorkError(`invalid megapixels ${megapixels}`, false);
  }
  const ratio = rw / rh;
  const area = megapixels * 1024 * 1024;
  let w = Math.sqrt(area * ratio);
  let h = Math.sqrt(area / ratio);
  // Keep within the side limits, preserving the ratio where possible.
  const shrink = Math.min(1, MAX_SIDE / w, MAX_SIDE / h);
  w *= shrink;
  h *= shrink;
  const grow = Math.max(1, MIN_SIDE / w, MIN_SIDE / h);
  w *= grow;
  h *= grow;
  const snap = (v: number) => clamp(v, MIN_SIDE, MAX_SIDE);
  // Of the multiples of 16 around the ideal size, take the closest ratio, then the closest area.
  let best = { width: 0, height: 0, score: Number.POSITIVE_INFINITY };
  for (const cw of [Math.floor(w / 16) * 16, Math.ceil(w / 16) * 16]) {
    for (const ch of [Math.floor(h / 16) * 16, Math.ceil(h / 16) * 16]) {
      const width = snap(cw);
      const height = snap(ch);
      const score = Math.abs(Math.log(width / height / ratio)) * 10 + Math.abs(Math.log((width * height) / (w * h)));
      if (score < best.score) best = { width, height, score };
    }
  }
  return { width: best.width, height: best.height };
}
