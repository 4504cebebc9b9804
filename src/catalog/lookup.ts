// The one lookup of a model named in a request: the list's default when none is named, else the
// model of that id, else `400 model_not_found` naming the field and the models there are (and,
// when the id is a model of another kind, the endpoint that takes it).
import { AppError } from '../lib/errors.ts';

/** For a model id, how to use each model of that id elsewhere ("an edit model: use POST ..."). */
export type ModelUsage = (id: string) => string[];

// Keyed by the catalog's list objects, so each app's catalogs answer for themselves.
const usages = new WeakMap<readonly unknown[], ModelUsage>();

/**
 * Lets a miss in any of `lists` say where the id is instead. The one model list links the
 * catalogs it is built from; a list never linked misses with the list of its models only.
 */
export function linkModelUsage(lists: ReadonlyArray<readonly unknown[]>, usage: ModelUsage): void {
  for (const list of lists) usages.set(list, usage);
}

/**
 * The live layer over a catalog list (the operator's changes made without a restart): the model an
 * alias names, and a model's price in place of the catalog's. The catalog itself is never edited.
 */
export interface LiveModelLayer {
  /** The model id `id` stands for in the list of `kind` (an alias), or undefined. */
  aliasOf(kind: string, id: string): string | undefined;
  /** The price object to use for the model of `kind`, or undefined for the catalog's. */
  priceOf(kind: string, id: string): Record<string, unknown> | undefined;
}

const layers = new WeakMap<readonly unknown[], { kind: string; layer: LiveModelLayer }>();

/** Lets `lookupModel` of `list` (the model list's `kind`) apply the live layer. */
export function linkLiveModels(list: readonly unknown[], kind: string, layer: LiveModelLayer): void {
  layers.set(list, { kind, layer });
}

/**
 * The model `id` of `list` (a catalog of `kind`: image, video, music, ...), or its default when
 * `id` is undefined: the one marked default, else the first.
 */
export function lookupModel<T extends { id: string; default?: boolean }>(
  list: readonly T[],
  id: string | undefined,
  kind: string,
  field = 'model',
): T {
  const live = layers.get(list);
  const wanted = id === undefined ? undefined : (live?.layer.aliasOf(live.kind, id) ?? id);
  const model = wanted === undefined ? (list.find((m) => m.default) ?? list[0]) : list.find((m) => m.id === wanted);
  if (model) {
    const price = live?.layer.priceOf(live.kind, model.id);
    if (price === undefined) return model;
    // An entry priced by fields of its own (an upscaler) takes the override's fields in their place.
    return 'price' in model ? { ...model, price } : { ...model, ...price };
  }
  const known = list.map((m) => m.id).join(', ');
  const elsewhere = id === undefined ? [] : (usages.get(list)?.(id) ?? []);
  if (elsewhere.length > 0) {
    const hint = elsewhere.join('; also ');
    throw new AppError(
      'model_not_found',
      `Model '${id}' is not ${/^[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind} model: it is ${hint}. Known ${kind} models: ${known}`,
      [{ field, message: `is ${hint}` }],
    );
  }
  throw new AppError('model_not_found', `Unknown ${kind} model '${id}'. Known models: ${known}`, [
    { field, message: 'is not a known model' },
  ]);
}
