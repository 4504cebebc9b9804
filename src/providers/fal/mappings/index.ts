// How a provider-neutral request becomes the input of a fal endpoint, one file per kind of work:
// images, videos, video edits (lip sync, motion control, upscaling), 3D, talking heads,
// reference-to-video and speech. A catalog route names its mapping (`"mapping": "flux"`). Every
// mapping is checked against the input schema fal publishes for each endpoint that uses it
// (test/fal-mappings.test.ts, test/fal-media-mappings.test.ts).
import type { Mapping } from '../../mapping.ts';
import { IMAGE_MAPPINGS } from './images.ts';
import { MODEL3D_MAPPINGS } from './models3d.ts';
import { REFERENCE_MAPPINGS } from './reference-video.ts';
import { SPEECH_MAPPINGS } from './speech.ts';
import { TALKING_HEAD_MAPPINGS } from './talking-heads.ts';
import { VIDEO_EDIT_MAPPINGS } from './video-edits.ts';
import { VIDEO_MAPPINGS } from './videos.ts';

/** Input mappings of fal endpoints, by the name a catalog route gives. */
export const FAL_MAPPINGS = {
  ...IMAGE_MAPPINGS,
  ...VIDEO_MAPPINGS,
  ...VIDEO_EDIT_MAPPINGS,
  ...MODEL3D_MAPPINGS,
  ...TALKING_HEAD_MAPPINGS,
  ...REFERENCE_MAPPINGS,
  ...SPEECH_MAPPINGS,
} satisfies Record<string, Mapping>;
