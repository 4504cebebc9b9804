import { ENDPOINT_PRICED, INFLUENCER_PRICE, type InfluencerPrice } from '../../catalog/endpoint-prices.ts';
import { DEFAULT_LORA_TYPE, IMAGE_ASPECT_RATIOS } from '../../catalog/models.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { invalidField } from '../../lib/errors.ts';
import type { GenerateInput } from '../images/inputs.ts';
import type { LiveConfig } from '../live-config/store.ts';
import type { InfluencerRow } from './sql.ts';

/** Images of an influencer (the catalog's price): credits per image (the LoRA flow costs more). */
export const INFLUENCER_IMAGE_CREDITS = {
  standard: INFLUENCER_PRICE.credits_per_image,
  lora: INFLUENCER_PRICE.credits_per_lora_image,
} as const;
/** The in-house model behind influencer images and videos. */
export const INFLUENCER_MODEL = ENDPOINT_PRICED.influencer.model;

/** The influencer model's price now: images, LoRA images and training (the operator's, else the catalog's). */
export const influencerPrice = (live: Pick<LiveConfig, 'priceOr'>): InfluencerPrice =>
  live.priceOr(ENDPOINT_PRICED.influencer.kind, INFLUENCER_MODEL, INFLUENCER_PRICE);

export interface InfluencerImageRequest {
  prompt: string;
  negativePrompt?: string;
  aspectRatio?: string;
  steps?: number;
  /** Reference images besides the face, each with the request field it came from. */
  references: Array<{ field: string; url: string }>;
  loraUrl?: string;
  loraType?: string;
  batch?: number;
  cameraStyle?: string;
  webhook?: string;
  /** The influencer model's price now (influencerPrice). */
  price: InfluencerPrice;
}

/**
 * The plan of images of a ready influencer (influencers/generate, and images/generate with
 * influencer_id): the in-house model renders the face image composed with the references.
 */
export function planInfluencerImages(influencer: InfluencerRow, r: InfluencerImageRequest): GenerationPlan {
  const aspectRatio = r.aspectRatio ?? '1:1';
  if (!(IMAGE_ASPECT_RATIOS as readonly string[]).includes(aspectRatio)) {
    throw invalidField('settings.aspect_ratio', `must be one of: ${IMAGE_ASPECT_RATIOS.join(', ')}`);
  }
  if (r.loraType !== undefined && r.loraUrl === undefined) throw invalidField('lora_type', 'needs lora_url');
  const lora = r.loraUrl ? { url: r.loraUrl, type: r.loraType ?? DEFAULT_LORA_TYPE } : null;
  return {
    operation: OperationName.imageGenerate,
    model: INFLUENCER_MODEL,
    input: {
      prompt: r.prompt,
      negative_prompt: r.negativePrompt ?? null,
      aspect_ratio: aspectRatio,
      steps: r.steps ?? 28,
      references: [influencer.face_image, ...r.references.map((ref) => ref.url)],
      lora,
      camera_style: r.cameraStyle ?? null,
      influencer_id: influencer.id,
    } satisfies GenerateInput,
    items: Array.from({ length: r.batch ?? 1 }, (_, position) => ({
      type: 'image' as const,
      price: lora ? r.price.credits_per_lora_image : r.price.credits_per_image,
      input: { seed: position },
    })),
    estimatedSeconds: 15,
    webhookUrl: r.webhook ?? null,
    urls: [...r.references, ...(lora ? [{ field: 'lora_url', url: lora.url }] : [])],
  };
}
