// Lip sync, motion control and upscaling: one request each, a few fields.
import { type Mapping, mappingFor } from '../../mapping.ts';
import { refuse } from './common.ts';

/** The Topaz enhancement models fal's endpoint lists (`model`). */
export const TOPAZ_MODELS: readonly string[] = [
  'Proteus',
  'Artemis HQ',
  'Artemis MQ',
  'Artemis LQ',
  'Gaia HQ',
  'Gaia CG',
  'Gaia 2',
  'Nyx',
  'Nyx Fast',
  'Nyx XL',
  'Nyx HF',
  'Starlight Precise 2.5',
  'Starlight HQ',
  'Starlight Mini',
  'Starlight Sharp',
  'Starlight Fast 2',
  'Starlight Precise 1',
  'Starlight Precise 2',
  'Starlight Fast 1',
];

export const VIDEO_EDIT_MAPPINGS = {
  /**
   * fal-ai/sync-lipsync/{v2, v2/pro, v3}, fal-ai/latentsync, fal-ai/kling-video/lipsync/audio-to-video:
   * the video and the audio track (each endpoint's own defaults for the rest).
   */
  lipsync: mappingFor('lipsync', (request) => ({ video_url: request.videoUrl, audio_url: request.audioUrl })),
  /** fal-ai/kling-video/v2.6/{pro, standard}/motion-control. */
  'kling-motion': mappingFor('motion', (request) => {
    // Kling 2.6's motion control has no field for a face element (3.0's has).
    if (request.element) refuse('takes no face element');
    return {
      image_url: request.imageUrl,
      video_url: request.videoUrl,
      character_orientation: request.orientation,
      ...(request.prompt ? { prompt: request.prompt } : {}),
    };
  }),
  /** fal-ai/topaz/upscale/video: `H264_output` is spelled with a capital H on the wire. */
  topaz: mappingFor('upscale', (request) => {
    if (request.factor < 1 || request.factor > 8) refuse('upscales 1-8 times');
    if (request.model !== null && !TOPAZ_MODELS.includes(request.model)) refuse(`has no model ${request.model}`);
    if (request.targetFps !== null && !(Number.isInteger(request.targetFps) && request.targetFps <= 120)) {
      refuse('interpolates to a whole frame rate of at most 120');
    }
    // fal's Topaz takes every tuning field but softness.
    if (request.tuning.softness !== undefined) refuse('takes no softness');
    return {
      video_url: request.videoUrl,
      upscale_factor: request.factor,
      H264_output: request.h264,
      ...(request.model !== null ? { model: request.model } : {}),
      ...(request.targetFps !== null ? { target_fps: request.targetFps } : {}),
      ...request.tuning,
    };
  }),
  /** fal-ai/seedvr/upscale/video: by factor, H.264 MP4 out (so `h264` is always met). */
  seedvr: mappingFor('upscale', (request) => {
    if (request.model !== null) refuse('has no enhancement models');
    if (Object.keys(request.tuning).length > 0) refuse('takes no tuning');
    if (request.targetFps !== null) refuse('does not interpolate frames');
    return {
      video_url: request.videoUrl,
      upscale_mode: 'factor',
      upscale_factor: request.factor,
      output_format: 'X264 (.mp4)',
    };
  }),
} satisfies Record<string, Mapping>;
