import { dimensionsFor } from '../../catalog/image-sizes.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import { INFLUENCER_MODEL_ROUTES } from '../../catalog/routes.ts';
import { operationOf } from '../../engine/operation.ts';
import type { ExecutableItem, ExecutionContext, Operation, VendorWork } from '../../engine/types.ts';
import { EditInput, FaceInput, GenerateInput, seedOf } from './inputs.ts';

/** images/generate for a vendor (influencer images too): the model's routes and the request in our own terms. */
const generateForVendor = (ctx: ExecutionContext, item: ExecutableItem<GenerateInput>): VendorWork => {
  const req = item.request;
  const routes =
    item.model === INFLUENCER_MODEL_ROUTES.id
      ? INFLUENCER_MODEL_ROUTES.routes
      : (ctx.catalog.find('image', item.model ?? '')?.routes ?? []);
  return {
    routes,
    request: {
      kind: 'image',
      prompt: req.prompt,
      negativePrompt: req.negative_prompt,
      size: dimensionsFor(req.aspect_ratio),
      aspectRatio: req.aspect_ratio,
      steps: req.steps,
      seed: seedOf(item),
      references: req.references,
      lora: req.lora,
      cameraStyle: req.camera_style ?? null,
    },
    expects: 'image',
  };
};

/** images/edit for a vendor: the images to edit as references; the size when the model takes one. */
const editForVendor = (ctx: ExecutionContext, item: ExecutableItem<EditInput>): VendorWork => {
  const req = item.request;
  const size = req.size;
  return {
    routes: ctx.catalog.find('edit', item.model ?? '')?.routes ?? [],
    request: {
      kind: 'image',
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
const faceForVendor = (ctx: ExecutionContext, item: ExecutableItem<FaceInput>): VendorWork => {
  const req = item.request;
  return {
    routes: ctx.catalog.find('face', item.model ?? '')?.routes ?? [],
    request: {
      kind: 'image',
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
  [OperationName.imageGenerate]: operationOf(GenerateInput, { vendor: generateForVendor }),
  [OperationName.imageEdit]: operationOf(EditInput, { vendor: editForVendor }),
  [OperationName.imageFace]: operationOf(FaceInput, { vendor: faceForVendor }),
};
