/** Output heights of the upscaling tiers. */
export const UPSCALE_TIERS = { '720p': 720, '1080p': 1080, '1440p': 1440, '2160p': 2160 } as const;

/** The pricing tier of an output height: the smallest tier that holds it. */
export function outputTier(height: number): keyof typeof UPSCALE_TIERS {
  for (const [tier, h] of Object.entries(UPSCALE_TIERS)) if (height <= h) return tier as keyof typeof UPSCALE_TIERS;
  return '2160p';
}
