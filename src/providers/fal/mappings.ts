// How a provider-neutral request becomes the input of a fal endpoint, one function per input
// shape; a catalog route names the one its endpoint takes (`"mapping": "flux"`).
import type { ImageRequest } from '../types.ts';

/** Input mappings of fal endpoints, by the name a catalog route gives. */
export const FAL_MAPPINGS = {
  /**
   * The FLUX [dev]/[schnell] family (fal-ai/flux/schnell, fal-ai/flux-lora, fal-ai/flux-krea-lora):
   * `image_size` as `{width, height}`, `num_inference_steps`, `seed`, `num_images`, `loras[]`
   * (`{path, scale}`), and `image_url` for image-to-image.
   */
  flux: (request: ImageRequest): Record<string, unknown> => ({
    prompt: request.prompt,
    image_size: { width: request.width, height: request.height },
    num_inference_steps: request.steps,
    seed: request.seed,
    num_images: 1,
    enable_safety_checker: true,
    output_format: 'png',
    ...(request.lora ? { loras: [{ path: request.lora.url, scale: 1 }] } : {}),
    ...(request.references[0] ? { image_url: request.references[0] } : {}),
  }),
} satisfies Record<string, (request: ImageRequest) => Record<string, unknown>>;
