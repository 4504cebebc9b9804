// How a 3D request becomes the input of Meshy's native API (api.meshy.ai). The text mapping keeps
// `mode` preview|full and `enable_pbr`: the adapter (client.ts) sends a preview task with the rest
// and, for `full`, a refine task with `enable_pbr` once the preview succeeded. The image mapping is
// the body of `POST /openapi/v1/image-to-3d` as it is. The adapter adds `ai_model` (the route's
// endpoint). What Meshy has no field for is refused (invalid_input), never dropped.
// Limits: docs.meshy.ai/en/api/text-to-3d.md and /api/image-to-3d (prompt ≤ 600 characters,
// target_polycount 100–300000, art_style realistic|sculpture, pose_mode ''|a-pose|t-pose).
import { type Mapping, mappingFor, seedOf } from '../mapping.ts';
import { type Model3dRequest, ProviderError } from '../types.ts';

const MAX_PROMPT = 600;
const MIN_POLYCOUNT = 100;
const MAX_POLYCOUNT = 300_000;
const ART_STYLES: ReadonlySet<string> = new Set(['realistic', 'sculpture']);

function refuse(message: string): never {
  throw new ProviderError(`Meshy ${message}`, false, { kind: 'invalid_input' });
}

/** The mesh settings both task kinds take. */
function meshOf(request: Model3dRequest): Record<string, unknown> {
  if (
    !Number.isInteger(request.targetPolycount) ||
    request.targetPolycount < MIN_POLYCOUNT ||
    request.targetPolycount > MAX_POLYCOUNT
  ) {
    refuse(`takes a target_polycount of ${MIN_POLYCOUNT}–${MAX_POLYCOUNT} (asked: ${request.targetPolycount})`);
  }
  // Meshy needs remeshing for topology and polycount to apply (should_remesh false ignores them).
  return {
    topology: request.topology,
    target_polycount: request.targetPolycount,
    should_remesh: true,
    symmetry_mode: request.symmetry,
    // is_a_t_pose is deprecated in favour of pose_mode; '' lets the model choose.
    pose_mode: request.tPose ? 't-pose' : '',
  };
}

function noPromptExpansion(request: Model3dRequest): void {
  // The native API has no prompt expansion (fal's Meshy endpoints do).
  if (request.promptExpansion) refuse('takes no prompt expansion');
}

export const MESHY_MAPPINGS: Record<string, Mapping> = {
  /** `POST /openapi/v2/text-to-3d`: a preview, then a refine for `full`. */
  'text-to-3d': mappingFor('model3d', (request) => {
    if (request.imageUrl !== null) refuse('text-to-3d makes 3D models from text only');
    if (request.prompt.trim() === '') refuse('needs a prompt');
    if (request.prompt.length > MAX_PROMPT) refuse(`takes prompts of at most ${MAX_PROMPT} characters`);
    if (!ART_STYLES.has(request.artStyle)) {
      refuse(`takes the art styles realistic and sculpture (asked: ${request.artStyle})`);
    }
    if (request.pbr && request.mode !== 'full') refuse('makes PBR maps only for a textured (full) model');
    noPromptExpansion(request);
    return {
      mode: request.mode,
      prompt: request.prompt,
      art_style: request.artStyle,
      ...meshOf(request),
      enable_pbr: request.pbr,
      ...seedOf(request),
    };
  }),
  /** `POST /openapi/v1/image-to-3d`: one task, textured for `full`. */
  'image-to-3d': mappingFor('model3d', (request) => {
    if (request.imageUrl === null) refuse('image-to-3d makes 3D models from an image only');
    if (request.artStyle !== 'realistic') refuse(`image-to-3d takes no art style (asked: ${request.artStyle})`);
    if (request.pbr && request.mode !== 'full') refuse('makes PBR maps only for a textured (full) model');
    noPromptExpansion(request);
    // Image to 3D takes no seed; the image is the subject, so the prompt is not sent.
    return {
      image_url: request.imageUrl,
      ...meshOf(request),
      should_texture: request.mode === 'full',
      enable_pbr: request.pbr,
    };
  }),
};
