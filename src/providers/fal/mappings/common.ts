// What fal mappings of several kinds share: the nearest value an endpoint lists, and refusing a
// request an endpoint cannot make.
import { ProviderError } from '../../types.ts';

const ratioOf = (value: string): number => {
  const [w, h] = value.split(':').map(Number);
  return (w ?? 1) / (h ?? 1);
};

/** The ratio of `ratios` closest to `wanted` (by the log of their quotient). */
export function nearestRatio(wanted: string, ratios: readonly string[]): string {
  const target = Math.log(ratioOf(wanted));
  let best = ratios[0] ?? wanted;
  for (const ratio of ratios) {
    if (Math.abs(Math.log(ratioOf(ratio)) - target) < Math.abs(Math.log(ratioOf(best)) - target)) best = ratio;
  }
  return best;
}

/** The option closest to `value`. */
export const nearest = (value: number, options: readonly number[]): number =>
  options.reduce((a, b) => (Math.abs(b - value) < Math.abs(a - value) ? b : a));

/** Refuses a request the endpoint has no field for (invalid input: the item is refunded). */
export function refuse(message: string): never {
  throw new ProviderError(`The fal.ai endpoint serving this model ${message}`, false, { kind: 'invalid_input' });
}

const heightOf = (tier: string): number => (tier.toLowerCase() === '4k' ? 2160 : Number.parseInt(tier, 10));

/** The tier of `tiers` closest in height to `wanted` ('720p' → '768P'). */
export function nearestResolution(wanted: string, tiers: readonly string[]): string {
  const height = heightOf(wanted);
  return tiers.reduce((a, b) => (Math.abs(heightOf(b) - height) < Math.abs(heightOf(a) - height) ? b : a));
}
