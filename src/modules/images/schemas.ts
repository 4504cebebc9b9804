import { Type } from 'typebox';
import { LORA_TYPES } from '../../catalog/models.ts';
import { WorkspaceIdField } from '../workspaces/schemas.ts';

const Url = (description: string) =>
  Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description });
const Prompt = Type.String({ minLength: 1, maxLength: 4000 });
const NegativePrompt = Type.String({ maxLength: 2000 });
const Webhook = Url('Receives a signed POST when the generation completes or fails');

export const ImageGenerateBody = Type.Object({
  prompt: Prompt,
  negative_prompt: Type.Optional(NegativePrompt),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'See GET /api/v1/models/images' })),
  influencer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  lora_url: Type.Optional(
    Type.String({
      format: 'uri',
      pattern: '^https?://[^?#]+\\.safetensors([?#].*)?$',
      maxLength: 2048,
      description: 'URL of a .safetensors LoRA; only for models with supports_lora',
    }),
  ),
  lora_type: Type.Optional(
    Type.Enum([...LORA_TYPES], { description: `Default ${LORA_TYPES[3]} when lora_url is given` }),
  ),
  batch: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 1 })),
  settings: Type.Optional(
    Type.Object({
      aspect_ratio: Type.Optional(Type.String({ default: '1:1', description: "One of the model's aspect_ratios" })),
      num_inference_steps: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 200, description: "Default 28 (or the model's maximum when lower)" }),
      ),
    }),
  ),
  images: Type.Optional(Type.Array(Url('Reference image'), { minItems: 1, maxItems: 16 })),
  init_image: Type.Optional(Url('Legacy single reference image; prefer images')),
  webhook: Type.Optional(Webhook),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const ImageGenerateResponse = Type.Object({
  generation_id: Type.String(),
  status: Type.String({ examples: ['queued'] }),
  images: Type.Array(Type.String({ format: 'uri' }), { description: 'Empty while queued; see the status endpoint' }),
  estimated_time: Type.Number({ description: 'Seconds' }),
  credits_used: Type.Number(),
});

export const FaceGenerateBody = Type.Object({
  prompt: Prompt,
  negative_prompt: Type.Optional(NegativePrompt),
  batch: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 10, default: 4, description: 'Each image by a different model' }),
  ),
  gender: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  ethnicity: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  hair_color: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_294_967_295, description: 'Same seed, same faces' })),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const FaceGenerateResponse = Type.Object({
  generation_id: Type.String(),
  status: Type.String({ examples: ['queued'] }),
  batch: Type.Integer(),
  estimated_time: Type.Number(),
  credits_used: Type.Number(),
});

export const ImageEditBody = Type.Object({
  image_url: Url('The image to edit'),
  prompt: Prompt,
  additional_images: Type.Optional(Type.Array(Url('Extra reference image'), { maxItems: 9 })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  width: Type.Optional(
    Type.Integer({
      minimum: 64,
      maximum: 8192,
      description: 'With height; honoured only by models with custom dimensions',
    }),
  ),
  height: Type.Optional(Type.Integer({ minimum: 64, maximum: 8192, description: 'With width' })),
  webhook: Type.Optional(Webhook),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const ImageEditResponse = Type.Object({
  generation_id: Type.String(),
  status: Type.String({ examples: ['queued'] }),
  image_id: Type.String({ description: 'Id of the edited image item in the status record' }),
  estimated_time: Type.Number(),
  credits_used: Type.Number(),
});
