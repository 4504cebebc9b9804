// The normalised request of text to speech, as its plan stores it and as whatever serves it
// reads it.
import { type Static, Type } from 'typebox';
import { TTS_EMOTIONS, TTS_FORMATS, VendorVoice, VoiceProfile } from '../../catalog/voices.ts';

export const TtsInput = Type.Object({
  voice_id: Type.String(),
  /** The voice to speak with (a preset's, or the team's own voice's). */
  profile: VoiceProfile,
  /** The voice at the vendor that made it (absent or null: a preset, or the service's own voice). */
  vendor_voice: Type.Optional(Type.Union([VendorVoice, Type.Null()])),
  text: Type.String(),
  language: Type.String(),
  speed: Type.Number(),
  volume: Type.Number(),
  emotion: Type.Enum([...TTS_EMOTIONS]),
  format: Type.Enum([...TTS_FORMATS]),
  /**
   * The item this speech is made for (speech another operation needs): with no configured speech
   * vendor, the service speaks it itself rather than refuse it.
   */
  needed_by: Type.Optional(Type.String()),
});
export type TtsInput = Static<typeof TtsInput>;
