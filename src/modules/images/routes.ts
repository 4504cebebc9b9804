import type { App } from '../../app-types.ts';
import { DEFAULT_LORA_TYPE } from '../../catalog/models.ts';
import { acceptedWithCredits } from '../../engine/accepted.ts';
import { defineGenerationEndpoint } from '../../engine/define.ts';
import { INFLUENCER_IMAGE_CREDITS } from '../influencers/image-plan.ts';
import {
  FaceGenerateBody,
  FaceGenerateResponse,
  ImageEditBody,
  ImageEditResponse,
  ImageGenerateBody,
  ImageGenerateResponse,
} from './schemas.ts';
import { planFaceGenerate, planImageEdit, planImageGenerate } from './service.ts';

const tags = ['Images'];

export default async function imageRoutes(app: App): Promise<void> {
  defineGenerationEndpoint(app, {
    url: '/api/v1/images/generate',
    tags,
    summary: 'Generate images (text-to-image, or image-to-image with images / init_image)',
    description:
      'Asynchronous: answers with a generation_id in status queued; poll GET /api/v1/generations/{id}/status. ' +
      'With `images` (or the legacy `init_image`, used only when `images` is absent) the model works image-to-image. ' +
      'With `influencer_id` the in-house influencer model renders that influencer (which must be ready) whatever ' +
      `\`model\` says, at ${INFLUENCER_IMAGE_CREDITS.standard} credits per image. ` +
      '`lora_url` is accepted only by models with supports_lora; `lora_type` defaults to ' +
      `${DEFAULT_LORA_TYPE}. Costs the model's credits_per_image times batch.`,
    body: ImageGenerateBody,
    response: ImageGenerateResponse,
    errors: [403, 404],
    plan: planImageGenerate,
    respond: (created) => acceptedWithCredits(created, { images: [] }),
  });

  defineGenerationEndpoint(app, {
    url: '/api/v1/images/generate-face',
    tags,
    summary: 'Generate face images, each by a different model',
    description:
      'Asynchronous. `batch` (1-10, default 4) images, each from a different face model; the same `seed` gives ' +
      'the same faces. Costs the sum of the chosen models’ credits_per_image.',
    body: FaceGenerateBody,
    response: FaceGenerateResponse,
    errors: [403, 404],
    plan: planFaceGenerate,
    respond: (created) => acceptedWithCredits(created, { batch: created.itemIds.length }),
  });

  defineGenerationEndpoint(app, {
    url: '/api/v1/images/edit',
    tags,
    summary: 'Edit an image from a text prompt',
    description:
      'Asynchronous. `width` and `height` go together; they are honoured only by models with custom dimensions ' +
      'and ignored by the others (the result then keeps the source image’s proportions).',
    body: ImageEditBody,
    response: ImageEditResponse,
    errors: [403, 404],
    plan: planImageEdit,
    respond: (created) => acceptedWithCredits(created, { image_id: created.itemIds[0] ?? '' }),
  });
}
