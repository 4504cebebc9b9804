import type { Operation } from '../../engine/types.ts';

/** The video operations. */
export const videoOperations: Record<string, Operation> = {
  'video.generate': {},
  'video.lipsync': {},
  'video.motion': {},
  'video.reference': {},
  'video.talking_head': {},
  'video.upscale': {},
  'video.lora': {},
};
