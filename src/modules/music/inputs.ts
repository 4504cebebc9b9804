// The normalised request of music generation, as its plan stores it and as whatever serves it
// reads it.
import { type Static, Type } from 'typebox';

export const MusicInput = Type.Object({
  title: Type.String(),
  style: Type.String(),
  lyrics: Type.Union([Type.String(), Type.Null()]),
  instrumental: Type.Boolean(),
  vocal_gender: Type.Union([Type.Literal('m'), Type.Literal('f'), Type.Null()]),
  duration: Type.Number(),
});
export type MusicInput = Static<typeof MusicInput>;
