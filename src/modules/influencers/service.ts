import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import type { Static } from 'typebox';
import type { Deps } from '../../app-types.ts';
import {
  creditsFor,
  ENDPOINT_PRICED,
  INFLUENCER_PRICE,
  INFLUENCER_VIDEO_PRICE,
} from '../../catalog/endpoint-prices.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import type { Queryable } from '../../db/pool.ts';
import type { PlanDeps } from '../../engine/inputs.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { AppError, invalidField, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { selectLatestVoiceOfInfluencer, spokenVoice } from '../voices/sql.ts';
import { analyseImage, bestFullBody, generateName, type ImageAnalysis } from './analysis.ts';
import { INFLUENCER_IMAGE_CREDITS, INFLUENCER_MODEL, influencerPrice, planInfluencerImages } from './image-plan.ts';
import type { TrainInput, VideoInput } from './inputs.ts';
import type { CreateInfluencerBody, InfluencerGenerateBody, InfluencerVideoBody } from './schemas.ts';
import { type InfluencerRow, selectInfluencer, selectInfluencerNames } from './sql.ts';

/** The team's influencer (404 when unknown or another team's). */
export async function requireInfluencer(db: Queryable, teamId: string, id: string): Promise<InfluencerRow> {
  const row = await selectInfluencer(db, id);
  if (!row || row.team_id !== teamId) throw notFound('Influencer', id);
  return row;
}

/** The team's influencer, which must have finished training (400 `influencer_not_ready`). */
export async function requireReadyInfluencer(db: Queryable, teamId: string, id: string): Promise<InfluencerRow> {
  const row = await requireInfluencer(db, teamId, id);
  if (row.training_status !== 'completed') {
    throw new AppError(
      'influencer_not_ready',
      `Influencer '${id}' is still ${row.training_status}; wait until ready_for_generation is true`,
    );
  }
  return row;
}

/** An influencer's training (the catalog's price). */
export const INFLUENCER_CREATION_CREDITS = INFLUENCER_PRICE.credits_per_training;
/** Influencer videos (the catalog's price): credits per second. */
export const INFLUENCER_VIDEO_CREDITS_PER_SECOND = INFLUENCER_VIDEO_PRICE.credits_per_second;
/**
 * Of an influencer video's price, what each of its two frames costs (as an influencer image): the
 * frames are delivered in the answer, so they stay charged whatever becomes of the video part.
 */
export const INFLUENCER_VIDEO_FRAME_CREDITS = INFLUENCER_IMAGE_CREDITS.standard;

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

export async function planInfluencerCreate(
  deps: PlanDeps,
  body: Static<typeof CreateInfluencerBody>,
  teamId: string,
): Promise<GenerationPlan> {
  const taken = await selectInfluencerNames(deps.pool, teamId);
  if (body.name && taken.has(body.name.toLowerCase())) {
    throw invalidField('name', `an influencer named '${body.name}' already exists in your team`);
  }
  const images = await Promise.all(
    body.image_urls.map(async (url, index) => {
      let data: Buffer;
      try {
        // The request's copy: what is analysed here is what the work reads.
        data = await deps.inputs.read(`image_urls[${index}]`, url);
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
  // Our own copies, normalised to PNG: the results never point at the user's URLs. They belong to
  // the influencer (not the generation's retention), and go if the request is not accepted.
  const copy = async (data: Buffer, label: string) => {
    const key = `influencers/${id}/${label}-${randomBytes(12).toString('hex')}.png`;
    deps.inputs.track(key);
    await deps.storage.put(key, await sharp(data).rotate().png().toBuffer(), 'image/png');
    return deps.storage.publicUrl(key);
  };
  const faceImage = await copy(images[0]?.data as Buffer, 'face');
  const bestFullImage = best.index === 0 ? faceImage : await copy(images[best.index]?.data as Buffer, 'full');
  const name = body.name ?? generateName(taken, randomBytes(4).readUInt32BE());
  return {
    operation: OperationName.influencerTrain,
    model: INFLUENCER_MODEL,
    input: {
      influencer_id: id,
      name,
      age: body.age ?? 25,
      image_urls: body.image_urls,
      face_image: faceImage,
      best_full_image: bestFullImage,
      analysis: { images: analyses, best_full_body_index: best.index },
    } satisfies TrainInput,
    items: [{ type: 'image', price: influencerPrice(deps.live).credits_per_training }],
    estimatedSeconds: 60,
    urls: body.image_urls.map((url, i) => ({ field: `image_urls[${i}]`, url })),
  };
}

export async function planInfluencerGenerate(
  deps: Deps,
  body: Static<typeof InfluencerGenerateBody>,
  teamId: string,
): Promise<GenerationPlan> {
  const influencer = await requireReadyInfluencer(deps.pool, teamId, body.influencer_id);
  const refs = (['outfit_image', 'location_image', 'reference_pose_image', 'product_image'] as const).filter(
    (f) => body[f] !== undefined,
  );
  const camera = body.camera_style ?? 'pro';
  return planInfluencerImages(influencer, {
    prompt:
      body.prompt ?? `${influencer.name}, ${camera === 'smartphone' ? 'smartphone snapshot' : 'professional photo'}`,
    aspectRatio: body.settings?.aspect_ratio,
    references: refs.map((f) => ({ field: f, url: body[f] as string })),
    loraUrl: body.lora_url,
    loraType: body.lora_type,
    batch: body.batch,
    cameraStyle: camera,
    price: influencerPrice(deps.live),
  });
}

export async function planInfluencerVideo(
  deps: Deps,
  body: Static<typeof InfluencerVideoBody>,
  teamId: string,
): Promise<GenerationPlan> {
  const influencer = await requireReadyInfluencer(deps.pool, teamId, body.influencer_id);
  const voice = await selectLatestVoiceOfInfluencer(deps.pool, influencer.id);
  const seconds = influencerVideoSeconds(body.dialog);
  const { kind, model } = ENDPOINT_PRICED.influencerVideo;
  const total = creditsFor(deps.live.priceOr(kind, model, INFLUENCER_VIDEO_PRICE).credits_per_second, seconds);
  // The frames' share, less when an operator's price leaves the video part less than a frame.
  const frame = Math.min(INFLUENCER_VIDEO_FRAME_CREDITS, Math.floor(total / 3));
  const extras = (['outfit_image', 'location_image', 'product_image'] as const).filter((f) => body[f] !== undefined);
  const shot = {
    opening: `${influencer.name}: ${body.prompt}, opening frame`,
    closing: `${influencer.name}: ${body.prompt}, closing frame`,
    motion: body.dialog ? 'speaking to camera, gestures following the dialog' : 'natural movement through the scene',
  };
  return {
    operation: OperationName.influencerVideo,
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
      voice: voice ? spokenVoice(voice) : null,
    } satisfies VideoInput,
    // The price is the seconds'; the frames' share of it is theirs (they are delivered at once).
    items: [
      { type: 'image', price: frame, input: { part: 'first_frame' } },
      { type: 'image', price: frame, input: { part: 'last_frame' } },
      { type: 'video', price: total - 2 * frame, input: { part: 'video' } },
    ],
    estimatedSeconds: 90,
    urls: extras.map((f) => ({ field: f, url: body[f] as string })),
  };
}
