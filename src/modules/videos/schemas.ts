import { Type } from 'typebox';
import { VIDEO_ASPECT_RATIOS } from '../../catalog/media-models.ts';
import { AsyncAccepted, Prompt, Url, Webhook } from '../../lib/fields.ts';
import { WorkspaceIdField } from '../workspaces/schemas.ts';

const ModelId = Type.String({ minLength: 1, maxLength: 100, description: 'See GET /api/v1/models/videos' });
const AspectRatio = Type.Enum([...VIDEO_ASPECT_RATIOS]);

export const VideoGenerateBody = Type.Object({
  prompt: Prompt,
  model: Type.Optional(ModelId),
  settings: Type.Optional(
    Type.Object({
      aspect_ratio: Type.Optional(Type.Enum([...VIDEO_ASPECT_RATIOS], { description: "Default '16:9'" })),
      duration: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 15, description: 'Seconds; default 5 (or the model’s default)' }),
      ),
      provider: Type.Optional(Type.String({ description: 'Provider family only; default its first provider' })),
      quality: Type.Optional(
        Type.Enum(['basic', 'high'], { description: "Provider family only: 'basic' 720p, 'high' 1080p (default)" }),
      ),
      remove_watermark: Type.Optional(Type.Boolean({ description: 'Provider family only; default true' })),
    }),
  ),
  first_frame_image: Type.Optional(Url('Image-to-video: the first frame')),
  webhook: Type.Optional(Webhook),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const VideoGenerateResponse = Type.Object({
  ...AsyncAccepted,
  videos: Type.Array(Type.String({ format: 'uri' }), { description: 'Empty while queued; see the status endpoint' }),
  credits_used: Type.Number(),
});

export const LipsyncBody = Type.Object({
  video_url: Url('The video whose mouth movements are synced'),
  audio_url: Url('The speech to sync to'),
  model: Type.Optional(ModelId),
  generation_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'An existing generation of yours this result belongs to' }),
  ),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const AcceptedWithCredits = Type.Object({ ...AsyncAccepted, credits_used: Type.Number() });
export const Accepted = Type.Object(AsyncAccepted);

const Element = Type.Object({
  frontal_image_url: Url('Frontal image of the character or object'),
  reference_image_urls: Type.Optional(Type.Array(Url('Another angle'), { minItems: 1, maxItems: 3 })),
});

export const MotionControlBody = Type.Object({
  video_url: Url('Reference motion video (≤ 30 s for orientation video, ≤ 10 s for image)'),
  image_url: Url('Character image'),
  prompt: Type.Optional(Type.String({ maxLength: 2500, description: 'May reference the element as @Element1' })),
  character_orientation: Type.Optional(Type.Enum(['video', 'image'], { description: "Default 'video'" })),
  element: Type.Optional(Element),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const ReferenceToVideoBody = Type.Object({
  prompt: Prompt,
  model: Type.Optional(ModelId),
  resolution: Type.Optional(Type.String({ description: 'Only for models with a resolution choice' })),
  influencer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Becomes @Element1' })),
  elements: Type.Optional(
    Type.Array(
      Type.Object({
        frontal_image_url: Url('Frontal image'),
        reference_image_urls: Type.Array(Url('Another angle'), { minItems: 1, maxItems: 3 }),
      }),
      { maxItems: 6 },
    ),
  ),
  image_urls: Type.Optional(Type.Array(Url('Style or location image (@ImageN)'), { maxItems: 2 })),
  start_image_url: Type.Optional(Url('First frame')),
  end_image_url: Type.Optional(Url('Last frame')),
  multi_prompt: Type.Optional(
    Type.Array(
      Type.Object({
        prompt: Type.String({ minLength: 1, maxLength: 2500 }),
        duration: Type.String({ pattern: '^[1-9][0-9]?$', description: 'Seconds' }),
      }),
      { minItems: 1, maxItems: 6 },
    ),
  ),
  duration: Type.Optional(Type.String({ pattern: '^[1-9][0-9]?$', description: "Seconds; default '5'" })),
  aspect_ratio: Type.Optional(AspectRatio),
  script: Type.Optional(Type.String({ maxLength: 5000 })),
  voice_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  product_image_urls: Type.Optional(Type.Array(Url('Product image'), { maxItems: 4 })),
  outfit_image_url: Type.Optional(Url('Outfit image')),
  location_image_urls: Type.Optional(Type.Array(Url('Location image'), { maxItems: 4 })),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const TTS_EMOTIONS_LIST = [
  'neutral',
  'excited',
  'happy',
  'calm',
  'sad',
  'angry',
  'enthusiastic',
  'curious',
  'frustrated',
] as const;

export const TalkingHeadBody = Type.Object({
  script: Type.Optional(
    Type.String({ minLength: 1, maxLength: 5000, description: 'Emotion tags like [excited], [calm], [pause:1s]' }),
  ),
  audio_url: Type.Optional(Url("Required when audio_mode is 'upload'")),
  audio_mode: Type.Optional(Type.Enum(['generate', 'upload'], { description: "Default 'generate'" })),
  audio_settings: Type.Optional(
    Type.Object({
      speed: Type.Optional(Type.Number({ minimum: 0.6, maximum: 1.5, description: 'Default 1.0' })),
      volume: Type.Optional(Type.Number({ minimum: 0.5, maximum: 2, description: 'Default 1.0' })),
      emotion: Type.Optional(Type.Enum([...TTS_EMOTIONS_LIST], { description: "Default 'neutral'" })),
      language: Type.Optional(Type.String({ pattern: '^[a-z]{2}$', description: "ISO 639-1; default 'en'" })),
    }),
  ),
  model: Type.Optional(ModelId),
  duration: Type.Optional(Type.String({ pattern: '^[1-9][0-9]?$', description: 'Seconds, model-dependent' })),
  resolution: Type.Optional(Type.String({ description: 'e.g. 720p; model-dependent' })),
  aspect_ratio: Type.Optional(Type.Enum(['9:16', '16:9'], { description: "Default '9:16'" })),
  influencer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  start_image_url: Type.Optional(Url('First frame; not with template_id')),
  template_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  angle_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  static_camera: Type.Optional(Type.Boolean({ description: 'Sheet-based models only; default true' })),
  camera_motion_prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  workspace_id: Type.Optional(WorkspaceIdField),
});

const Effect = (name: string) =>
  Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: `${name}; topaz only, not the default model` }));
export const OUTPUT_FORMATS = ['X264 (.mp4)'] as const;
export const OUTPUT_QUALITIES = ['low', 'medium', 'high', 'maximum'] as const;

export const UpscaleBody = Type.Object({
  video_url: Url('The video to upscale'),
  model: Type.Optional(Type.Enum(['topaz', 'seedvr2'], { description: "Default 'topaz'" })),
  upscale_factor: Type.Optional(Type.Union([Type.Literal(2), Type.Literal(4)], { description: 'Default 2' })),
  output_format: Type.Optional(Type.Enum([...OUTPUT_FORMATS])),
  output_quality: Type.Optional(Type.Enum([...OUTPUT_QUALITIES], { description: "Default 'high'" })),
  topaz_video_model: Type.Optional(Type.String({ description: 'topaz only; default Starlight Precise 2.5' })),
  target_fps: Type.Optional(Type.Integer({ minimum: 16, maximum: 60, description: 'topaz only; doubles the cost' })),
  h264_output: Type.Optional(Type.Boolean({ description: 'topaz only' })),
  compression: Effect('Compression artefact removal'),
  noise: Effect('Noise reduction'),
  halo: Effect('Halo reduction'),
  grain: Effect('Grain'),
  recover_detail: Effect('Detail recovery'),
  softness: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 5,
      description: '1 sharpest to 5 softest; the default enhancement model only',
    }),
  ),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const TARGET_RESOLUTIONS = ['720p', '1080p', '1440p', '2160p'] as const;

