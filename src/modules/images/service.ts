// The rules and prices of this module's generation requests: each plan turns a validated
// request into the work to charge for and run.

import type { Static } from 'typebox';
import type { Deps } from '../../app-types.ts';
import { lookupModel } from '../../catalog/lookup.ts';
import { DEFAULT_LORA_TYPE } from '../../catalog/models.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import type { Queryable } from '../../db/pool.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { AppError, invalidField } from '../../lib/errors.ts';
import { influencerPrice, planInfluencerImages } from '../influencers/image-plan.ts';
import { requireReadyInfluencer } from '../influencers/service.ts';
import { permits } from '../live-config/store.ts';
import type { EditInput, FaceInput, GenerateInput } from './inputs.ts';
import type { FaceGenerateBody, ImageEditBody, ImageGenerateBody } from './schemas.ts';

export const DEFAULT_STEPS = 28;

/** A seed for a request that gave none (recorded, so its items stay reproducible on retry). */
export function randomSeed(): number {
  return Math.floor(Math.random() * 4_294_967_296);
}

export async function planImageGenerate(
  { catalog, pool, live }: Deps,
  body: Static<typeof ImageGenerateBody>,
  teamId: string,
): Promise<GenerationPlan> {
  if (body.influencer_id !== undefined) return planInfluencerRequest(pool, live, body, teamId);
  const model = lookupModel(catalog.image, body.model ?? catalog.defaults.image.id, 'image');

  const references = body.images ?? (body.init_image ? [body.init_image] : []);
  const caps = model.capabilities;
  if (references.length > 0 && !caps.image_to_image) {
    throw invalidField(body.images ? 'images' : 'init_image', `model ${model.id} does not accept reference images`);
  }
  if (references.length > caps.max_reference_images && caps.image_to_image) {
    throw invalidField('images', `model ${model.id} accepts at most ${caps.max_reference_images} reference images`);
  }
  if (references.length === 0 && !caps.text_to_image) {
    throw invalidField('images', `model ${model.id} needs a reference image`);
  }
  if (body.negative_prompt && !caps.negative_prompt) {
    throw invalidField('negative_prompt', `model ${model.id} does not take a negative prompt`);
  }

  let lora: { url: string; type: string } | null = null;
  if (body.lora_url !== undefined) {
    if (!caps.supports_lora)
      throw invalidField('lora_url', `model ${model.id} does not support LoRA (supports_lora is false)`);
    const type = body.lora_type ?? DEFAULT_LORA_TYPE;
    if (!caps.lora_types?.includes(type)) {
      throw invalidField('lora_type', `model ${model.id} accepts lora_type ${caps.lora_types?.join(', ')}`);
    }
    lora = { url: body.lora_url, type };
  } else if (body.lora_type !== undefined) {
    throw invalidField('lora_type', 'needs lora_url');
  }

  const aspectRatio = body.settings?.aspect_ratio ?? '1:1';
  if (!(model.settings.aspect_ratios as string[]).includes(aspectRatio)) {
    throw invalidField(
      'settings.aspect_ratio',
      `model ${model.id} supports ${model.settings.aspect_ratios.join(', ')}`,
    );
  }
  const requestedSteps = body.settings?.num_inference_steps;
  if (requestedSteps !== undefined && requestedSteps > model.settings.max_inference_steps) {
    throw invalidField(
      'settings.num_inference_steps',
      `model ${model.id} takes at most ${model.settings.max_inference_steps}`,
    );
  }
  const steps = requestedSteps ?? Math.min(DEFAULT_STEPS, model.settings.max_inference_steps);
  const batch = body.batch ?? 1;
  return {
    operation: OperationName.imageGenerate,
    model: model.id,
    input: {
      prompt: body.prompt,
      negative_prompt: body.negative_prompt ?? null,
      aspect_ratio: aspectRatio,
      steps,
      references,
      lora,
    } satisfies GenerateInput,
    items: Array.from({ length: batch }, (_, position) => ({
      type: 'image' as const,
      price: model.price.credits_per_image,
      input: { seed: position },
    })),
    estimatedSeconds: model.estimated_seconds,
    webhookUrl: body.webhook ?? null,
    urls: [
      ...references.map((url, i) => ({ field: body.images ? `images[${i}]` : 'init_image', url })),
      ...(lora ? [{ field: 'lora_url', url: lora.url }] : []),
    ],
  };
}

