// Every vendor the service can call, in the order the registry sets them up.
import { COMFYUI_VENDOR } from './comfyui/vendor.ts';
import type { VendorDescriptor } from './descriptor.ts';
import { ELEVENLABS_VENDOR } from './elevenlabs/vendor.ts';
import { FAL_VENDOR } from './fal/vendor.ts';
import { MESHY_VENDOR } from './meshy/vendor.ts';
import { OPENAI_COMPATIBLE_VENDOR } from './openai-compatible/vendor.ts';
import { REPLICATE_VENDOR } from './replicate/vendor.ts';
import { SUNO_VENDOR } from './suno/vendor.ts';

export const VENDORS: readonly VendorDescriptor[] = [
  FAL_VENDOR,
  COMFYUI_VENDOR,
  OPENAI_COMPATIBLE_VENDOR,
  ELEVENLABS_VENDOR,
  MESHY_VENDOR,
  SUNO_VENDOR,
  REPLICATE_VENDOR,
];