export const DeprecatedSeedvrBody = Type.Object({
  video_url: Url('The video to upscale'),
  upscale_mode: Type.Optional(Type.Enum(['factor', 'target'], { description: "Default 'factor'" })),
  upscale_factor: Type.Optional(Type.Number({ minimum: 1, maximum: 4, description: "Default 2; 'factor' mode" })),
  target_resolution: Type.Optional(Type.Enum([...TARGET_RESOLUTIONS], { description: "'target' mode" })),
  output_format: Type.Optional(Type.Enum([...OUTPUT_FORMATS])),
  output_quality: Type.Optional(Type.Enum([...OUTPUT_QUALITIES])),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const DeprecatedTopazBody = Type.Object({
  video_url: Url('The video to upscale'),
  upscale_mode: Type.Optional(Type.Enum(['factor', 'target'], { description: "Default 'factor'" })),
  upscale_factor: Type.Optional(Type.Number({ minimum: 1, maximum: 4, description: "Default 2; 'factor' mode" })),
  target_resolution: Type.Optional(Type.Enum([...TARGET_RESOLUTIONS], { description: "'target' mode" })),
  output_format: Type.Optional(Type.Enum([...OUTPUT_FORMATS])),
  output_quality: Type.Optional(Type.Enum([...OUTPUT_QUALITIES])),
  target_fps: Type.Optional(Type.Integer({ minimum: 16, maximum: 60, description: 'Doubles the cost' })),
  h264_output: Type.Optional(Type.Boolean()),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const LORA_VIDEO_MODEL = 'wan-2.2-lora';

export const LoraVideoBody = Type.Object({
  mode: Type.Enum(['t2v', 'i2v']),
  prompt: Prompt,
  image_url: Type.Optional(Url("Required when mode is 'i2v'")),
  influencer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'For tracking' })),
  loras: Type.Array(
    Type.Object({
      path: Type.String({ format: 'uri', pattern: '^https?://[^?#]+\\.safetensors([?#].*)?$', maxLength: 2048 }),
      scale: Type.Number({ minimum: 0, maximum: 4 }),
      transformer: Type.Enum(['high', 'low'], { description: 'Noise variant; supply both for best results' }),
    }),
    { minItems: 1, maxItems: 8 },
  ),
  settings: Type.Optional(
    Type.Object({
      resolution: Type.Optional(Type.Enum(['480p', '580p', '720p'], { description: "Default '720p'" })),
      aspect_ratio: Type.Optional(Type.Enum(['16:9', '9:16', '1:1'], { description: "Default '16:9'" })),
      num_frames: Type.Optional(Type.Integer({ minimum: 17, maximum: 161, description: 'Default 81' })),
      frames_per_second: Type.Optional(Type.Integer({ minimum: 4, maximum: 60, description: 'Default 16' })),
      num_inference_steps: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Default 27' })),
      guidance_scale: Type.Optional(Type.Number({ minimum: 0, maximum: 20, description: 'Default 3.5' })),
      enable_prompt_expansion: Type.Optional(Type.Boolean({ description: 'Default false' })),
      seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_294_967_295 })),
    }),
  ),
  workspace_id: Type.Optional(WorkspaceIdField),
});

export const LoraVideoResponse = Type.Object({
  generation_id: Type.String(),
  video_url: Type.String({ format: 'uri' }),
  mode: Type.String(),
});
