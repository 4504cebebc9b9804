import sharp from 'sharp';
import { INFLUENCER_MODEL_ROUTES } from '../../catalog/routes.ts';
import type { ExecutableItem, ExecutionContext, Executor, Operation, VendorWork } from '../../engine/types.ts';
import { simulateProviderCall } from '../../providers/simulator/common.ts';
import { dimensionsFor, renderImage } from '../../providers/simulator/images.ts';
import { ProviderError } from '../../providers/types.ts';

interface GenerateInput {
  prompt: string;
  negative_prompt: string | null;
  aspect_ratio: string;
  steps: number;
  references: string[];
  lora: { url: string; type: string } | null;
  /** Influencer images: 'pro' or 'smartphone'. */
  camera_style?: string;
}

interface EditInput {
  prompt: string;
  references: string[];
  size: { width: number; height: number } | null;
}

interface FaceInput {
  prompt: string;
  negative_prompt: string | null;
  traits: string[];
}

const seedOf = (item: ExecutableItem) => Number(item.input.seed ?? 0);

async function fetchAll(ctx: ExecutionContext, urls: string[]): Promise<Buffer[]> {
  return Promise.all(urls.map((url) => ctx.fetchMedia(url)));
}

const generate: Executor = async (ctx, item) => {
  const req = item.request as unknown as GenerateInput;
  await simulateProviderCall([req.prompt], ctx.simulatorDelayMs, ctx.signal, item.position);
  const references = await fetchAll(ctx, req.references);
  const { width, height } = dimensionsFor(req.aspect_ratio);
  return renderImage({
    prompt: req.prompt,
    negativePrompt: req.negative_prompt ?? undefined,
    seed: seedOf(item),
    width,
    height,
    model: item.model ?? '',
    steps: req.steps,
    references,
    variant:
      [req.lora ? `lora:${req.lora.type}:${req.lora.url}` : '', req.camera_style ?? ''].filter(Boolean).join('|') ||
      undefined,
  });
};

const edit: Executor = async (ctx, item) => {
  const req = item.request as unknown as EditInput;
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
    seed: seedOf(item),
    width: size.width,
    height: size.height,
    model: item.model ?? '',
    references,
  });
};

const face: Executor = async (ctx, item) => {
  const req = item.request as unknown as FaceInput;
  await simulateProviderCall([req.prompt], ctx.simulatorDelayMs, ctx.signal, item.position);
  const { width, height } = dimensionsFor('1:1');
  return renderImage({
    prompt: [req.prompt, ...req.traits].join(', '),
    negativePrompt: req.negative_prompt ?? undefined,
    seed: seedOf(item),
    width,
    height,
    model: item.model ?? '',
    variant: 'face',
  });
};

/** images/generate for a vendor (influencer images too): the model's routes and the request in our own terms. */
const generateForVendor = (ctx: ExecutionContext, item: ExecutableItem): VendorWork => {
  const req = item.request as unknown as GenerateInput;
  const routes =
    item.model === INFLUENCER_MODEL_ROUTES.id
      ? INFLUENCER_MODEL_ROUTES.routes
      : (ctx.catalog.find('image', item.model ?? '')?.routes ?? []);
  return {
    routes,
    request: {
      prompt: req.prompt,
      negativePrompt: req.negative_prompt,
      size: dimensionsFor(req.aspect_ratio),
      aspectRatio: req.aspect_ratio,
      steps: req.steps,
      seed: seedOf(item),
      references: req.references,
      lora: req.lora,
    },
    expects: 'image',
  };
};

/** images/edit for a vendor: the images to edit as references; the size when the model takes one. */
const editForVendor = (ctx: ExecutionContext, item: ExecutableItem): VendorWork => {
  const req = item.request as unknown as EditInput;
  const size = req.size;
  return {
    routes: ctx.catalog.find('edit', item.model ?? '')?.routes ?? [],
    request: {
      prompt: req.prompt,
      negativePrompt: null,
      size,
      aspectRatio: size ? `${size.width}:${size.height}` : '1:1',
      steps: 28,
      seed: seedOf(item),
      references: req.references,
      lora: null,
    },
    expects: 'image',
  };
};

/** images/generate-face for a vendor: a square portrait, the traits in the prompt. */
const faceForVendor = (ctx: ExecutionContext, item: ExecutableItem): VendorWork => {
  const req = item.request as unknown as FaceInput;
  return {
    routes: ctx.catalog.find('face', item.model ?? '')?.routes ?? [],
    request: {
      prompt: [req.prompt, ...req.traits].join(', '),
      negativePrompt: req.negative_prompt,
      size: dimensionsFor('1:1'),
      aspectRatio: '1:1',
      steps: 28,
      seed: seedOf(item),
      references: [],
      lora: null,
    },
    expects: 'image',
  };
};

/** The image operations. */
export const imageOperations: Record<string, Operation> = {
  'image.generate': { execute: generate, vendor: generateForVendor },
  'image.edit': { execute: edit, vendor: editForVendor },
  'image.face': { execute: face, vendor: faceForVendor },
};
