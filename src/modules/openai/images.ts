// Image generations through the native endpoint (POST /api/v1/images/generate, asynchronous): an
// OpenAI request becomes the native body, and the door waits for the generation to finish.
import type { Static } from 'typebox';
import { dimensionsFor } from '../../catalog/image-sizes.ts';
import type { ModelCatalog } from '../../catalog/models.ts';
import type { Queryable } from '../../db/pool.ts';
import { type StatusRow, waitForGenerationEnd } from '../../engine/index.ts';
import { AppError, invalidField } from '../../lib/errors.ts';
import type { ImageGenerateBody } from '../images/schemas.ts';
import { DoorError } from './errors.ts';
import type { ImageGenerationBody } from './schemas.ts';

/** Native image request fields → OpenAI image request fields, for the `param` of an error. */
export const IMAGE_PARAMS: Record<string, string> = {
  prompt: 'prompt',
  model: 'model',
  batch: 'n',
  'settings.aspect_ratio': 'size',
};

/** How far (relative) a size's proportions may be from the aspect ratio chosen for it. */
const RATIO_TOLERANCE = 0.05;

const ratioOf = (aspect: string): number => {
  const [w, h] = aspect.split(':').map(Number);
  return (w ?? 1) / (h ?? 1);
};

/**
 * The model's aspect ratio for an OpenAI size: undefined for `auto` (the native default, 1:1),
 * else the ratio of the model's closest to WIDTHxHEIGHT, within 5% (1792x1024 is 16:9,
 * 1536x1024 3:2, 256x256 1:1); a size no ratio of the model is near is refused, with what it makes.
 */
export function aspectRatioFor(model: { id: string; settings: { aspect_ratios: string[] } }, size: string) {
  if (size === 'auto') return undefined;
  const [width, height] = size.split('x').map(Number);
  const wanted = (width ?? 1) / (height ?? 1);
  const distance = (aspect: string) => Math.abs(Math.log(ratioOf(aspect) / wanted));
  const closest = [...model.settings.aspect_ratios].sort((a, b) => distance(a) - distance(b))[0];
  if (closest !== undefined && distance(closest) <= Math.log(1 + RATIO_TOLERANCE)) return closest;
  const offered = model.settings.aspect_ratios.map((aspect) => {
    const pixels = dimensionsFor(aspect);
    return `${pixels.width}x${pixels.height} (${aspect})`;
  });
  throw invalidField('size', `model ${model.id} makes ${offered.join(', ')}; ask for one of these proportions`);
}

/** The native body of an OpenAI image request. */
export function nativeImageRequest(
  catalog: ModelCatalog,
  body: Static<typeof ImageGenerationBody>,
): Static<typeof ImageGenerateBody> {
  if (body.stream === true) throw invalidField('stream', 'streamed partial images are not supported');
  const modelId = body.model ?? undefined;
  // An unknown model goes on as it is: the native endpoint refuses it with the list of models.
  const model = catalog.image.find((m) => m.id === (modelId ?? catalog.defaults.image.id));
  const aspectRatio = model && body.size ? aspectRatioFor(model, body.size) : undefined;
  return {
    prompt: body.prompt,
    ...(modelId !== undefined ? { model: modelId } : {}),
    ...(body.n ? { batch: body.n } : {}),
    ...(aspectRatio ? { settings: { aspect_ratio: aspectRatio } } : {}),
  };
}

/** The longest the door waits for images; the generation goes on after it (see the 504's message). */
export const IMAGE_WAIT_MS = 10 * 60_000;

/**
 * Waits until the generation is completed or failed, `gone()` says the client left, or `waitMs`
 * runs out (504).
 */
export async function waitForGeneration(
  db: Queryable,
  id: string,
  teamId: string,
  gone: () => boolean,
  waitMs = IMAGE_WAIT_MS,
): Promise<StatusRow> {
  const row = await waitForGenerationEnd(db, id, teamId, gone, waitMs);
  if (row) return row;
  throw new DoorError(
    504,
    'server_error',
    'timeout',
    `Generation ${id} did not finish within ${waitMs / 60_000} minutes; it goes on and is charged: poll GET /api/v1/generations/${id}/status for its images`,
    { 'x-should-retry': 'false' },
  );
}

/** The completed items' URLs; a generation whose every item failed is 500 generation_failed (refunded). */
export function completedUrls(row: StatusRow): string[] {
  const urls = row.items.flatMap((item) => (item.status === 'COMPLETED' && item.url ? [item.url] : []));
  if (urls.length === 0) {
    const reason = row.items.find((item) => item.error)?.error ?? 'unknown error';
    throw new AppError(
      'generation_failed',
      `Generation ${row.id} failed and its ${row.credits_refunded} credits were refunded: ${reason}`,
    );
  }
  return urls;
}
