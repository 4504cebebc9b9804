// Talking heads: a portrait speaking an audio track (VEED's text endpoint speaks the script
// itself). None of these endpoints takes a length or a shape but InfiniTalk (a frame count): the
// video lasts as long as its speech and keeps the portrait's proportions, as an image-to-video
// endpoint without a ratio field keeps its first frame's. A resolution goes to the nearest tier
// the endpoint lists; an endpoint without the field makes its own tier. A prompt goes where the
// endpoint takes one and is refused elsewhere.
import { type Mapping, mappingFor } from '../../mapping.ts';
import type { VendorRequest } from '../../types.ts';
import { nearestResolution, refuse } from './common.ts';

type TalkingHeadRequest = Extract<VendorRequest, { kind: 'talking_head' }>;

/** The speech to animate; the request carries '' when the model was to speak the script itself. */
function speechOf(request: TalkingHeadRequest): string {
  if (!request.audioUrl) refuse('animates an audio track, and none was given');
  return request.audioUrl;
}

function noPrompt(request: TalkingHeadRequest): void {
  if (request.prompt !== null) refuse('takes no prompt');
}

// ⚠ InfiniTalk (on Wan 2.1) makes 25 frames a second, 4k+1 frames at a time, 41-721 (its field's
// range): at most 28.8 s. Unsent, the count is 145 (5.8 s), which would cut longer speech short.
const INFINITALK = { fps: 25, min: 41, max: 721, step: 4 } as const;

export const TALKING_HEAD_MAPPINGS = {
  /** fal-ai/kling-video/ai-avatar/v2/{standard, pro}: the tier is the endpoint's (no resolution field). */
  'kling-avatar': mappingFor('talking_head', (request) => ({
    image_url: request.imageUrl,
    audio_url: speechOf(request),
    ...(request.prompt !== null ? { prompt: request.prompt } : {}),
  })),
  /** fal-ai/bytedance/omnihuman/v1.5: and 720p or 1080p. */
  omnihuman: mappingFor('talking_head', (request) => ({
    image_url: request.imageUrl,
    audio_url: speechOf(request),
    resolution: nearestResolution(request.resolution, ['720p', '1080p']),
    ...(request.prompt !== null ? { prompt: request.prompt } : {}),
  })),
  /** fal-ai/infinitalk: the length as frames, and a prompt it requires. */
  infinitalk: mappingFor('talking_head', (request) => {
    const frames = Math.ceil((INFINITALK.fps * request.durationSeconds) / INFINITALK.step) * INFINITALK.step + 1;
    if (frames < INFINITALK.min || frames > INFINITALK.max) {
      refuse(`makes ${INFINITALK.min}-${INFINITALK.max} frames (at most 28 s at ${INFINITALK.fps} fps)`);
    }
    return {
      image_url: request.imageUrl,
      audio_url: speechOf(request),
      // Without a direction, "." (what fal's Kling avatar endpoints send when given no prompt): the
      // portrait and the speech lead, and nothing is made up.
      prompt: request.prompt ?? '.',
      num_frames: frames,
      resolution: nearestResolution(request.resolution, ['480p', '720p']),
    };
  }),
  /**
   * fal-ai/sadtalker: `full` animates the whole portrait (the default, `crop`, returns the face
   * cut out, square); SadTalker's authors pair it with `still_mode`, which keeps the head steady
   * enough for the face to be pasted back without seams.
   */
  sadtalker: mappingFor('talking_head', (request) => {
    noPrompt(request);
    return {
      source_image_url: request.imageUrl,
      driven_audio_url: speechOf(request),
      preprocess: 'full',
      still_mode: true,
    };
  }),
  /** veed/fabric-1.0: the portrait, the audio and 480p or 720p. */
  'veed-fabric': mappingFor('talking_head', (request) => {
    noPrompt(request);
    return {
      image_url: request.imageUrl,
      audio_url: speechOf(request),
      resolution: nearestResolution(request.resolution, ['480p', '720p']),
    };
  }),
  /** veed/fabric-1.0/text: speaks the script in a voice of its own, so an audio track would be lost. */
  'veed-fabric-text': mappingFor('talking_head', (request) => {
    noPrompt(request);
    if (request.script === null) refuse('speaks a script, and none was given');
    if (request.audioUrl) refuse('speaks the script itself and takes no audio track');
    return {
      image_url: request.imageUrl,
      text: request.script,
      resolution: nearestResolution(request.resolution, ['480p', '720p']),
    };
  }),
} satisfies Record<string, Mapping>;
