// The normalised request of voice creation, as its plan stores it and as whatever serves it
// reads it.
import { type Static, Type } from 'typebox';

export const VoiceInput = Type.Object({
  voice_id: Type.String(),
  custom_voice_id: Type.String(),
  method: Type.Union([Type.Literal('clone'), Type.Literal('design')]),
  type: Type.Union([Type.Literal('cloned'), Type.Literal('designed')]),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  audio_url: Type.Union([Type.String(), Type.Null()]),
  influencer_id: Type.Union([Type.String(), Type.Null()]),
});
export type VoiceInput = Static<typeof VoiceInput>;
