// Images. fal's image endpoints of one family share field conventions (a Shape); each mapping
// below names the family its endpoints follow.
import { type Mapping, mappingFor } from '../../mapping.ts';
import { ProviderError } from '../../types.ts';
import { nearest, nearestRatio } from './common.ts';

/** The field conventions of one family of fal endpoints. */
interface Shape {
  /** The field the prompt goes in. */
  prompt?: 'prompt' | 'instruction';
  /**
   * How the picture's shape is given: `image_size` as `{width, height}`; `aspect_ratio` from the
   * endpoint's own list (the nearest one); or not at all (the endpoint decides, e.g. from the image).
   */
  size: 'image_size' | 'aspect_ratio' | 'none';
  /** The aspect ratios the endpoint accepts, for `size: 'aspect_ratio'`. */
  ratios?: readonly string[];
  /** `num_inference_steps`: any number, or only these (sent as strings). */
  steps?: true | readonly number[];
  /** The field for steps when it is not `num_inference_steps`. */
  stepsField?: string;
  seed?: boolean;
  negative?: boolean;
  numImages?: boolean;
  /** `enable_safety_checker: true`. */
  safety?: boolean;
  /** The field that asks for PNG output. */
  format?: 'output_format' | 'format';
  /** `loras: [{path, scale}]`. */
  loras?: boolean;
  /** Where the images to start from go (image-to-image, edits, references). */
  image?: 'image_url' | 'image_urls' | 'input_image_urls';
}

function shaped(shape: Shape): Mapping {
  return mappingFor('image', (request) => {
    // What the endpoint cannot take is refused, not dropped: the user would get another picture.
    if (request.lora && !shape.loras) {
      throw new ProviderError('The fal.ai endpoint serving this model takes no LoRA', false, { kind: 'invalid_input' });
    }
    if (request.references.length > 0 && !shape.image) {
      throw new ProviderError('The fal.ai endpoint serving this model takes no input images', false, {
        kind: 'invalid_input',
      });
    }
    const input: Record<string, unknown> = { [shape.prompt ?? 'prompt']: request.prompt };
    if (shape.size === 'image_size' && request.size) input.image_size = request.size;
    if (shape.size === 'aspect_ratio') input.aspect_ratio = nearestRatio(request.aspectRatio, shape.ratios ?? ['1:1']);
    if (shape.steps === true) input[shape.stepsField ?? 'num_inference_steps'] = request.steps;
    else if (shape.steps) input.num_inference_steps = String(nearest(request.steps, shape.steps));
    if (shape.seed) input.seed = request.seed;
    if (shape.negative && request.negativePrompt) input.negative_prompt = request.negativePrompt;
    if (shape.numImages) input.num_images = 1;
    if (shape.safety) input.enable_safety_checker = true;
    if (shape.format) input[shape.format] = 'png';
    if (shape.loras && request.lora) input.loras = [{ path: request.lora.url, scale: 1 }];
    if (shape.image === 'image_url' && request.references[0]) input.image_url = request.references[0];
    if (shape.image && shape.image !== 'image_url' && request.references.length > 0) {
      input[shape.image] = request.references;
    }
    return input;
  });
}

const KONTEXT_RATIOS = ['21:9', '16:9', '4:3', '3:2', '1:1', '2:3', '3:4', '9:16', '9:21'] as const;

// The families. `flux`: FLUX [dev]/[schnell]/krea and fal's other diffusion endpoints that take
// image_size, steps, seed and output_format; `sd`: fal's Stable Diffusion runners (`format`,
// negative prompts, LoRAs).
const FLUX: Shape = {
  size: 'image_size',
  steps: true,
  seed: true,
  numImages: true,
  safety: true,
  format: 'output_format',
};
const SD: Shape = {
  size: 'image_size',
  steps: true,
  seed: true,
  negative: true,
  numImages: true,
  safety: true,
  format: 'format',
};

