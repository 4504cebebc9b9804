import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { DEFAULT_LORA_TYPE } from '../../catalog/models.ts';
import { defineGenerationEndpoint } from '../../engine/define.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { createMediaFetcher } from '../../engine/urls.ts';
import { invalidField } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { AcceptedWithCredits } from '../videos/schemas.ts';
import { selectLatestVoiceOfInfluencer } from '../voices/sql.ts';
import { analyseImage, bestFullBody, generateName, type ImageAnalysis } from './analysis.ts';
import { INFLUENCER_IMAGE_CREDITS, INFLUENCER_MODEL, planInfluencerImages } from './image-plan.ts';
import {
  CreateInfluencerBody,
  CreateInfluencerResponse,
  Influencer,
  InfluencerGenerateBody,
  InfluencerVideoBody,
  InfluencerVideoResponse,
} from './schemas.ts';
import { requireReadyInfluencer } from './service.ts';
import { type InfluencerRow, insertInfluencer, selectInfluencerNames, selectInfluencersOfTeam } from './sql.ts';

export const INFLUENCER_CREATION_CREDITS = 250;
/** Influencer videos: credits per second. */
export const INFLUENCER_VIDEO_CREDITS_PER_SECOND = 30;

const tags = ['Influencers'];

export function toInfluencer(row: InfluencerRow) {
  return {
    id: row.id,
    name: row.name,
    face_image: row.face_image,
    best_full_image: row.best_full_image,
    training_status: row.training_status,
    ready_for_generation: row.training_status === 'completed',
    created_at: row.created_at.toISOString(),
  };
}

/** Seconds of an influencer video: the dialog's length at a speaking pace, else 8 s; 4-15 s. */
export function influencerVideoSeconds(dialog: string | undefined): number {
  const words = (dialog ?? '').split(/\s+/).filter(Boolean).length;
  return words === 0 ? 8 : Math.min(15, Math.max(4, Math.ceil(1 + words / 2.5)));
}

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
    async plan(deps, body, teamId): Promise<GenerationPlan> {
      const taken = await selectInfluencerNames(deps.pool, teamId);
      if (body.name && taken.has(body.name.toLowerCase())) {
        throw invalidField('name', `an influencer named '${body.name}' already exists in your team`);
      }
      const fetchMedia = createMediaFetcher(deps.storage, deps.config.allowPrivateUrls);
      const images = await Promise.all(
        body.image_urls.map(async (url, index) => {
          let data: Buffer;
          try {
            data = await fetchMedia(url);
          } catch (err) {
            throw invalidField(
              `image_urls[${index}]`,
              `could not be fetched (${err instanceof Error ? err.message : 'error'})`,
            );
          }
          try {
            return { data, analysis: await analyseImage(index, data) };
          } catch {
            throw invalidField(`image_urls[${index}]`, 'is not a decodable image');
          }
        }),
      );
      const analyses: ImageAnalysis[] = images.map((i) => i.analysis);
      const best = bestFullBody(analyses);
      const id = newId('inf');
      // Our own copies, normalised to PNG: the results never point at the user's URLs.
      const copy = async (data: Buffer, label: string) => {
        const key = `influencers/${id}/${label}-${randomBytes(12).toString('hex')}.png`;
        await deps.storage.put(key, await sharp(data).rotate().png().toBuffer(), 'image/png');
        return deps.storage.publicUrl(key);
      };
      const faceImage = await copy(images[0]?.data as Buffer, 'face');
      const bestFullImage = best.index === 0 ? faceImage : await copy(images[best.index]?.data as Buffer, 'full');
      const name = body.name ?? generateName(taken, randomBytes(4).readUInt32BE());
      return {
        operation: 'influencer.train',
        model: INFLUENCER_MODEL,
        input: {
          influencer_id: id,
          name,
          age: body.age ?? 25,
          image_urls: body.image_urls,
          face_image: faceImage,
          best_full_image: bestFullImage,
          analysis: { images: analyses, best_full_body_index: best.index },
        },
        items: [{ type: 'image', price: INFLUENCER_CREATION_CREDITS }],
        estimatedSeconds: 60,
        urls: body.image_urls.map((url, i) => ({ field: `image_urls[${i}]`, url })),
      };
    },
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
    async plan(deps, body, teamId): Promise<GenerationPlan> {
      const influencer = await requireReadyInfluencer(deps.pool, teamId, body.influencer_id);
      const refs = (['outfit_image', 'location_image', 'reference_pose_image', 'product_image'] as const).filter(
        (f) => body[f] !== undefined,
      );
      const camera = body.camera_style ?? 'pro';
      return planInfluencerImages(influencer, {
        prompt:
          body.prompt ??
          `${influencer.name}, ${camera === 'smartphone' ? 'smartphone snapshot' : 'professional photo'}`,
        aspectRatio: body.settings?.aspect_ratio,
        references: refs.map((f) => ({ field: f, url: body[f] as string })),
        loraUrl: body.lora_url,
        loraType: body.lora_type,
        batch: body.batch,
        cameraStyle: camera,
      });
    },
    respond: (created) => ({
      generation_id: created.id,
      status: created.status,
      images: [],
      estimated_time: created.estimatedSeconds,
      credits_used: created.creditsCharged,
    }),
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
      `(has_voice_conversion true). Costs ${INFLUENCER_VIDEO_CREDITS_PER_SECOND} credits per second.`,
    body: InfluencerVideoBody,
    response: InfluencerVideoResponse,
    errors: [403, 404],
    runInRequest: [0, 1],
    async plan(deps, body, teamId): Promise<GenerationPlan> {
      const influencer = await requireReadyInfluencer(deps.pool, teamId, body.influencer_id);
      const voice = await selectLatestVoiceOfInfluencer(deps.pool, influencer.id);
      const seconds = influencerVideoSeconds(body.dialog);
      const extras = (['outfit_image', 'location_image', 'product_image'] as const).filter(
        (f) => body[f] !== undefined,
      );
      const shot = {
        opening: `${influencer.name}: ${body.prompt}, opening frame`,
        closing: `${influencer.name}: ${body.prompt}, closing frame`,
        motion: body.dialog
          ? 'speaking to camera, gestures following the dialog'
          : 'natural movement through the scene',
      };
      return {
        operation: 'influencer.video',
        model: INFLUENCER_MODEL,
        input: {
          influencer_id: influencer.id,
          face_image: influencer.face_image,
          prompt: body.prompt,
          dialog: body.dialog ?? null,
          shot,
          references: [influencer.face_image, ...extras.map((f) => body[f] as string)],
          aspect_ratio: body.aspect_ratio ?? '9:16',
          duration: seconds,
          voice: voice ? { id: voice.id, profile: voice.profile } : null,
        },
        items: [
          { type: 'image', price: 0, input: { part: 'first_frame' } },
          { type: 'image', price: 0, input: { part: 'last_frame' } },
          { type: 'video', price: INFLUENCER_VIDEO_CREDITS_PER_SECOND * seconds, input: { part: 'video' } },
        ],
        estimatedSeconds: 90,
        urls: extras.map((f) => ({ field: f, url: body[f] as string })),
      };
    },
    respond: (created, plan) => ({
      generation_id: created.id,
      status: created.status,
      first_frame_url: created.resultUrl(0, 'png'),
      last_frame_url: created.resultUrl(1, 'png'),
      video_url: null,
      estimated_time: created.estimatedSeconds,
      credits_used: created.creditsCharged,
      has_voice_conversion: plan.input.voice !== null,
    }),
  });
}
