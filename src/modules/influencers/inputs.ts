// The normalised requests of the influencer operations, as their plans store them and as
// whatever serves them reads them.
import { type Static, Type } from 'typebox';
import { SpokenVoice } from '../../catalog/voices.ts';

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

/** influencer.video: the planned shot, the references (the face first), and the voice if any. */
export const VideoInput = Type.Object({
  influencer_id: Type.String(),
  face_image: Type.String(),
  prompt: Type.String(),
  dialog: Type.Union([Type.String(), Type.Null()]),
  shot: Type.Object({ opening: Type.String(), closing: Type.String(), motion: Type.String() }),
  references: Type.Array(Type.String()),
  aspect_ratio: Type.Enum(['16:9', '9:16']),
  duration: Type.Number(),
  voice: Type.Union([SpokenVoice, Type.Null()]),
});
export type VideoInput = Static<typeof VideoInput>;
