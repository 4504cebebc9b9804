import { Type } from 'typebox';
import { readJsonList } from './json-list.ts';

const HardwareData = Type.Object({
  /** Replicate's hardware name (`gpu-a100-large`), as its models and deployments name it. */
  sku: Type.String({ pattern: '^[a-z0-9-]+$' }),
  name: Type.String({ minLength: 1 }),
  /** Replicate's public price per second of predict time, in US dollars (replicate.com/pricing). */
  usd_per_second: Type.Number({ exclusiveMinimum: 0 }),
});

const HARDWARE_FILE = new URL('./replicate-hardware.json', import.meta.url);

/** Replicate's hardware and what a second of predict time on each costs, by sku. */
export const REPLICATE_HARDWARE_USD_PER_SECOND: Readonly<Record<string, number>> = Object.fromEntries(
  readJsonList(HARDWARE_FILE, HardwareData, 'replicate-hardware.json').map((h) => [h.sku, h.usd_per_second]),
);
