import { Type } from 'typebox';
import { LORA_TYPES } from '../../catalog/models.ts';
import { Prompt, Url } from '../../lib/fields.ts';
import { Timestamp } from '../../lib/schemas.ts';
import { WorkspaceIdField } from '../workspaces/schemas.ts';

export const Influencer = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    face_image: Type.String({ format: 'uri', description: 'The first image supplied at creation (our copy)' }),
    best_full_image: Type.String({ format: 'uri', description: 'The best full-body image found by the analysis' }),
    training_status: Type.Enum(['training', 'completed', 'failed']),
    ready_for_generation: Type.Boolean(),
    created_at: Timestamp,
  },
  { $id: 'Influencer', title: 'Influencer' },
);

const InfluencerId = Type.String({ minLength: 1, maxLength: 64 });

export const CreateInfluencerBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Auto-generated when absent' })),
  image_urls: Type.Array(Url('Reference image; the first is the face image'), { minItems: 1, maxItems: 20 }),
  workspace_id: Type.Optional(WorkspaceIdField),
  age: Type.Optional(Type.Integer({ minimum: 18, maximum: 120, default: 25, description: '18 or more' })),
});

export const CreateInfluencerResponse = Type.Object({
  influencer_id: Type.String(),
  name: Type.String(),
  status: Type.String({ examples: ['training'] }),
  ready_for_generation: Type.Boolean(),
  credits_used: Type.Number(),
});

export const InfluencerGenerateBody = Type.Object({
  influencer_id: InfluencerId,
  prompt: Type.Optional(Type.String({ maxLength: 4000 })),
  outfit_image: Type.Optional(Url('Outfit the influencer wears')),
  location_image: Type.Optional(Url('Background setting')),
  reference_pose_image: Type.Optional(Url('Pose to match')),
  product_image: Type.Optional(Url('Product placed in the scene')),
  camera_style: Type.Optional(Type.Enum(['pro', 'smartphone'], { description: "Default 'pro'" })),
  lora_url: Type.Optional(
    Type.String({ format: 'uri', pattern: '^https?://[^?#]+\\.safetensors([?#].*)?$', maxLength: 2048 }),
  ),
  lora_type: Type.Optional(Type.Enum([...LORA_TYPES])),
  batch: Type.Optional(Type.Integer({ minimum: 1, maximum: 4, description: 'Default 1' })),
  settings: Type.Optional(Type.Object({ aspect_ratio: Type.Optional(Type.String({ description: "Default '1:1'" })) })),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const InfluencerVideoBody = Type.Object({
  influencer_id: InfluencerId,
  prompt: Prompt,
  dialog: Type.Optional(Type.String({ maxLength: 2000, description: 'Script for audio context and motion planning' })),
  product_image: Type.Optional(Url('Product image')),
  outfit_image: Type.Optional(Url('Outfit image')),
  location_image: Type.Optional(Url('Location image')),
  aspect_ratio: Type.Optional(Type.Enum(['16:9', '9:16'], { description: "Default '9:16'" })),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const InfluencerVideoResponse = Type.Object({
  generation_id: Type.String(),
  status: Type.String({ examples: ['queued'] }),
  first_frame_url: Type.String({ format: 'uri' }),
  last_frame_url: Type.String({ format: 'uri' }),
  video_url: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
    description: 'Null while the video is pending; the status endpoint carries the final URL',
  }),
  estimated_time: Type.Number(),
  credits_used: Type.Number(),
  has_voice_conversion: Type.Boolean(),
});
