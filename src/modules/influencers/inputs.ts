// The normalised requests of the influencer operations, as their plans store them and as
// whatever serves them reads them.
import { type Static, Type } from 'typebox';

/** influencer.train: the influencer whose reference sheet is built, from its two stored images. */
export const TrainInput = Type.Object({
  influencer_id: Type.String(),
  name: Type.String(),
  age: Type.Integer(),
  /** The images given at creation, and what their analysis found. */
  image_urls: Type.Array(Type.String()),
  face_image: Type.String(),
  best_full_image: Type.String(),
  analysis: Type.Object({ images: Type.Array(Type.Unknown()), best_full_body_index: Type.Integer() }),
});
export type TrainInput = Static<typeof TrainInput>;
