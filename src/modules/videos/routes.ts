import type { App } from '../../app-types.ts';
import { acceptedAnswer, acceptedWithCredits } from '../../engine/accepted.ts';
import { defineGenerationEndpoint } from '../../engine/define.ts';
import {
  Accepted,
  AcceptedWithCredits,
  DeprecatedSeedvrBody,
  DeprecatedTopazBody,
  LipsyncBody,
  LORA_VIDEO_MODEL,
  LoraVideoBody,
  LoraVideoResponse,
  MotionControlBody,
  ReferenceToVideoBody,
  TalkingHeadBody,
  UpscaleBody,
  VideoGenerateBody,
  VideoGenerateResponse,
} from './schemas.ts';
import {
  FAMILY_PRICE,
  LORA_VIDEO_CREDITS_PER_SECOND,
  MOTION_CONTROL_CREDITS_PER_SECOND,
  planLipsync,
  planLoraVideo,
  planMotionControl,
  planReferenceToVideo,
  planSeedvrUpscale,
  planTalkingHead,
  planTopazUpscale,
  planUpscale,
  planVideoGenerate,
} from './service.ts';

const tags = ['Videos'];

export default async function videoRoutes(app: App): Promise<void> {
  defineGenerationEndpoint(app, {
    url: '/api/v1/videos/generate',
    tags,
    summary: 'Generate a video (text-to-video, or image-to-video with first_frame_image)',
    description:
      'Asynchronous. Each model states its aspect ratios and durations (GET /api/v1/models/videos); others are a 400 ' +
      'naming the allowed values. The default duration is 5 s, or the model’s own default where 5 s is not offered. ' +
      'settings.provider, quality and remove_watermark apply to the provider family only (ignored otherwise); that ' +
      `family costs ${FAMILY_PRICE.basic} credits/s at 720p (quality basic) and ${FAMILY_PRICE.high} credits/s at 1080p ` +
      '(quality high); other models cost their credits_per_second.',
    body: VideoGenerateBody,
    response: VideoGenerateResponse,
    errors: [403, 404],
    plan: planVideoGenerate,
    respond: (created) => acceptedWithCredits(created, { videos: [] }),
  });

  defineGenerationEndpoint(app, {
    url: '/api/v1/videos/lipsync',
    tags,
    summary: 'Sync a video’s mouth movements to an audio track',
    description:
      'Asynchronous. The video is measured when the request arrives: it costs the model’s credits_per_second for ' +
      'each second of video, up to the model’s max_duration_seconds. `generation_id` links the result to an ' +
      'existing generation of yours (404 when unknown); the lip-synced video is a new generation.',
    body: LipsyncBody,
    response: AcceptedWithCredits,
    errors: [403, 404],
    plan: planLipsync,
    respond: (created) => acceptedWithCredits(created, {}),
  });

  defineGenerationEndpoint(app, {
    url: '/api/v1/videos/motion-control',
    tags,
    summary: 'Transfer the motion of a reference video to a character image',
    description:
      'Asynchronous. The reference video is measured when the request arrives: at most 30 s with ' +
      "character_orientation 'video' (the default) and 10 s with 'image'. `element` (a face element, @Element1 in the " +
      `prompt) requires orientation 'video'. Costs ${MOTION_CONTROL_CREDITS_PER_SECOND} credits per second of reference.`,
    body: MotionControlBody,
    response: Accepted,
    errors: [403, 404],
    plan: planMotionControl,
    respond: acceptedAnswer,
  });

  defineGenerationEndpoint(app, {
    url: '/api/v1/videos/reference-to-video',
    tags,
    summary: 'Video from reference images and text (@ElementN, @ImageN)',
    description:
      'Asynchronous. Elements are numbered from @Element1, or from @Element2 when influencer_id (then @Element1) is ' +
      'given; image_urls are @Image1 and @Image2. References to elements or images the request does not supply are ' +
      'a 400. The first model renders each multi_prompt segment as its own shot; the others concatenate the segments ' +
      'into one timestamped prompt. `resolution` applies only to models with a resolution choice (default their ' +
      'highest). Costs the model’s credits_per_second times the duration (the segments’ sum with multi_prompt).',
    body: ReferenceToVideoBody,
    response: Accepted,
    errors: [403, 404],
    plan: planReferenceToVideo,
    respond: acceptedAnswer,
  });

  defineGenerationEndpoint(app, {
    url: '/api/v1/videos/talking-head',
    tags,
    summary: 'A talking-head video from a start image and a script or an audio track',
    description:
      "Asynchronous. audio_mode 'generate' (default) voices `script` with the influencer's most recently created " +
      "voice (influencer_id required on models that need audio); 'upload' takes audio_url. The start image is " +
      'start_image_url, or a location template (template_id + angle_id, which needs influencer_id), or, on the four ' +
      'sheet-based models (which always need influencer_id), the influencer’s reference sheet. static_camera and ' +
      'camera_motion_prompt apply to sheet-based models only. Costs the model’s credits_per_second times the duration.',
    body: TalkingHeadBody,
    response: Accepted,
    errors: [403, 404],
    plan: planTalkingHead,
    respond: acceptedAnswer,
  });

  defineGenerationEndpoint(app, {
    url: '/api/v1/videos/upscale',
    tags,
    summary: 'Upscale a video',
    description:
      'Asynchronous. The video is measured when the request arrives. Costs the upscaler’s credits per second at the ' +
      'output resolution tier (input height × factor) times the video’s duration; target_fps (topaz only) doubles it. ' +
      'topaz_video_model, target_fps, h264_output and the effect values are topaz-only; the effect values are not ' +
      'used by the default enhancement model, and softness applies to it only.',
    body: UpscaleBody,
    response: Accepted,
    errors: [403, 404],
    plan: planUpscale,
    respond: acceptedAnswer,
  });

  defineGenerationEndpoint(app, {
    url: '/api/v1/videos/upscale/seedvr2',
    tags: [...tags, 'Deprecated'],
    summary: 'Upscale with SeedVR2 (deprecated: use POST /api/v1/videos/upscale with model seedvr2)',
    description: 'Priced per output megapixel: credits_per_output_megapixel × output megapixels × seconds.',
    body: DeprecatedSeedvrBody,
    response: Accepted,
    errors: [403, 404],
    plan: planSeedvrUpscale,
    respond: acceptedAnswer,
  });

  defineGenerationEndpoint(app, {
    url: '/api/v1/videos/upscale/topaz',
    tags: [...tags, 'Deprecated'],
    summary: 'Upscale with Topaz (deprecated: use POST /api/v1/videos/upscale with model topaz)',
    description:
      'Priced per second by output resolution tier; target_fps doubles the cost. upscale_factor is 1-4 here.',
    body: DeprecatedTopazBody,
    response: Accepted,
    errors: [403, 404],
    plan: planTopazUpscale,
    respond: acceptedAnswer,
  });

  defineGenerationEndpoint(app, {
    url: `/api/v1/videos/${LORA_VIDEO_MODEL}`,
    tags,
    summary: 'Wan 2.2 with LoRA weights (synchronous: answers with the video)',
    description:
      "Synchronous. mode 't2v' or 'i2v' (image_url required). Duration = num_frames / frames_per_second. Costs " +
      `${LORA_VIDEO_CREDITS_PER_SECOND['480p']}/${LORA_VIDEO_CREDITS_PER_SECOND['580p']}/${LORA_VIDEO_CREDITS_PER_SECOND['720p']} ` +
      'credits per second at 480p/580p/720p. When the work fails the answer is 500 generation_failed and the credits are refunded.',
    body: LoraVideoBody,
    response: LoraVideoResponse,
    errors: [403, 404],
    sync: true,
    plan: planLoraVideo,
    respond: (created, plan, _body, result) => ({
      generation_id: created.id,
      video_url: result?.items[0]?.url ?? '',
      mode: String(plan.input.mode),
    }),
  });
}
