import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { DEFAULT_LORA_TYPE } from '../../catalog/models.ts';
import { acceptedWithCredits } from '../../engine/accepted.ts';
import { defineGenerationEndpoint } from '../../engine/define.ts';
import { invalidField } from '../../lib/errors.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { AcceptedWithCredits } from '../videos/schemas.ts';
import { INFLUENCER_IMAGE_CREDITS } from './image-plan.ts';
import {
  CreateInfluencerBody,
  CreateInfluencerResponse,
  Influencer,
  InfluencerGenerateBody,
  InfluencerVideoBody,
  InfluencerVideoResponse,
} from './schemas.ts';
import {
  INFLUENCER_CREATION_CREDITS,
  INFLUENCER_VIDEO_CREDITS_PER_SECOND,
  INFLUENCER_VIDEO_FRAME_CREDITS,
  planInfluencerCreate,
  planInfluencerGenerate,
  planInfluencerVideo,
  toInfluencer,
} from './service.ts';
import { insertInfluencer, selectInfluencersOfTeam } from './sql.ts';

const tags = ['Influencers'];

export default async function influencerRoutes(app: App): Promise<void> {
  app.get(
    '/api/v1/influencers',
    {
      schema: {
        tags,
        summary: "List the team's influencers",
        response: { 200: Type.Array(Influencer), ...errorResponses(401) },
      },
    },
    async (request) => (await selectInfluencersOfTeam(app.deps.pool, request.principal.teamId)).map(toInfluencer),
  );

  defineGenerationEndpoint(app, {
    url: '/api/v1/influencers/create',
    tags,
    summary: 'Create (train) an influencer from 1-20 images',
    description:
      `Costs ${INFLUENCER_CREATION_CREDITS} credits. Every image is fetched and decoded (a URL that is not a ` +
      'decodable image is a 400 naming it) and analysed: orientation, size, the subject’s extent in the frame, ' +
      'framing (full body, half body, close-up), pose, brightness, dominant colour and sharpness. The first image ' +
      'becomes face_image; best_full_image is the image with the highest score: full-body framing first, then the ' +
      'subject’s height in the frame, a portrait frame, resolution and sharpness (the earliest wins a tie). The ' +
      'influencer starts in training; a training job makes it ready (status completed). Names are unique within a ' +
      'team; one is generated when absent.',
    body: CreateInfluencerBody,
    response: CreateInfluencerResponse,
    errors: [403, 404],
    plan: planInfluencerCreate,
    async onCreated(db, created, plan, owner) {
      const i = plan.input as {
        influencer_id: string;
        name: string;
        age: number;
        image_urls: string[];
        face_image: string;
        best_full_image: string;
        analysis: unknown;
      };
      const inserted = await insertInfluencer(db, {
        id: i.influencer_id,
        teamId: owner.teamId,
        workspaceId: owner.workspaceId,
        name: i.name,
        age: i.age,
        imageUrls: i.image_urls,
        faceImage: i.face_image,
        bestFullImage: i.best_full_image,
        analysis: i.analysis,
        generationId: created.id,
      });
      // A concurrent request took the name: nothing of this one is kept.
      if (!inserted) throw invalidField('name', `an influencer named '${i.name}' already exists in your team`);
    },
    respond: (created, plan) => ({
      influencer_id: String(plan.input.influencer_id),
      name: String(plan.input.name),
      status: 'training',
      ready_for_generation: false,
      credits_used: created.creditsCharged,
    }),
  });

  defineGenerationEndpoint(app, {
    url: '/api/v1/influencers/generate',
    tags,
    summary: 'Generate images of a trained influencer',
    description:
      'Asynchronous. The influencer must exist (404) and be ready (400 influencer_not_ready). The result composes ' +
      'the influencer’s face with the outfit, location, pose and product images given. With lora_url the LoRA flow ' +
      `is used (lora_type default ${DEFAULT_LORA_TYPE}). Costs ${INFLUENCER_IMAGE_CREDITS.standard} credits per image ` +
      `(${INFLUENCER_IMAGE_CREDITS.lora} with LoRA); batch 1-4.`,
    body: InfluencerGenerateBody,
    response: Type.Object({ ...AcceptedWithCredits.properties, images: Type.Array(Type.String({ format: 'uri' })) }),
    errors: [403, 404],
    plan: planInfluencerGenerate,
    respond: (created) => acceptedWithCredits(created, { images: [] }),
  });

  defineGenerationEndpoint(app, {
    url: '/api/v1/influencers/video',
    tags,
    summary: 'Generate a video of a trained influencer',
    description:
      'Plans the shot from the concept (and dialog): an opening and a closing frame, rendered before the answer ' +
      '(first_frame_url, last_frame_url), then the video with audio (video_url is null while it is pending; the ' +
      'status endpoint carries the final URL). The length follows the dialog (about 2.5 words a second, 4-15 s; 8 s ' +
      'without dialog). When the influencer has a voice, the audio is converted to its most recent voice ' +
      `(has_voice_conversion true). Costs ${INFLUENCER_VIDEO_CREDITS_PER_SECOND} credits per second, of which ` +
      `${INFLUENCER_VIDEO_FRAME_CREDITS} for each frame: the frames are delivered with the answer and stay charged ` +
      'whatever becomes of the video (a cancel or a failure of the video refunds the rest).',
    body: InfluencerVideoBody,
    response: InfluencerVideoResponse,
    errors: [403, 404],
    runInRequest: [0, 1],
    plan: planInfluencerVideo,
    respond: (created, plan) => ({
      ...acceptedWithCredits(created, {
        first_frame_url: created.resultUrl(0, 'png'),
        last_frame_url: created.resultUrl(1, 'png'),
        video_url: null,
      }),
      has_voice_conversion: plan.input.voice !== null,
    }),
  });
}
