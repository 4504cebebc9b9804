// 3D. A setting an endpoint has no field for is met only by its default here (what the endpoint
// does on its own: the API's defaults are those of Meshy, whose settings these are); another
// value is refused. Exceptions, as the request always carries them: the seed (sent where taken),
// and the prompt of an image-to-3D endpoint that takes none (the image is the subject; our API
// asks for a prompt even then). A preview (geometry only) from an endpoint that always textures
// gets the textured model: more than asked, never less.
import { type Mapping, mappingFor, seedOf } from '../../mapping.ts';
import type { VendorRequest } from '../../types.ts';
import { refuse } from './common.ts';

type Model3dRequest = Extract<VendorRequest, { kind: 'model3d' }>;

/** The API's defaults, which an endpoint without the setting's field makes on its own. */
const MODEL3D_DEFAULTS = {
  artStyle: 'realistic',
  topology: 'triangle',
  targetPolycount: 30_000,
  symmetry: 'auto',
  tPose: false,
  pbr: false,
  promptExpansion: false,
} as const satisfies Partial<Model3dRequest>;

type Model3dSetting = keyof typeof MODEL3D_DEFAULTS;

/** Refuses the settings outside `taken` that ask for something other than the default. */
function onlyDefaults(request: Model3dRequest, taken: readonly Model3dSetting[]): void {
  for (const [setting, value] of Object.entries(MODEL3D_DEFAULTS) as Array<[Model3dSetting, unknown]>) {
    if (!taken.includes(setting) && request[setting] !== value) {
      refuse(`takes no ${setting} (asked: ${String(request[setting])})`);
    }
  }
}

function needsImage(request: Model3dRequest): string {
  if (request.imageUrl === null) refuse('makes 3D models from an image only');
  return request.imageUrl;
}

const MESHY_MESH: readonly Model3dSetting[] = ['topology', 'targetPolycount', 'symmetry', 'tPose', 'pbr'];

/** Meshy's mesh settings, shared by its text- and image-to-3D endpoints. */
const meshyMesh = (request: Model3dRequest) => ({
  topology: request.topology,
  target_polycount: request.targetPolycount,
  symmetry_mode: request.symmetry,
  // Meshy replaced is_a_t_pose with pose_mode; '' lets the model choose.
  pose_mode: request.tPose ? 't-pose' : '',
  enable_pbr: request.pbr,
});

export const MODEL3D_MAPPINGS = {
  /** fal-ai/meshy/v6-preview/text-to-3d (and v6): Meshy 6 has no art styles. */
  meshy: mappingFor('model3d', (request) => {
    if (request.imageUrl !== null) refuse('makes 3D models from text only');
    if (request.prompt.length > 600) refuse('takes prompts of at most 600 characters');
    onlyDefaults(request, [...MESHY_MESH, 'promptExpansion']);
    return {
      prompt: request.prompt,
      mode: request.mode,
      ...meshyMesh(request),
      enable_prompt_expansion: request.promptExpansion,
      ...seedOf(request),
    };
  }),
  /** fal-ai/meshy/v6-preview/image-to-3d (and v6): textures only for `full`. */
  'meshy-image': mappingFor('model3d', (request) => {
    const image = needsImage(request);
    onlyDefaults(request, MESHY_MESH);
    return { image_url: image, should_texture: request.mode === 'full', ...meshyMesh(request) };
  }),
  /** tripo3d/tripo/v2.5/image-to-3d: texture no|standard, PBR, quads, a face limit. */
  'tripo-image': mappingFor('model3d', (request) => {
    const image = needsImage(request);
    onlyDefaults(request, ['topology', 'targetPolycount', 'pbr']);
    return {
      image_url: image,
      texture: request.mode === 'full' ? 'standard' : 'no',
      pbr: request.pbr,
      quad: request.topology === 'quad',
      face_limit: request.targetPolycount,
      ...seedOf(request),
    };
  }),
  /** fal-ai/hyper3d/rodin: text or images, PBR or shaded materials, a T/A pose. */
  rodin: mappingFor('model3d', (request) => {
    onlyDefaults(request, ['pbr', 'tPose']);
    return {
      prompt: request.prompt,
      ...(request.imageUrl !== null ? { input_image_urls: [request.imageUrl] } : {}),
      material: request.pbr ? 'PBR' : 'Shaded',
      TAPose: request.tPose,
      geometry_file_format: 'glb',
      ...seedOf(request),
    };
  }),
  /** fal-ai/trellis: the image and a seed. */
  trellis: mappingFor('model3d', (request) => {
    const image = needsImage(request);
    onlyDefaults(request, []);
    return { image_url: image, ...seedOf(request) };
  }),
  /** fal-ai/triposr: the image; a GLB. */
  triposr: mappingFor('model3d', (request) => {
    const image = needsImage(request);
    onlyDefaults(request, []);
    return { image_url: image, output_format: 'glb' };
  }),
} satisfies Record<string, Mapping>;
