// The voices and speech settings the API offers: the preset voice table (a voice is a
// VoiceProfile: an eSpeak language and variant, a base pitch and a speaking rate), the TTS
// emotions and output formats. Used by the API's validation and by whatever provider speaks.
import { type Static, Type } from 'typebox';

/** A voice: an eSpeak language and variant, a base pitch and a speaking rate, and colouring. */
export const VoiceProfile = Type.Object({
  /** eSpeak language and variant, "<language>+<variant>": "en-us+f3", "en-rp+m4", "fr+m1". */
  voice: Type.String(),
  /** eSpeak base pitch, 0..99 (50 is the variant's natural pitch). */
  pitch: Type.Number(),
  /** Speaking rate in words per minute (eSpeak speaks 80..450). */
  rate: Type.Number(),
  /** eSpeak amplitude, 0..200; default 100. */
  amplitude: Type.Optional(Type.Number()),
  /** Extra pause between words, in units of 10 ms; default 0. */
  wordGap: Type.Optional(Type.Number()),
  /** A colouring applied after synthesis: warm, bright, soft, breathy, raspy, resonant. */
  timbre: Type.Optional(Type.String()),
});
export type VoiceProfile = Static<typeof VoiceProfile>;

/** A voice as a speech vendor knows it: the vendor (a provider id) and its own id of the voice. */
export const VendorVoice = Type.Object({ provider: Type.String(), voice_id: Type.String() });
export type VendorVoice = Static<typeof VendorVoice>;

/** A voice to speak with: our id, its profile (the service's own speech), and where a vendor made it. */
export const SpokenVoice = Type.Object({
  id: Type.String(),
  profile: VoiceProfile,
  /** Absent or null: a preset, or a voice of the service's own. */
  vendor: Type.Optional(Type.Union([VendorVoice, Type.Null()])),
});
export type SpokenVoice = Static<typeof SpokenVoice>;

export interface PresetVoice {
  id: string;
  name: string;
  description: string;
  tier: 'builtin' | 'premium';
  gender: 'male' | 'female' | 'neutral';
  language: string;
  profile: VoiceProfile;
}

