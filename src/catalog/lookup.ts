// The one lookup of a model named in a request: the list's default when none is named, else the
// model of that id, else `400 model_not_found` naming the field and the models there are.
import { AppError } from '../lib/errors.ts';

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
  const model = id === undefined ? (list.find((m) => m.default) ?? list[0]) : list.find((m) => m.id === id);
  if (!model) {
    throw new AppError(
      'model_not_found',
      `Unknown ${kind} model '${id}'. Known models: ${list.map((m) => m.id).join(', ')}`,
      [{ field, message: 'is not a known model' }],
    );
  }
  return model;
}