export function planFaceGenerate(
  { catalog, live }: Deps,
  body: Static<typeof FaceGenerateBody>,
  teamId: string,
): GenerationPlan {
  const batch = body.batch ?? 4;
  const seed = body.seed ?? randomSeed();
  // The face models the operator has not switched off and the team's rules leave open to it, at
  // their live prices.
  const on = catalog.face.filter((m) => !live.isSwitchedOff('face', m.id));
  const rules = live.teamRules(teamId);
  const open = on.filter((m) => permits(rules, 'face', m.id)).map((m) => lookupModel(catalog.face, m.id, 'face'));
  if (open.length < batch) {
    const [code, why] =
      on.length < batch ? (['model_unavailable', 'available'] as const) : (['forbidden', 'open to this team'] as const);
    throw new AppError(
      code,
      `Only ${open.length} face models are ${why} now; ask for a batch of at most ${open.length}`,
      [{ field: 'batch', message: `at most ${open.length}` }],
    );
  }
  // A seed-determined order of the face models, so a seed always picks the same models.
  const models = open.sort(
    (a, b) => ((hashSeed(a.id) ^ seed) >>> 0) - ((hashSeed(b.id) ^ seed) >>> 0) || a.id.localeCompare(b.id),
  );
  const chosen = models.slice(0, batch);
  const traits = [body.gender, body.ethnicity, body.hair_color ? `${body.hair_color} hair` : undefined].filter(
    (t): t is string => Boolean(t),
  );
  return {
    operation: OperationName.imageFace,
    model: null,
    input: {
      prompt: body.prompt,
      negative_prompt: body.negative_prompt ?? null,
      traits,
      seed,
    } satisfies FaceInput,
    items: chosen.map((model, position) => ({
      type: 'image' as const,
      model: model.id,
      price: model.price.credits_per_image,
      input: { seed: (seed + position) >>> 0 },
    })),
    estimatedSeconds: Math.max(...chosen.map((m) => m.estimated_seconds)),
  };
}

export function planImageEdit({ catalog }: Deps, body: Static<typeof ImageEditBody>): GenerationPlan {
  const model = lookupModel(catalog.edit, body.model ?? catalog.defaults.edit.id, 'edit');
  if ((body.width === undefined) !== (body.height === undefined)) {
    throw invalidField(body.width === undefined ? 'width' : 'height', 'width and height must be set together');
  }
  const additional = body.additional_images ?? [];
  if (1 + additional.length > model.capabilities.max_reference_images) {
    throw invalidField(
      'additional_images',
      `model ${model.id} takes at most ${model.capabilities.max_reference_images} images in total`,
    );
  }
  let size: { width: number; height: number } | null = null;
  if (body.width !== undefined && body.height !== undefined && model.capabilities.custom_dimensions) {
    const { min_dimension: min, max_dimension: max } = model.settings;
    for (const [field, value] of [
      ['width', body.width],
      ['height', body.height],
    ] as const) {
      if (value < min || value > max) throw invalidField(field, `model ${model.id} takes ${min}-${max} pixels`);
    }
    size = { width: body.width, height: body.height };
  }
  return {
    operation: OperationName.imageEdit,
    model: model.id,
    input: {
      prompt: body.prompt,
      references: [body.image_url, ...additional],
      size,
      dimensions_ignored: body.width !== undefined && size === null,
    } satisfies EditInput,
    items: [{ type: 'image', price: model.price.credits_per_image, input: { seed: 0 } }],
    estimatedSeconds: model.estimated_seconds,
    webhookUrl: body.webhook ?? null,
    urls: [
      { field: 'image_url', url: body.image_url },
      ...additional.map((url, i) => ({ field: `additional_images[${i}]`, url })),
    ],
  };
}

/** images/generate with influencer_id: the influencer (ready, 404 otherwise) replaces the model. */
export async function planInfluencerRequest(
  pool: Queryable,
  live: Deps['live'],
  body: Static<typeof ImageGenerateBody>,
  teamId: string,
): Promise<GenerationPlan> {
  const influencer = await requireReadyInfluencer(pool, teamId, body.influencer_id as string);
  const references = body.images ?? (body.init_image ? [body.init_image] : []);
  return planInfluencerImages(influencer, {
    prompt: body.prompt,
    negativePrompt: body.negative_prompt,
    aspectRatio: body.settings?.aspect_ratio,
    steps: body.settings?.num_inference_steps,
    references: references.map((url, i) => ({ field: body.images ? `images[${i}]` : 'init_image', url })),
    loraUrl: body.lora_url,
    loraType: body.lora_type,
    batch: body.batch,
    webhook: body.webhook,
    price: influencerPrice(live),
  });
}

export function hashSeed(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