export const PRESET_VOICES: PresetVoice[] = [
  {
    id: 'Wise_Woman',
    name: 'Wise Woman',
    description: 'A mature, measured female voice with a warm, reassuring tone.',
    tier: 'builtin',
    gender: 'female',
    language: 'en',
    profile: { voice: 'en-us+f4', pitch: 40, rate: 158, timbre: 'warm' },
  },
  {
    id: 'Deep_Voice_Man',
    name: 'Deep Voice Man',
    description: 'A low, resonant male voice for narration and trailers.',
    tier: 'builtin',
    gender: 'male',
    language: 'en',
    profile: { voice: 'en-us+m3', pitch: 10, rate: 150, timbre: 'resonant' },
  },
  {
    id: 'Calm_Woman',
    name: 'Calm Woman',
    description: 'A soft, unhurried female voice for meditation and explainers.',
    tier: 'builtin',
    gender: 'female',
    language: 'en',
    profile: { voice: 'en-us+f1', pitch: 48, rate: 148, wordGap: 1, timbre: 'soft' },
  },
  {
    id: 'Casual_Guy',
    name: 'Casual Guy',
    description: 'A relaxed, conversational male voice.',
    tier: 'builtin',
    gender: 'male',
    language: 'en',
    profile: { voice: 'en-us+m1', pitch: 42, rate: 178 },
  },
  {
    id: 'Lively_Girl',
    name: 'Lively Girl',
    description: 'A bright, energetic young female voice.',
    tier: 'builtin',
    gender: 'female',
    language: 'en',
    profile: { voice: 'en-us+f5', pitch: 74, rate: 196, timbre: 'bright' },
  },
  {
    id: 'Patient_Man',
    name: 'Patient Man',
    description: 'A gentle, slow-paced male voice for tutorials.',
    tier: 'builtin',
    gender: 'male',
    language: 'en',
    profile: { voice: 'en-rp+m2', pitch: 34, rate: 142, wordGap: 1, timbre: 'warm' },
  },
  {
    id: 'Young_Knight',
    name: 'Young Knight',
    description: 'A youthful, confident male voice with a British accent.',
    tier: 'builtin',
    gender: 'male',
    language: 'en',
    profile: { voice: 'en-rp+m6', pitch: 56, rate: 176, timbre: 'bright' },
  },
  {
    id: 'Determined_Man',
    name: 'Determined Man',
    description: 'A firm, focused male voice for calls to action.',
    tier: 'builtin',
    gender: 'male',
    language: 'en',
    profile: { voice: 'en-us+m4', pitch: 30, rate: 172, amplitude: 110, timbre: 'resonant' },
  },
  {
    id: 'Lovely_Girl',
    name: 'Lovely Girl',
    description: 'A sweet, breathy young female voice.',
    tier: 'premium',
    gender: 'female',
    language: 'en',
    profile: { voice: 'en-us+f2', pitch: 70, rate: 168, timbre: 'breathy' },
  },
  {
    id: 'Decent_Boy',
    name: 'Decent Boy',
    description: 'A polite, clear young male voice.',
    tier: 'premium',
    gender: 'male',
    language: 'en',
    profile: { voice: 'en-us+m6', pitch: 66, rate: 170 },
  },
  {
    id: 'Inspirational_girl',
    name: 'Inspirational Girl',
    description: 'An uplifting, bright female voice for motivational content.',
    tier: 'premium',
    gender: 'female',
    language: 'en',
    profile: { voice: 'en-us+f3', pitch: 60, rate: 182, timbre: 'bright' },
  },
  {
    id: 'Imposing_Manner',
    name: 'Imposing Manner',
    description: 'A commanding, very deep male voice with a slow, heavy delivery.',
    tier: 'premium',
    gender: 'male',
    language: 'en',
    profile: { voice: 'en-rp+m4', pitch: 8, rate: 135, amplitude: 115, timbre: 'resonant' },
  },
  {
    id: 'Elegant_Man',
    name: 'Elegant Man',
    description: 'A refined, smooth male voice with a British accent.',
    tier: 'premium',
    gender: 'male',
    language: 'en',
    profile: { voice: 'en-rp+m3', pitch: 40, rate: 160, timbre: 'warm' },
  },
  {
    id: 'Abbess',
    name: 'Abbess',
    description: 'A solemn, serene older female voice.',
    tier: 'premium',
    gender: 'female',
    language: 'en',
    profile: { voice: 'en-rp+f4', pitch: 36, rate: 138, wordGap: 1, timbre: 'soft' },
  },
];

export const TTS_EMOTIONS = [
  'neutral',
  'happy',
  'sad',
  'angry',
  'fearful',
  'disgusted',
  'surprised',
  'excited',
  'calm',
] as const;
export type TtsEmotion = (typeof TTS_EMOTIONS)[number];

/** Names of emotions that TTS speaks as one of its own. */
export const EMOTION_ALIASES: Record<string, TtsEmotion> = {
  cheerful: 'happy',
  joyful: 'happy',
  joy: 'happy',
  sorrowful: 'sad',
  sadly: 'sad',
  mad: 'angry',
  furious: 'angry',
  afraid: 'fearful',
  scared: 'fearful',
  fear: 'fearful',
  disgust: 'disgusted',
  surprise: 'surprised',
  shocked: 'surprised',
  enthusiastic: 'excited',
  curious: 'surprised',
  frustrated: 'angry',
  soothing: 'calm',
  relaxed: 'calm',
  gentle: 'calm',
  normal: 'neutral',
  default: 'neutral',
};
/** The TTS emotion of a name: itself, an alias (`enthusiastic` → excited), else neutral. */
export function ttsEmotion(name: string): TtsEmotion {
  return (TTS_EMOTIONS as readonly string[]).includes(name)
    ? (name as TtsEmotion)
    : (EMOTION_ALIASES[name] ?? 'neutral');
}

export const TTS_FORMATS = ['mp3', 'wav', 'ogg', 'flac', 'aac', 'pcm'] as const;
export type TtsFormat = (typeof TTS_FORMATS)[number];

/** The rate of our `pcm` output: raw signed 16-bit little-endian mono samples, 22 050 a second. */
export const TTS_PCM_SAMPLE_RATE = 22050;

/** Content type of each output format; `pcm` is raw signed 16-bit little-endian mono at TTS_PCM_SAMPLE_RATE. */
export const TTS_CONTENT_TYPES: Record<TtsFormat, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
  aac: 'audio/aac',
  pcm: 'audio/pcm',
};