/** Input mappings of fal's image endpoints, by the name a catalog route gives. */
export const IMAGE_MAPPINGS = {
  /** fal-ai/flux/schnell, fal-ai/flux-1/schnell, rundiffusion-fal/juggernaut-flux/pro. */
  flux: shaped(FLUX),
  /** fal-ai/flux-lora, fal-ai/flux-krea-lora, rundiffusion-fal/rundiffusion-photo-flux. */
  'flux-lora': shaped({ ...FLUX, loras: true }),
  /** fal-ai/flux-lora/image-to-image. */
  'flux-lora-i2i': shaped({ ...FLUX, loras: true, image: 'image_url' }),
  /** fal-ai/flux-pro/v1.1: image_size, seed, output_format; no steps. */
  'flux-pro': shaped({ size: 'image_size', seed: true, numImages: true, format: 'output_format' }),
  /** fal-ai/flux-pro/v1.1-ultra: an aspect ratio, and an optional image prompt. */
  'flux-ultra': shaped({
    size: 'aspect_ratio',
    ratios: KONTEXT_RATIOS,
    seed: true,
    numImages: true,
    format: 'output_format',
    image: 'image_url',
  }),
  /** fal-ai/flux-pro/kontext[/max][/text-to-image]: an aspect ratio, and the image to edit. */
  kontext: shaped({
    size: 'aspect_ratio',
    ratios: KONTEXT_RATIOS,
    seed: true,
    numImages: true,
    format: 'output_format',
    image: 'image_url',
  }),
  /** fal-ai/flux-pro/kontext/multi: several images composed (influencer images: the face first). */
  'kontext-multi': shaped({
    size: 'aspect_ratio',
    ratios: KONTEXT_RATIOS,
    seed: true,
    numImages: true,
    format: 'output_format',
    image: 'image_urls',
  }),
  /** fal-ai/flux-kontext/dev: the image to edit, steps and seed; the size follows the image. */
  'kontext-dev': shaped({
    size: 'none',
    steps: true,
    seed: true,
    numImages: true,
    safety: true,
    format: 'output_format',
    image: 'image_url',
  }),
  /** fal-ai/fast-sdxl, fal-ai/stable-diffusion-v15, fal-ai/dreamshaper, fal-ai/realistic-vision. */
  sd: shaped({ ...SD, loras: true }),
  /** fal-ai/playground-v25: as `sd` without LoRAs. */
  'sd-base': shaped(SD),
  /** fal-ai/fast-lightning-sdxl: 1, 2, 4 or 8 steps, no negative prompt. */
  'sdxl-lightning': shaped({ ...SD, negative: false, steps: [1, 2, 4, 8] }),
  /** fal-ai/stable-diffusion-v35-large (LoRAs), fal-ai/hidream-i1-full (LoRAs), fal-ai/qwen-image (LoRAs). */
  'diffusion-lora': shaped({ ...FLUX, negative: true, loras: true }),
  /** fal-ai/stable-diffusion-v35-medium, fal-ai/kolors, fal-ai/hunyuan-image/v2.1, fal-ai/hidream-i1-dev/fast. */
  diffusion: shaped({ ...FLUX, negative: true }),
  /** fal-ai/wan/v2.2-a14b/text-to-image: one image per request, no output format. */
  wan: shaped({ size: 'image_size', steps: true, seed: true, negative: true, safety: true }),
  /** fal-ai/aura-flow: square only, steps and seed. */
  'aura-flow': shaped({ size: 'none', steps: true, seed: true, numImages: true }),
  /** fal-ai/nano-banana. */
  'nano-banana': shaped({
    size: 'aspect_ratio',
    ratios: ['21:9', '16:9', '3:2', '4:3', '5:4', '1:1', '4:5', '3:4', '2:3', '9:16'],
    seed: true,
    numImages: true,
    format: 'output_format',
  }),
  /** fal-ai/nano-banana/edit: the images to edit. */
  'nano-banana-edit': shaped({
    size: 'aspect_ratio',
    ratios: ['21:9', '16:9', '3:2', '4:3', '5:4', '1:1', '4:5', '3:4', '2:3', '9:16'],
    seed: true,
    numImages: true,
    format: 'output_format',
    image: 'image_urls',
  }),
  /** fal-ai/ideogram/v3: image_size, negative prompt, style reference images. */
  ideogram: shaped({ size: 'image_size', seed: true, negative: true, numImages: true, image: 'image_urls' }),
  /** fal-ai/ideogram/v3/remix: the image to remix. */
  'ideogram-remix': shaped({ size: 'image_size', seed: true, negative: true, numImages: true, image: 'image_url' }),
  /** fal-ai/ideogram/v2a/turbo: its own aspect ratios. */
  'ideogram-v2': shaped({
    size: 'aspect_ratio',
    ratios: ['10:16', '16:10', '9:16', '16:9', '4:3', '3:4', '1:1', '1:3', '3:1', '3:2', '2:3'],
    seed: true,
  }),
  /** fal-ai/recraft/v3/text-to-image. */
  recraft: shaped({ size: 'image_size', safety: true }),
  /** fal-ai/recraft/v3/image-to-image. */
  'recraft-i2i': shaped({ size: 'none', negative: true, image: 'image_url' }),
  /** fal-ai/luma-photon[/flash]: an aspect ratio only. */
  luma: shaped({ size: 'aspect_ratio', ratios: ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9', '9:21'] }),
  /** fal-ai/minimax/image-01. */
  minimax: shaped({
    size: 'aspect_ratio',
    ratios: ['1:1', '16:9', '4:3', '3:2', '2:3', '3:4', '9:16', '21:9'],
    numImages: true,
  }),
  /** fal-ai/bytedance/seedream/v4/text-to-image. */
  seedream: shaped({ size: 'image_size', seed: true, numImages: true, safety: true }),
  /** fal-ai/bytedance/seedream/v4/edit: the images to edit. */
  'seedream-edit': shaped({ size: 'image_size', seed: true, numImages: true, safety: true, image: 'image_urls' }),
  /** fal-ai/qwen-image-edit: the image to edit. */
  'qwen-edit': shaped({ ...FLUX, negative: true, image: 'image_url' }),
  /** fal-ai/qwen-image-edit-plus: the images to edit. */
  'qwen-edit-plus': shaped({ ...FLUX, negative: true, image: 'image_urls' }),
  /** fal-ai/omnigen-v2: reference images as input_image_urls. */
  omnigen: shaped({ ...FLUX, negative: true, image: 'input_image_urls' }),
  /** fal-ai/bagel/edit: the image to edit and a seed. */
  bagel: shaped({ size: 'none', seed: true, safety: true, image: 'image_url' }),
  /** bria/fibo-edit/edit: the instruction, the image, steps as steps_num. */
  'fibo-edit': shaped({
    prompt: 'instruction',
    size: 'none',
    steps: true,
    stepsField: 'steps_num',
    seed: true,
    negative: true,
    image: 'image_url',
  }),
} satisfies Record<string, Mapping>;
