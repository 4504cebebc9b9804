// The simulator's image operations: real pictures of the requested size, composed from the
// prompt (and the references, LoRA and camera style when given), deterministic by seed.

import sharp from 'sharp';
import { dimensionsFor } from '../../../catalog/image-sizes.ts';
import { OperationName } from '../../../catalog/operation-names.ts';
import { renderImage } from '../../../render/images.ts';
import { ProviderError } from '../../types.ts';
import { type Simulation, type SimulatorContext, simulateProviderCall, simulationFor } from '../common.ts';

async function fetchAll(ctx: SimulatorContext, urls: string[]): Promise<Buffer[]> {
  return Promise.all(urls.map((url) => ctx.fetchMedia(url)));
}

const generate = simulationFor('image', async (ctx, item, req) => {
  await simulateProviderCall([req.prompt], ctx.simulatorDelayMs, ctx.signal, item.position);
  const references = await fetchAll(ctx, req.references);
  const { width, height } = req.size ?? dimensionsFor(req.aspectRatio);
  return renderImage({
    prompt: req.prompt,
    negativePrompt: req.negativePrompt ?? undefined,
    seed: req.seed,
    width,
    height,
    model: item.model ?? '',
    steps: req.steps,
    references,
    variant:
      [req.lora ? `lora:${req.lora.type}:${req.lora.url}` : '', req.cameraStyle ?? ''].filter(Boolean).join('|') ||
      undefined,
  });
});

const edit = simulationFor('image', async (ctx, item, req) => {
  await simulateProviderCall([req.prompt], ctx.simulatorDelayMs, ctx.signal, item.position);
  const references = await fetchAll(ctx, req.references);
  let size = req.size;
  if (!size) {
    // Models without custom dimensions keep the source's proportions at about one megapixel.
    const meta = await sharp(references[0])
      .metadata()
      .catch(() => undefined);
    if (!meta?.width || !meta.height) throw new ProviderError('image_url is not a decodable image', false);
    const scale = Math.sqrt((1024 * 1024) / (meta.width * meta.height));
    const side = (pixels: number) => Math.min(4096, Math.max(64, Math.round((pixels * scale) / 16) * 16));
    size = { width: side(meta.width), height: side(meta.height) };
  }
  return renderImage({
    prompt: req.prompt,
    seed: req.seed,
    width: size.width,
    height: size.height,
    model: item.model ?? '',
    references,
  });
});

/** A portrait: the request's prompt already names the traits. */
const face = simulationFor('image', async (ctx, item, req) => {
  await simulateProviderCall([req.prompt], ctx.simulatorDelayMs, ctx.signal, item.position);
  const { width, height } = req.size ?? dimensionsFor('1:1');
  return renderImage({
    prompt: req.prompt,
    negativePrompt: req.negativePrompt ?? undefined,
    seed: req.seed,
    width,
    height,
    model: item.model ?? '',
    variant: 'face',
  });
});

/** The simulator's runs of the image operations. */
export const imageSimulations: Record<string, Simulation> = {
  [OperationName.imageGenerate]: generate,
  [OperationName.imageEdit]: edit,
  [OperationName.imageFace]: face,
};
