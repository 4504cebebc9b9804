// The normalised requests of the video operations, as their plans store them and as whatever
// serves them (the simulator, and vendors' mappings) reads them.
import { type Static, Type } from 'typebox';
import { SpokenVoice, VoiceProfile } from '../../catalog/voices.ts';
import { TTS_EMOTIONS_LIST } from './schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** video.generate: text- or image-to-video; the provider family adds provider, quality and watermark. */
export const VideoGenerateInput = Type.Object({
  prompt: Type.String(),
  aspect_ratio: Type.String(),
  duration: Type.Number(),
  resolution: Type.String(),
  fps: Type.Integer(),
  first_frame_image: Nullable(Type.String()),
  native_audio: Type.Boolean(),
  family: Nullable(Type.Object({ provider: Type.String(), quality: Type.String(), remove_watermark: Type.Boolean() })),
});
export type VideoGenerateInput = Static<typeof VideoGenerateInput>;

/** video.lipsync: the video and the audio it is synced to (and the generation it continues). */
export const LipsyncInput = Type.Object({
  video_url: Type.String(),
  audio_url: Type.String(),
  attached_to: Nullable(Type.String()),
});
export type LipsyncInput = Static<typeof LipsyncInput>;

/** video.motion: the motion of a reference video transferred onto an image's character. */
export const MotionInput = Type.Object({
  video_url: Type.String(),
  image_url: Type.String(),
  prompt: Nullable(Type.String()),
  orientation: Type.String(),
  element: Nullable(Type.Unknown()),
});
export type MotionInput = Static<typeof MotionInput>;

const Shot = Type.Object({ prompt: Type.String(), start: Type.Number(), duration: Type.Number() });

/** video.reference: shots over reference images (the influencer's face and elements first). */
export const ReferenceInput = Type.Object({
  prompt: Type.String(),
  shots: Type.Array(Shot),
  duration: Type.Number(),
  aspect_ratio: Type.String(),
  resolution: Type.String(),
  influencer_face: Nullable(Type.String()),
  frames: Type.Object({ start: Nullable(Type.String()), end: Nullable(Type.String()) }),
  reference_images: Type.Array(Type.String()),
  script: Nullable(Type.String()),
  voice_id: Nullable(Type.String()),
  voice_profile: Nullable(VoiceProfile),
  native_audio: Type.Boolean(),
  /**
   * What a vendor's mapping writes in the model's own way: the characters (the influencer's face
   * first), the images, and the shots in our `@Element`/`@Image` syntax. Absent on requests
   * accepted before vendors served this operation (the simulator serves those).
   */
  elements: Type.Optional(Type.Array(Type.Object({ frontal: Type.String(), references: Type.Array(Type.String()) }))),
  images: Type.Optional(Type.Array(Type.String())),
  segments: Type.Optional(Type.Array(Type.Object({ prompt: Type.String(), duration: Type.Number() }))),
});
export type ReferenceInput = Static<typeof ReferenceInput>;

/** video.talking_head: a face speaking a script (or uploaded audio). */
export const TalkingHeadInput = Type.Object({
  mode: Type.Enum(['generate', 'upload']),
  script: Nullable(Type.String()),
  audio_url: Nullable(Type.String()),
  audio: Type.Object({
    speed: Type.Number(),
    volume: Type.Number(),
    /** The endpoint's emotions (some named apart from the TTS emotions). */
    emotion: Type.Enum([...TTS_EMOTIONS_LIST]),
    language: Type.String(),
  }),
  voice: Nullable(SpokenVoice),
  duration: Type.Number(),
  resolution: Type.String(),
  aspect_ratio: Type.String(),
  start_image_url: Nullable(Type.String()),
  template: Nullable(Type.Object({ id: Type.String(), angle: Type.String() })),
  sheet_based: Type.Boolean(),
  static_camera: Nullable(Type.Boolean()),
  camera_motion_prompt: Nullable(Type.String()),
});
export type TalkingHeadInput = Static<typeof TalkingHeadInput>;

/** video.upscale: the three upscale endpoints differ in sizing and price only. */
export const UpscaleInput = Type.Object({
  video_url: Type.String(),
  factor: Type.Number(),
  target_fps: Nullable(Type.Number()),
  video_model: Nullable(Type.String()),
  output_quality: Type.String(),
  h264_output: Type.Optional(Nullable(Type.Boolean())),
  effects: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Number(), Type.Undefined()]))),
  deprecated: Type.Optional(Type.Boolean()),
});
export type UpscaleInput = Static<typeof UpscaleInput>;

/** video.lora: the LoRA video model (synchronous). */
export const LoraInput = Type.Object({
  mode: Type.String(),
  prompt: Type.String(),
  image_url: Nullable(Type.String()),
  loras: Type.Array(Type.Object({ path: Type.String(), scale: Type.Number(), transformer: Type.String() })),
  resolution: Type.String(),
  aspect_ratio: Type.String(),
  num_frames: Type.Integer(),
  fps: Type.Integer(),
  steps: Type.Integer(),
  guidance_scale: Type.Number(),
  prompt_expansion: Type.Boolean(),
  seed: Type.Integer(),
  influencer_id: Nullable(Type.String()),
});
export type LoraInput = Static<typeof LoraInput>;
