// The normalised requests of the image operations, as their plans store them and as whatever
// serves them (a vendor's mapping through the hooks, or the simulator) reads them.
import { type Static, Type } from 'typebox';

const Lora = Type.Object({ url: Type.String(), type: Type.String() });

/** images/generate (and influencer images, which add the influencer and a camera style). */
export const GenerateInput = Type.Object({
  prompt: Type.String(),
  negative_prompt: Type.Union([Type.String(), Type.Null()]),
  aspect_ratio: Type.String(),
  steps: Type.Integer(),
  /** Images to start from (image-to-image; for influencer images the face first). */
  references: Type.Array(Type.String()),
  lora: Type.Union([Lora, Type.Null()]),
  /** Influencer images: 'pro' or 'smartphone'. */
  camera_style: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  influencer_id: Type.Optional(Type.String()),
});
export type GenerateInput = Static<typeof GenerateInput>;

/** images/edit: the image to edit first, then the additional ones. */
export const EditInput = Type.Object({
  prompt: Type.String(),
  references: Type.Array(Type.String()),
  size: Type.Union([Type.Object({ width: Type.Integer(), height: Type.Integer() }), Type.Null()]),
  dimensions_ignored: Type.Boolean(),
});
export type EditInput = Static<typeof EditInput>;

/** images/generate-face: one item per model, the traits already phrased. */
export const FaceInput = Type.Object({
  prompt: Type.String(),
  negative_prompt: Type.Union([Type.String(), Type.Null()]),
  traits: Type.Array(Type.String()),
  seed: Type.Integer(),
});
export type FaceInput = Static<typeof FaceInput>;

/** The seed of an item (each item of a batch has its own). */
export const seedOf = (item: { input: Record<string, unknown> }): number => Number(item.input.seed ?? 0);
