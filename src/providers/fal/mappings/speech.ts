// Speech: MiniMax's text to speech on fal, in a MiniMax voice named like our preset (`Wise_Woman`).
import { TTS_PCM_SAMPLE_RATE, type TtsEmotion, type TtsFormat, ttsEmotion } from '../../../catalog/voices.ts';
import { type Mapping, mappingFor } from '../../mapping.ts';
import type { VendorRequest } from '../../types.ts';
import { refuse } from './common.ts';

type SpeechRequest = Extract<VendorRequest, { kind: 'speech' }>;

// ⚠ MiniMax speaks at 0.5-2 and reads at most 5000 characters (fal's schema; VENDORS.md).
const MINIMAX_SPEED = [0.5, 2] as const;
const MINIMAX_MAX_CHARACTERS = 5000;

/** MiniMax's emotion for each of ours: it has no `excited` or `calm`. */
const MINIMAX_EMOTIONS: Readonly<Record<TtsEmotion, string>> = {
  neutral: 'neutral',
  happy: 'happy',
  sad: 'sad',
  angry: 'angry',
  fearful: 'fearful',
  disgusted: 'disgusted',
  surprised: 'surprised',
  excited: 'happy',
  calm: 'neutral',
};

/** MiniMax's `language_boost` names, by ISO 639-1 code; another language is boosted `auto`. */
const MINIMAX_LANGUAGES: Readonly<Record<string, string>> = {
  af: 'Afrikaans',
  ar: 'Arabic',
  bg: 'Bulgarian',
  ca: 'Catalan',
  cs: 'Czech',
  da: 'Danish',
  de: 'German',
  el: 'Greek',
  en: 'English',
  es: 'Spanish',
  fi: 'Finnish',
  fr: 'French',
  he: 'Hebrew',
  hi: 'Hindi',
  hr: 'Croatian',
  hu: 'Hungarian',
  id: 'Indonesian',
  it: 'Italian',
  ja: 'Japanese',
  ko: 'Korean',
  ms: 'Malay',
  nb: 'Norwegian',
  nl: 'Dutch',
  nn: 'Nynorsk',
  no: 'Norwegian',
  pl: 'Polish',
  pt: 'Portuguese',
  ro: 'Romanian',
  ru: 'Russian',
  sk: 'Slovak',
  sl: 'Slovenian',
  sv: 'Swedish',
  th: 'Thai',
  tr: 'Turkish',
  uk: 'Ukrainian',
  vi: 'Vietnamese',
  zh: 'Chinese',
};

// MiniMax makes MP3, FLAC and raw PCM. The service makes the rest from these: WAV by wrapping the
// PCM (at the rate of our own `pcm`), OGG and AAC by converting the MP3.
interface MinimaxAudio {
  format: 'mp3' | 'flac' | 'pcm';
  sample_rate: number;
  bitrate?: number;
  channel: 1;
}
const MINIMAX_MP3: MinimaxAudio = { format: 'mp3', sample_rate: 44100, bitrate: 128000, channel: 1 };
const MINIMAX_AUDIO: Readonly<Record<string, MinimaxAudio>> = {
  mp3: MINIMAX_MP3,
  ogg: MINIMAX_MP3,
  aac: MINIMAX_MP3,
  flac: { format: 'flac', sample_rate: 44100, channel: 1 },
  pcm: { format: 'pcm', sample_rate: TTS_PCM_SAMPLE_RATE, channel: 1 },
  wav: { format: 'pcm', sample_rate: TTS_PCM_SAMPLE_RATE, channel: 1 },
} satisfies Record<TtsFormat, MinimaxAudio>;

/** `record[key]` when the record has it (not one of Object's own names). */
const own = <T>(record: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;

/** The MiniMax voice of a speech request; refused when the voice has none. */
function minimaxVoice(request: SpeechRequest): string {
  const voice = request.voices.fal;
  if (!voice) refuse('speaks only MiniMax voices, and this voice is not one of them');
  return voice;
}

export const SPEECH_MAPPINGS = {
  /**
   * fal-ai/minimax/speech-02-hd: the text in a MiniMax voice at a speed and an emotion, the
   * language boosted, the audio as a URL (fal answers hex by default). The seed is not MiniMax's.
   */
  'minimax-speech': mappingFor('speech', (request) => {
    const voice = minimaxVoice(request);
    if (request.text.trim() === '') refuse('needs some text to speak');
    const characters = [...request.text].length;
    if (characters > MINIMAX_MAX_CHARACTERS) {
      refuse(`speaks at most ${MINIMAX_MAX_CHARACTERS} characters (asked: ${characters})`);
    }
    const [slowest, fastest] = MINIMAX_SPEED;
    if (!(request.speed >= slowest && request.speed <= fastest)) {
      refuse(`speaks at speeds ${slowest} to ${fastest}, not ${request.speed}`);
    }
    const audio = own(MINIMAX_AUDIO, request.format);
    if (!audio) refuse(`makes no ${request.format} audio`);
    return {
      text: request.text,
      // No `vol`: the service applies the volume itself, after the vendor.
      voice_setting: {
        voice_id: voice,
        speed: request.speed,
        emotion: MINIMAX_EMOTIONS[ttsEmotion(request.emotion)],
      },
      language_boost: own(MINIMAX_LANGUAGES, request.language.toLowerCase()) ?? 'auto',
      audio_setting: { ...audio },
      output_format: 'url',
    };
  }),
} satisfies Record<string, Mapping>;
