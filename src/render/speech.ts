// Deterministic speech synthesis for the simulator provider. Speech is real and
// intelligible: the text is spoken by eSpeak (the `mespeak` package, eSpeak compiled to
// JavaScript, with its own phoneme data and dictionaries; nothing is downloaded), then
// shaped in JavaScript (emotion, volume, timbre, pauses) and encoded by ffmpeg (audio.ts).
//
// A voice is a `VoiceProfile`: an eSpeak language plus voice variant ("en-us+f3"), a base
// pitch (eSpeak's 0..99 scale) and a speaking rate in words per minute. Preset voices,
// voices designed from a description and voices cloned from a sample all end up as one.
//
// The eSpeak engine is an old emscripten build with two traps, both avoided here by giving
// every call a fresh engine instance (~1 ms to create, ~40 ms per sentence to run):
//  - its libc `rand()` state (breath noise of some variants) lives in the instance and
//    advances across calls, so a reused instance does not repeat itself;
//  - every run allocates its static data again, and after some dozens of runs the heap
//    overflows into a fatal, uncatchable V8 error.
// Long texts are spoken sentence by sentence, yielding to the event loop in between.
import { createRequire } from 'node:module';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  EMOTION_ALIASES,
  TTS_CONTENT_TYPES,
  TTS_EMOTIONS,
  TTS_FORMATS,
  TTS_PCM_SAMPLE_RATE,
  type TtsEmotion,
  type TtsFormat,
  ttsEmotion,
  type VoiceProfile,
} from '../catalog/voices.ts';
import { WorkError } from '../lib/errors.ts';
import { decodeAudio, encodeAudio } from './audio.ts';
import type { RenderedFile } from './file.ts';
import { sha256 } from './random.ts';

// ---------------------------------------------------------------------------------------
// Public types and catalogues (the presets and formats live in the catalog).

/** eSpeak's native sample rate (our `pcm` format's); every output is mono at this rate. */
export const SPEECH_SAMPLE_RATE = TTS_PCM_SAMPLE_RATE;

export interface SpeechOptions {
  /** 0.6..1.5, multiplies the voice's rate. */
  speed?: number;
  /** 0.5..2, output gain. */
  volume?: number;
  /** The emotion of the whole text; `[excited]`-style tags in the text switch it for what follows. */
  emotion?: TtsEmotion | string;
  /** ISO 639-1 code (or an English language name); languages eSpeak lacks fall back to English. */
  language?: string;
  /** Default mp3. */
  format?: TtsFormat;
}

// ---------------------------------------------------------------------------------------
// Determinism helpers.

/** mulberry32: a tiny seeded generator, enough for noise and jitter. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

// ---------------------------------------------------------------------------------------
// The eSpeak engine.

const require = createRequire(import.meta.url);

interface EmFile {
  contents: number[];
}
interface EmFs {
  root: { write: boolean; contents: Record<string, EmFile | undefined> };
  createPath(parent: string, path: string, canRead: boolean, canWrite: boolean): unknown;
  createDataFile(parent: string, name: string, data: number[], canRead: boolean, canWrite: boolean): unknown;
}
interface ESpeakInstance {
  Module: { arguments: string[] };
  FS: EmFs;
  run(): void;
}
type ESpeakConstructor = new () => ESpeakInstance;

interface VoiceData {
  /** Path of the voice file below espeak-data/voices, e.g. "en/en-us". */
  id: string;
  dictId: string;
  dict: number[];
  voice: number[];
}

const DATA_DIR = '/espeak/espeak-data';
const VOICES_DIR = `${DATA_DIR}/voices`;
const OUTPUT_FILE = 'speech.wav';

/**
 * eSpeak's standard voice variants (espeak-data/voices/!v), as bundled with meSpeak (whose
 * own "whisper" is a copy of m7; ours is a male counterpart of whisperf). Their pitch lines
 * ("pitch <base Hz> <top Hz>") set where the 0..99 pitch scale lands.
 */
const VARIANTS: Record<string, string> = {
  croak: 'name croak\ngender male 70\npitch 85 117\nflutter 20\nformant 0 100 80 110\n',
  f1:
    'name female1\ngender female 70\npitch 140 200\nflutter 8\nroughness 4\nformant 0 115 80 150\n' +
    'formant 1 120 80 180\nformant 2 100 70 150 150\nformant 3 115 70 150\nformant 4 110 80 150\n' +
    'formant 5 110 90 150\nformant 6 105 80 150\nformant 7 110 70 150\nformant 8 110 70 150\n' +
    'stressAdd -10 -10 -20 -20 0 0 40 60\n',
  f2:
    'name female2\ngender female\npitch 142 220\nroughness 3\nformant 0 105 80 150\nformant 1 110 80 160\n' +
    'formant 2 110 70 150\nformant 3 110 70 150\nformant 4 115 80 150\nformant 5 115 80 150\n' +
    'formant 6 110 70 150\nformant 7 110 70 150\nformant 8 110 70 150\nstressAdd 0 0 -10 -10 0 0 10 40\n' +
    'breath 0 2 3 3 3 3 3 2\necho 140 10\nconsonants 125 125\n',
  f3:
    'name female3\ngender female\npitch 140 240\nformant 0 105 80 150\nformant 1 120 75 150 -50\n' +
    'formant 2 135 70 150 -250\nformant 3 125 80 150\nformant 4 125 80 150\nformant 5 125 80 150\n' +
    'formant 6 120 70 150\nformant 7 110 70 150\nformant 8 110 70 150\nstressAmp 18 18 20 20 20 20 20 20\n' +
    'breath 0 2 3 3 3 3 3 2\necho 120 10\nroughness 4\n',
  f4:
    'name female4\ngender female\necho 130 15\npitch 142 200\nformant 0 120 80 150\nformant 1 115 80 160 -20\n' +
    'formant 2 130 75 150 -200\nformant 3 123 75 150\nformant 4 125 80 150\nformant 5 125 80 150\n' +
    'formant 6 110 80 150\nformant 7 110 75 150\nformant 8 110 75 150\nstressAdd -20 -20 -20 -20 0 0 20 120\n' +
    'stressAmp 18 16 20 20 20 20 20 20\n',
  f5:
    'name female5\ngender female\npitch 160 228\nroughness 0\nformant 0 105 80 150\nformant 1 110 80 160\n' +
    'formant 2 110 70 150\nformant 3 110 70 150\nformant 4 115 80 200\nformant 5 115 80 100\n' +
    'formant 6 110 70 150\nformant 7 110 70 100\nformant 8 110 70 150\nstressAdd 0 0 -10 -10 0 0 10 40\n' +
    'breath 0 4 6 6 6 6 0 10\necho 140 10\nvoicing 75\nconsonants 150 150\nbreathw 150 150 200 200 400 400\n',
  klatt: 'name klatt\nklatt 1\n',
  m1:
    'name male1\ngender male 70\npitch 75 109\nflutter 5\nroughness 4\nconsonants 80 100\nformant 0 98 100 100\n' +
    'formant 1 97 100 100\nformant 2 97 95 100\nformant 3 97 95 100\nformant 4 97 85 100\nformant 5 105 80 100\n' +
    'formant 6 95 80 100\nformant 7 100 100 100\nformant 8 100 100 100\n',
  m2:
    'name male2\ngender male\npitch 88 115\necho 130 15\nformant 0 100 80 120\nformant 1 90 85 120\n' +
    'formant 2 110 85 120\nformant 3 105 90 120\nformant 4 100 90 120\nformant 5 100 90 120\n' +
    'formant 6 100 90 120\nformant 7 100 90 120\nformant 8 100 90 120\n',
  m3:
    'name male3\ngender male\npitch 80 122\nformant 0 100 100 100\nformant 1 96 97 100\nformant 2 96 97 100\n' +
    'formant 3 96 103 100\nformant 4 95 103 100\nformant 5 95 103 100\nformant 6 100 100 100\n' +
    'formant 7 100 100 100\nformant 8 100 100 100\nstressAdd 10 10 0 0 0 0 -30 -30\n',
  m4:
    'name male4\ngender male\npitch 70 110\nformant 0 103 100 100\nformant 1 103 100 100\nformant 2 103 100 100\n' +
    'formant 3 103 100 100\nformant 4 106 100 100\nformant 5 106 100 100\nformant 6 106 100 100\n' +
    'formant 7 103 100 100\nformant 8 103 100 100\nstressAdd -10 -10 -30 -30 0 0 60 90\n',
  m5:
    'name male5\ngender male\nformant 0 100 85 130\nformant 1 90 85 130 40\nformant 2 80 85 130 310\n' +
    'formant 3 105 85 130\nformant 4 105 85 130\nformant 5 105 85 130\nformant 6 105 85 150\n' +
    'formant 7 105 85 150\nformant 8 105 85 150\nintonation 2\n',
  m6:
    'name male6\ngender male\npitch 82 117\nformant 0 100 90 120\nformant 1 100 90 140\nformant 2 100 70 140\n' +
    'formant 3 100 75 140\nformant 4 100 80 140\nformant 5 100 80 140\n',
  m7:
    'name male7\npitch 75 125\nformant 0 100 125 100\nformant 1 100 90 80\nformant 2 100 70 90\n' +
    'formant 3 100 60 90\nformant 4 100 60 90\nformant 5 75 50 90\nformant 6 90 50 100\nformant 7 100 50 100\n' +
    'formant 8 100 50 100\nvoicing 155\n',
  whisper:
    'name whisper\ngender male\npitch 82 117\nformant 0 100 0 100\nformant 1 100 40 100\nformant 2 100 70 100\n' +
    'formant 3 100 75 100\nformant 4 100 80 100\nformant 5 100 80 100\nvoicing 20\nbreath 75 75 50 40 15 10\n' +
    'breathw 150 150 200 200 400 400\n',
  whisperf:
    'name female whisper\ngender female\npitch 160 220\nroughness 3\nformant 0 105 0 150\nformant 1 110 40 160\n' +
    'formant 2 110 70 150\nformant 3 110 70 150\nformant 4 115 80 150\nformant 5 115 80 150\n' +
    'formant 6 110 70 150\nformant 7 110 70 150\nformant 8 110 70 150\nstressAdd 0 0 -10 -10 0 0 10 40\n' +
    'voicing 20\nbreath 75 75 50 40 15 10\nbreathw 150 150 200 200 400 400\n',
};
export const VOICE_VARIANTS = Object.keys(VARIANTS);
const FEMALE_VARIANTS = ['f1', 'f2', 'f3', 'f4', 'f5'];
const MALE_VARIANTS = ['m1', 'm2', 'm3', 'm4', 'm6'];

/** eSpeak languages bundled with meSpeak: our language tag → voice file below voices/. */
const LANGUAGE_VOICES: Record<string, string> = {
  en: 'en/en',
  'en-us': 'en/en-us',
  'en-rp': 'en/en-rp',
  'en-sc': 'en/en-sc',
  'en-n': 'en/en-n',
  'en-wm': 'en/en-wm',
  ca: 'ca',
  cs: 'cs',
  de: 'de',
  el: 'el',
  eo: 'eo',
  es: 'es',
  'es-la': 'es-la',
  fi: 'fi',
  fr: 'fr',
  hu: 'hu',
  it: 'it',
  kn: 'kn',
  la: 'la',
  lv: 'lv',
  nl: 'nl',
  pl: 'pl',
  pt: 'pt',
  'pt-pt': 'pt-pt',
  ro: 'ro',
  sk: 'sk',
  sv: 'sv',
  tr: 'tr',
  zh: 'zh',
  'zh-yue': 'zh-yue',
};
/** The languages speech can be produced in (ISO 639-1, plus regional accents of English, Spanish, Portuguese and Chinese). */
export const SPEECH_LANGUAGES = Object.keys(LANGUAGE_VOICES);

const LANGUAGE_ALIASES: Record<string, string> = {
  'en-gb': 'en-rp',
  'en-uk': 'en-rp',
  'en-au': 'en-rp',
  'en-ca': 'en-us',
  'en-in': 'en-rp',
  'es-419': 'es-la',
  'es-mx': 'es-la',
  'es-us': 'es-la',
  'pt-br': 'pt',
  'zh-cn': 'zh',
  'zh-tw': 'zh',
  'zh-hk': 'zh-yue',
  yue: 'zh-yue',
  cmn: 'zh',
  english: 'en-us',
  catalan: 'ca',
  czech: 'cs',
  german: 'de',
  greek: 'el',
  esperanto: 'eo',
  spanish: 'es',
  finnish: 'fi',
  french: 'fr',
  hungarian: 'hu',
  italian: 'it',
  kannada: 'kn',
  latin: 'la',
  latvian: 'lv',
  dutch: 'nl',
  polish: 'pl',
  portuguese: 'pt',
  romanian: 'ro',
  slovak: 'sk',
  swedish: 'sv',
  turkish: 'tr',
  chinese: 'zh',
  mandarin: 'zh',
  cantonese: 'zh-yue',
};

/** Our language tag for an ISO 639-1 code, a regional tag or a language name; `undefined` when eSpeak lacks it. */
export function speechLanguage(language: string): string | undefined {
  const tag = language.trim().toLowerCase().replace(/_/g, '-');
  if (tag in LANGUAGE_VOICES) return tag;
  const alias = LANGUAGE_ALIASES[tag];
  if (alias) return alias;
  const primary = tag.split('-')[0] ?? '';
  if (primary in LANGUAGE_VOICES) return primary;
  return LANGUAGE_ALIASES[primary];
}

interface Engine {
  ESpeak: ESpeakConstructor;
  /** espeak-data files shared by every instance (read-only, so one copy serves all). */
  dataFiles: Array<[string, number[]]>;
  variantFiles: Array<[string, number[]]>;
  voices: Map<string, VoiceData>;
}
let engine: Engine | undefined;

function bytesOf(text: string, encoding: BufferEncoding): number[] {
  return Array.from(Buffer.from(text, encoding));
}

function loadEngine(): Engine {
  if (engine) return engine;
  const ESpeak = require('mespeak/src/ESpeak.js') as ESpeakConstructor;
  const config = require('mespeak/src/mespeak_config.json') as Record<string, string>;
  const dataFiles: Array<[string, number[]]> = [];
  for (const name of ['config', 'phontab', 'phonindex', 'phondata', 'intonations']) {
    const data = config[name];
    if (typeof data !== 'string') throw new WorkError(`eSpeak data file ${name} is missing`, false);
    dataFiles.push([name, bytesOf(data, 'base64')]);
  }
  const variantFiles = Object.entries(VARIANTS).map(
    ([name, text]) => [name, bytesOf(`language variant\n${text}`, 'latin1')] as [string, number[]],
  );
  engine = { ESpeak, dataFiles, variantFiles, voices: new Map() };
  return engine;
}

function loadVoiceData(eng: Engine, id: string): VoiceData {
  const cached = eng.voices.get(id);
  if (cached) return cached;
  const json = require(`mespeak/voices/${id}.json`) as {
    voice_id: string;
    dict_id: string;
    dict: string;
    voice: string;
  };
  const data: VoiceData = {
    id: json.voice_id,
    dictId: json.dict_id,
    dict: bytesOf(json.dict, 'base64'),
    voice: bytesOf(json.voice, 'base64'),
  };
  eng.voices.set(id, data);
  return data;
}

interface EspeakParams {
  /** Our language tag (a key of LANGUAGE_VOICES). */
  language: string;
  variant?: string;
  pitch: number;
  rate: number;
  amplitude: number;
  wordGap: number;
}

/** Speaks one chunk of text on a fresh engine instance; returns mono samples at SPEECH_SAMPLE_RATE. */
function espeak(text: string, params: EspeakParams): Float32Array {
  const eng = loadEngine();
  const voice = loadVoiceData(eng, LANGUAGE_VOICES[params.language] ?? 'en/en-us');
  // Other languages switch to English for English words, so its dictionary is always there.
  const english = loadVoiceData(eng, 'en/en-us');
  // The engine binds its console output (eSpeak's warnings) when it is constructed: collect it.
  const messages: string[] = [];
  const warn = console.warn;
  let instance: ESpeakInstance;
  console.warn = (...args: unknown[]) => {
    if (messages.length < 20) messages.push(args.map(String).join(' '));
  };
  try {
    instance = new eng.ESpeak();
  } finally {
    console.warn = warn;
  }
  const fs = instance.FS;
  const slash = voice.id.lastIndexOf('/');
  const voiceDir = slash >= 0 ? `${VOICES_DIR}/${voice.id.slice(0, slash)}` : VOICES_DIR;
  fs.createPath('/', voiceDir.slice(1), true, true);
  fs.createPath('/', `${VOICES_DIR.slice(1)}/!v`, true, true);
  fs.root.write = true;
  for (const [name, data] of eng.dataFiles) fs.createDataFile(DATA_DIR, name, data, true, false);
  for (const [name, data] of eng.variantFiles) fs.createDataFile(`${VOICES_DIR}/!v`, name, data, true, false);
  fs.createDataFile(DATA_DIR, voice.dictId, voice.dict, true, false);
  if (english.dictId !== voice.dictId) fs.createDataFile(DATA_DIR, english.dictId, english.dict, true, false);
  fs.createDataFile(voiceDir, voice.id.slice(slash + 1), voice.voice, true, false);

  const variant = params.variant && params.variant in VARIANTS ? `+${params.variant}` : '';
  // The engine copies each argument byte by byte (char codes truncated to 8 bits), so the
  // text goes in as UTF-8 bytes (-b 1). A leading space keeps a "-5" from reading as an option.
  const utf8 = Buffer.from(` ${text}`, 'utf8').toString('latin1');
  instance.Module.arguments = [
    '-w',
    OUTPUT_FILE,
    '-a',
    String(Math.round(clamp(params.amplitude, 0, 200))),
    '-g',
    String(Math.round(clamp(params.wordGap, 0, 100))),
    '-p',
    String(Math.round(clamp(params.pitch, 0, 99))),
    '-s',
    String(Math.round(clamp(params.rate, 80, 450))),
    '-b',
    '1',
    '-v',
    `${voice.id}${variant}`,
    `--path=/espeak`,
    utf8,
  ];
  try {
    instance.run();
  } catch (err) {
    throw new WorkError(`eSpeak failed: ${err instanceof Error ? err.message : String(err)}`, false);
  }
  const wav = fs.root.contents[OUTPUT_FILE]?.contents;
  if (!wav || wav.length < 44) {
    throw new WorkError(`eSpeak produced no audio${messages.length ? `: ${messages.join('; ')}` : ''}`, false);
  }
  return parseWav(Buffer.from(Int8Array.from(wav).buffer));
}

/** 16-bit mono PCM from a WAV file, as floats in -1..1. */
function parseWav(wav: Buffer): Float32Array {
  let offset = 12;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('latin1', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    if (id === 'data') {
      const end = Math.min(wav.length, offset + 8 + size);
      const count = Math.floor((end - offset - 8) / 2);
      const out = new Float32Array(count);
      for (let i = 0; i < count; i++) out[i] = wav.readInt16LE(offset + 8 + i * 2) / 32768;
      return out;
    }
    offset += 8 + size + (size & 1);
  }
  throw new WorkError('eSpeak produced an unreadable WAV file', false);
}

// ---------------------------------------------------------------------------------------
// Voice profiles.

interface ParsedVoice {
  language: string;
  variant?: string;
}

function parseVoice(voice: string): ParsedVoice {
  const [lang = '', variant] = voice.trim().toLowerCase().split('+');
  const language = speechLanguage(lang) ?? 'en-us';
  return variant && variant in VARIANTS ? { language, variant } : { language };
}

function formatVoice(v: ParsedVoice): string {
  return v.variant ? `${v.language}+${v.variant}` : v.language;
}

/** Which language to speak: the requested one (an English request keeps the voice's English accent). */
function languageFor(profileLanguage: string, requested: string | undefined): string {
  if (!requested || requested.trim() === '' || requested.trim().toLowerCase() === 'auto') return profileLanguage;
  const tag = speechLanguage(requested) ?? 'en-us';
  const requestedBase = tag.split('-')[0];
  if (requestedBase === profileLanguage.split('-')[0] && !requested.includes('-')) return profileLanguage;
  return tag;
}

const WORDS = {
  deeper: {
    deep: -24,
    low: -18,
    baritone: -20,
    bass: -30,
    gravelly: -12,
    husky: -10,
    mature: -6,
    old: -8,
    elderly: -10,
  },
  higher: {
    high: 18,
    bright: 10,
    young: 12,
    youthful: 12,
    child: 28,
    kid: 26,
    girl: 10,
    boy: 10,
    squeaky: 30,
    teen: 10,
  },
  faster: { fast: 40, quick: 35, energetic: 30, excited: 30, lively: 25, upbeat: 22, rapid: 45, brisk: 25 },
  slower: {
    slow: -40,
    calm: -22,
    soothing: -28,
    relaxed: -22,
    gentle: -15,
    measured: -18,
    deliberate: -25,
    sleepy: -35,
  },
} as const;
const FEMALE_WORDS = ['female', 'woman', 'women', 'girl', 'lady', 'feminine', 'she', 'her', 'mother', 'grandmother'];
const MALE_WORDS = ['male', 'man', 'men', 'boy', 'guy', 'masculine', 'he', 'his', 'father', 'grandfather', 'gentleman'];
const TIMBRE_WORDS: Record<string, string> = {
  warm: 'warm',
  rich: 'resonant',
  resonant: 'resonant',
  booming: 'resonant',
  bright: 'bright',
  crisp: 'bright',
  clear: 'bright',
  soft: 'soft',
  gentle: 'soft',
  breathy: 'breathy',
  airy: 'breathy',
  raspy: 'raspy',
  gravelly: 'raspy',
  rough: 'raspy',
  hoarse: 'raspy',
};
const ACCENT_WORDS: Record<string, string> = {
  british: 'en-rp',
  english: 'en-rp',
  scottish: 'en-sc',
  northern: 'en-n',
  american: 'en-us',
};

/**
 * A designed voice from a free-text description: pitch, rate, gender, accent, language and
 * timbre follow the description's words; words it does not know shift pitch and rate a
 * little, deterministically in (description, seed).
 */
export function voiceFromDescription(description: string, seed?: string): VoiceProfile {
  const words = description.toLowerCase().match(/[a-z]+/g) ?? [];
  const known = new Set<string>();
  let pitch = 50;
  let rate = 170;
  let timbre: string | undefined;
  let accent: string | undefined;
  let language: string | undefined;
  let female = 0;
  let male = 0;
  let whisper = false;
  for (const w of words) {
    for (const table of Object.values(WORDS)) {
      const delta = (table as Record<string, number>)[w];
      if (delta === undefined) continue;
      if (table === WORDS.deeper || table === WORDS.higher) pitch += delta;
      else rate += delta;
      known.add(w);
    }
    if (FEMALE_WORDS.includes(w)) {
      female++;
      known.add(w);
    }
    if (MALE_WORDS.includes(w)) {
      male++;
      known.add(w);
    }
    if (w.startsWith('whisper')) {
      whisper = true;
      known.add(w);
    }
    const t = TIMBRE_WORDS[w];
    if (t && !timbre) {
      timbre = t;
      known.add(w);
    }
    const a = ACCENT_WORDS[w];
    if (a && !accent) {
      accent = a;
      known.add(w);
    }
    const lang = w.length > 3 ? LANGUAGE_ALIASES[w] : undefined;
    if (lang && !language && !ACCENT_WORDS[w]) {
      language = lang;
      known.add(w);
    }
  }
  const digest = sha256(`voice-design-v1\u0000${description.trim().toLowerCase()}\u0000${seed ?? ''}`);
  const rng = mulberry32(digest.readUInt32LE(0));
  // Unknown words still make the voice their own: a small, seeded pitch and rate offset.
  const unknown = words.filter((w) => !known.has(w) && w.length > 2).length;
  const jitter = Math.min(1, 0.35 + unknown * 0.1);
  pitch += (rng() * 2 - 1) * 8 * jitter;
  rate += (rng() * 2 - 1) * 14 * jitter;

  const isFemale = female > male || (female === male && pitch > 58) || (female === male && pitch >= 50 && rng() < 0.5);
  const pool = isFemale ? FEMALE_VARIANTS : MALE_VARIANTS;
  const variant = whisper ? (isFemale ? 'whisperf' : 'whisper') : pool[Math.floor(rng() * pool.length)];
  const profile: VoiceProfile = {
    voice: formatVoice({ language: language ?? accent ?? 'en-us', ...(variant ? { variant } : {}) }),
    pitch: Math.round(clamp(pitch, 0, 99)),
    rate: Math.round(clamp(rate, 90, 320)),
  };
  if (timbre) profile.timbre = timbre;
  return profile;
}

// ---------------------------------------------------------------------------------------
// Script parsing: pauses and emotion tags.

type Segment = { kind: 'text'; text: string; emotion: TtsEmotion } | { kind: 'pause'; seconds: number };

const PAUSE_TAGS = new Set(['pause', 'break', 'silence', 'long pause', 'short pause', 'beat']);
const MAX_PAUSE_SECONDS = 30;
/** `[tag]`, `[tag:value]` and MiniMax-style `<#1.5#>` pauses. */
const TAG = /\[\s*([a-z][a-z _-]*?)\s*(?::\s*([^\]]*))?\]|<#\s*([0-9]*\.?[0-9]+)\s*#>/gi;

function pauseSeconds(tag: string, value: string | undefined): number {
  if (value !== undefined) {
    const m = /^([0-9]*\.?[0-9]+)\s*(ms|s|sec|secs|seconds?)?$/i.exec(value.trim());
    if (m) {
      const n = Number(m[1]);
      return clamp(m[2]?.toLowerCase() === 'ms' ? n / 1000 : n, 0, MAX_PAUSE_SECONDS);
    }
  }
  if (tag === 'long pause') return 1.5;
  if (tag === 'short pause' || tag === 'beat') return 0.3;
  return 0.6;
}

/** Splits a script into spoken text and pauses; emotion tags change the emotion of the text after them. */
export function parseScript(text: string, emotion: TtsEmotion = 'neutral'): Segment[] {
  const segments: Segment[] = [];
  let current = emotion;
  let last = 0;
  const pushText = (raw: string): void => {
    const clean = raw.replace(/\s+/g, ' ').trim();
    if (/[\p{L}\p{N}]/u.test(clean)) segments.push({ kind: 'text', text: clean, emotion: current });
  };
  for (const m of text.matchAll(TAG)) {
    pushText(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[3] !== undefined) {
      segments.push({ kind: 'pause', seconds: clamp(Number(m[3]), 0, MAX_PAUSE_SECONDS) });
      continue;
    }
    const tag = (m[1] ?? '').toLowerCase().replace(/[_-]+/g, ' ').trim();
    if (PAUSE_TAGS.has(tag)) {
      segments.push({ kind: 'pause', seconds: pauseSeconds(tag, m[2]) });
    } else if ((TTS_EMOTIONS as readonly string[]).includes(tag)) {
      current = tag as TtsEmotion;
    } else if (EMOTION_ALIASES[tag]) {
      current = EMOTION_ALIASES[tag];
    }
    // Any other tag ([laughs], [music]) is stage direction: not read aloud.
  }
  pushText(text.slice(last));
  return segments;
}

/** Splits text into chunks of at most `max` characters at sentence, then clause, then word boundaries. */
function chunkText(text: string, max = 280): string[] {
  const sentences = text.match(/[^.!?。！？]+(?:[.!?。！？]+["')\]]*|$)\s*/g) ?? [text];
  const chunks: string[] = [];
  let current = '';
  const flush = (): void => {
    if (current.trim()) chunks.push(current.trim());
    current = '';
  };
  for (const sentence of sentences) {
    if (current.length + sentence.length <= max) {
      current += sentence;
      continue;
    }
    flush();
    if (sentence.length <= max) {
      current = sentence;
      continue;
    }
    for (const word of sentence.split(/(?<=[,;:])\s+|\s+/)) {
      if (current.length + word.length + 1 > max) flush();
      current += current ? ` ${word}` : word;
      while (current.length > max) {
        chunks.push(current.slice(0, max));
        current = current.slice(max);
      }
    }
    flush();
  }
  flush();
  return chunks;
}

// ---------------------------------------------------------------------------------------
// Synthesis.

interface EmotionStyle {
  /** Added to the 0..99 pitch. */
  pitch: number;
  /** Multiplies the rate. */
  rate: number;
  /** Multiplies the output gain. */
  gain: number;
  /** Added to the word gap (10 ms units). */
  wordGap: number;
}

const EMOTION_STYLES: Record<TtsEmotion, EmotionStyle> = {
  neutral: { pitch: 0, rate: 1, gain: 1, wordGap: 0 },
  happy: { pitch: 9, rate: 1.08, gain: 1.08, wordGap: 0 },
  excited: { pitch: 15, rate: 1.18, gain: 1.18, wordGap: 0 },
  sad: { pitch: -10, rate: 0.82, gain: 0.75, wordGap: 2 },
  angry: { pitch: 4, rate: 1.1, gain: 1.45, wordGap: 0 },
  fearful: { pitch: 13, rate: 1.12, gain: 0.85, wordGap: 1 },
  disgusted: { pitch: -6, rate: 0.9, gain: 1.0, wordGap: 1 },
  surprised: { pitch: 17, rate: 1.02, gain: 1.15, wordGap: 0 },
  calm: { pitch: -5, rate: 0.88, gain: 0.85, wordGap: 1 },
};

/** Applies a timbre colouring in place. */
function applyTimbre(samples: Float32Array, timbre: string | undefined, seed: number): void {
  if (!timbre) return;
  const sr = SPEECH_SAMPLE_RATE;
  switch (timbre) {
    case 'warm':
    case 'soft': {
      // Blend in a one-pole low-pass (cut-off ~2.2 kHz warm, ~1.6 kHz soft).
      const fc = timbre === 'warm' ? 2200 : 1600;
      const a = Math.exp((-2 * Math.PI * fc) / sr);
      const mix = timbre === 'warm' ? 0.45 : 0.6;
      let lp = 0;
      for (let i = 0; i < samples.length; i++) {
        const x = samples[i] ?? 0;
        lp = (1 - a) * x + a * lp;
        samples[i] = (1 - mix) * x + mix * lp * 1.15;
      }
      break;
    }
    case 'bright': {
      // Gentle pre-emphasis.
      let prev = 0;
      for (let i = 0; i < samples.length; i++) {
        const x = samples[i] ?? 0;
        samples[i] = 0.85 * x + 0.4 * (x - prev);
        prev = x;
      }
      break;
    }
    case 'breathy': {
      // Noise that follows the speech envelope.
      const rnd = mulberry32(seed);
      let env = 0;
      for (let i = 0; i < samples.length; i++) {
        const x = samples[i] ?? 0;
        env = Math.max(Math.abs(x), env * 0.999);
        samples[i] = x + (rnd() * 2 - 1) * env * 0.12;
      }
      break;
    }
    case 'raspy': {
      // Irregular amplitude modulation (vocal fry-like roughness), changing every ~8 ms.
      const rnd = mulberry32(seed);
      let g = 1;
      let target = 1;
      for (let i = 0; i < samples.length; i++) {
        if (i % 180 === 0) target = 0.65 + rnd() * 0.55;
        g += (target - g) * 0.02;
        samples[i] = (samples[i] ?? 0) * g;
      }
      break;
    }
    case 'resonant': {
      // A short room: two feedback-free early reflections.
      const d1 = Math.round(0.023 * sr);
      const d2 = Math.round(0.041 * sr);
      const src = Float32Array.from(samples);
      for (let i = 0; i < samples.length; i++) {
        samples[i] = (src[i] ?? 0) + 0.28 * (src[i - d1] ?? 0) + 0.16 * (src[i - d2] ?? 0);
      }
      break;
    }
    default:
      break;
  }
}

/** Multiplies by `gain`, then limits softly so nothing clips. */
function applyGain(samples: Float32Array, gain: number): void {
  const knee = 0.8;
  for (let i = 0; i < samples.length; i++) {
    const x = (samples[i] ?? 0) * gain;
    const ax = Math.abs(x);
    samples[i] = ax <= knee ? x : Math.sign(x) * (knee + (1 - knee) * Math.tanh((ax - knee) / (1 - knee)));
  }
}

function concat(parts: Float32Array[]): Float32Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Float32Array(total);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/**
 * Speaks `text` (a script: `[pause:1s]`, `<#0.5#>` and emotion tags such as `[excited]` are
 * honoured, other bracketed stage directions are skipped) in `profile`'s voice. A pure function
 * of its inputs: the same call gives the same bytes.
 */
export async function synthesizeSpeech(
  text: string,
  profile: VoiceProfile,
  opts: SpeechOptions = {},
): Promise<RenderedFile & { durationSeconds: number }> {
  const format = opts.format ?? 'mp3';
  if (!TTS_FORMATS.includes(format)) throw new WorkError(`Unsupported audio format: ${format}`, false);
  const speed = clamp(opts.speed ?? 1, 0.5, 2);
  const volume = clamp(opts.volume ?? 1, 0.1, 4);
  const base = parseVoice(profile.voice);
  const language = languageFor(base.language, opts.language);
  const segments = parseScript(text, ttsEmotion(opts.emotion ?? 'neutral'));
  if (!segments.some((s) => s.kind === 'text') && !segments.some((s) => s.kind === 'pause' && s.seconds > 0)) {
    throw new WorkError('There is no text to speak', false);
  }
  const seed = sha256(
    `speech-v1\u0000${text}\u0000${JSON.stringify(profile)}\u0000${JSON.stringify(opts)}`,
  ).readUInt32LE(0);

  const parts: Float32Array[] = [];
  for (const segment of segments) {
    if (segment.kind === 'pause') {
      parts.push(new Float32Array(Math.round(segment.seconds * SPEECH_SAMPLE_RATE)));
      continue;
    }
    const style = EMOTION_STYLES[segment.emotion];
    let rate = profile.rate * speed * style.rate;
    // Below eSpeak's slowest rate, stretch the gaps between words instead.
    const extraGap = rate < 80 ? Math.round((80 / rate - 1) * 25) : 0;
    rate = clamp(rate, 80, 450);
    const params: EspeakParams = {
      language,
      ...(base.variant ? { variant: base.variant } : {}),
      pitch: profile.pitch + style.pitch,
      rate,
      amplitude: profile.amplitude ?? 100,
      wordGap: (profile.wordGap ?? 0) + style.wordGap + extraGap,
    };
    const spoken: Float32Array[] = [];
    for (const chunk of chunkText(segment.text)) {
      spoken.push(espeak(chunk, params));
      await yieldToEventLoop();
    }
    const audio = concat(spoken);
    applyGain(audio, style.gain);
    parts.push(audio);
  }
  const samples = concat(parts);
  applyTimbre(samples, profile.timbre, seed);
  applyGain(samples, volume);
  const durationSeconds = samples.length / SPEECH_SAMPLE_RATE;
  if (samples.length === 0) throw new WorkError('There is no text to speak', false);
  const encoded = await encodeAudio({ samples, sampleRate: SPEECH_SAMPLE_RATE, channels: 1 }, format);
  return { ...encoded, contentType: TTS_CONTENT_TYPES[format], extension: format, durationSeconds };
}

// ---------------------------------------------------------------------------------------
// Analysis: pitch and speaking rate, for cloning (and for tests).

export interface SpeechAnalysis {
  /** Median fundamental frequency of voiced frames in Hz; 0 when nothing is voiced. */
  f0: number;
  /** Seconds of audio with speech-level energy. */
  activeSeconds: number;
  /** Seconds of periodic (voiced) audio. */
  voicedSeconds: number;
  /** Syllable nuclei (energy peaks) per second of active speech. */
  syllableRate: number;
  /** Root-mean-square level of the active frames (0..1). */
  level: number;
  /** Share of high-frequency energy in active frames (0..1): a brightness measure. */
  brightness: number;
}

const PITCH_RATE = 8000;

/** The first `n` samples low-passed (windowed-sinc, 3.4 kHz) and linearly resampled to PITCH_RATE. */
function resampleForPitch(samples: Float32Array, sampleRate: number, n: number): Float32Array {
  if (sampleRate <= PITCH_RATE) return samples.subarray(0, n);
  const half = 16;
  const fc = 3400 / sampleRate;
  const taps = new Float64Array(2 * half + 1);
  let sum = 0;
  for (let k = -half; k <= half; k++) {
    const sinc = k === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * k) / (Math.PI * k);
    const w = 0.5 + 0.5 * Math.cos((Math.PI * k) / (half + 1));
    taps[k + half] = sinc * w;
    sum += sinc * w;
  }
  const step = sampleRate / PITCH_RATE;
  const out = new Float32Array(Math.floor(n / step));
  const filtered = (i: number): number => {
    let acc = 0;
    for (let k = -half; k <= half; k++) acc += (taps[k + half] ?? 0) * (samples[i + k] ?? 0);
    return acc / sum;
  };
  for (let j = 0; j < out.length; j++) {
    const pos = j * step;
    const i = Math.floor(pos);
    const frac = pos - i;
    out[j] = (1 - frac) * filtered(i) + frac * filtered(i + 1);
  }
  return out;
}

/**
 * Estimates pitch by normalised autocorrelation (40 ms windows every 20 ms, 60..500 Hz,
 * first peak within 90% of the best to avoid octave errors) and speaking rate by counting
 * peaks of a smoothed, band-limited energy envelope (10 ms frames).
 */
export function analyzeSpeech(samples: Float32Array, sampleRate: number, maxSeconds = 30): SpeechAnalysis {
  const n = Math.min(samples.length, Math.floor(maxSeconds * sampleRate));
  // Band-limit (~250..3000 Hz) for the envelope: vowels carry the syllable rhythm.
  const band = new Float32Array(n);
  const hpA = Math.exp((-2 * Math.PI * 250) / sampleRate);
  const lpA = Math.exp((-2 * Math.PI * 3000) / sampleRate);
  let hpPrevX = 0;
  let hp = 0;
  let lp = 0;
  let hfEnergy = 0;
  let prevX = 0;
  for (let i = 0; i < n; i++) {
    const x = samples[i] ?? 0;
    hp = hpA * (hp + x - hpPrevX);
    hpPrevX = x;
    lp = (1 - lpA) * hp + lpA * lp;
    band[i] = lp;
    hfEnergy += (x - prevX) ** 2;
    prevX = x;
  }
  // 10 ms energy frames.
  const hop = Math.round(sampleRate / 100);
  const frames = Math.floor(n / hop);
  const rms = new Float64Array(frames);
  const bandRms = new Float64Array(frames);
  for (let f = 0; f < frames; f++) {
    let s = 0;
    let b = 0;
    for (let i = f * hop; i < (f + 1) * hop; i++) {
      s += (samples[i] ?? 0) ** 2;
      b += (band[i] ?? 0) ** 2;
    }
    rms[f] = Math.sqrt(s / hop);
    bandRms[f] = Math.sqrt(b / hop);
  }
  const sorted = Array.from(rms).sort((a, b) => a - b);
  const loud = sorted[Math.floor(sorted.length * 0.95)] ?? 0;
  const empty: SpeechAnalysis = { f0: 0, activeSeconds: 0, voicedSeconds: 0, syllableRate: 0, level: 0, brightness: 0 };
  if (loud < 0.003) return empty;
  const threshold = Math.max(loud * 0.1, 0.002);
  const active = Array.from(rms, (v) => v >= threshold);
  const activeFrames = active.filter(Boolean).length;
  let levelSum = 0;
  let totalEnergy = 0;
  for (let f = 0; f < frames; f++) {
    if (active[f]) levelSum += (rms[f] ?? 0) ** 2;
    totalEnergy += (rms[f] ?? 0) ** 2 * hop;
  }

  // Syllable nuclei: peaks of the smoothed band envelope in dB, at least 3 dB above the
  // dip since the previous peak and 80 ms apart.
  const env = new Float64Array(frames);
  for (let f = 0; f < frames; f++) {
    let s = 0;
    let c = 0;
    for (let k = f - 2; k <= f + 2; k++) {
      if (k >= 0 && k < frames) {
        s += bandRms[k] ?? 0;
        c++;
      }
    }
    env[f] = 20 * Math.log10(s / c + 1e-6);
  }
  const bandSorted = Array.from(env).sort((a, b) => a - b);
  const envFloor = (bandSorted[Math.floor(bandSorted.length * 0.95)] ?? -120) - 25;
  let peaks = 0;
  let dip = Number.POSITIVE_INFINITY;
  let lastPeak = -100;
  let candidate = -1;
  for (let f = 1; f < frames - 1; f++) {
    const v = env[f] ?? -120;
    dip = Math.min(dip, v);
    const isPeak = v >= (env[f - 1] ?? -120) && v > (env[f + 1] ?? -120) && v > envFloor && v - dip >= 3;
    if (isPeak && f - lastPeak >= 8) {
      peaks++;
      lastPeak = f;
      dip = v;
      candidate = f;
    } else if (isPeak && candidate >= 0 && v > (env[candidate] ?? -120)) {
      // Two maxima within 80 ms: keep the higher one as the syllable's peak.
      candidate = f;
      lastPeak = f;
      dip = v;
    }
  }

  // Pitch: normalised cross-correlation on 40 ms windows of the louder frames, computed on
  // a copy low-passed and resampled to PITCH_RATE (enough for 60..500 Hz, and cheap).
  const low = resampleForPitch(samples, sampleRate, n);
  const ratio = low.length / n;
  const minLag = Math.floor(PITCH_RATE / 500);
  const maxLag = Math.ceil(PITCH_RATE / 60);
  const win = Math.round(PITCH_RATE * 0.04);
  const step = 2; // every other 10 ms frame
  const seg = new Float64Array(win + maxLag + 2);
  const r = new Float64Array(maxLag + 2);
  const f0s: number[] = [];
  let voicedFrames = 0;
  for (let f = 0; f < frames; f += step) {
    if (!active[f] || (rms[f] ?? 0) < loud * 0.2) continue;
    const start = Math.floor(f * hop * ratio);
    if (start + seg.length > low.length) break;
    let mean = 0;
    for (let i = 0; i < seg.length; i++) mean += low[start + i] ?? 0;
    mean /= seg.length;
    for (let i = 0; i < seg.length; i++) seg[i] = (low[start + i] ?? 0) - mean;
    let e0 = 0;
    for (let i = 0; i < win; i++) e0 += (seg[i] ?? 0) ** 2;
    if (e0 <= 1e-9) continue;
    let eLag = 0;
    for (let i = minLag; i < minLag + win; i++) eLag += (seg[i] ?? 0) ** 2;
    let best = 0;
    for (let lag = minLag; lag <= maxLag + 1; lag++) {
      let c = 0;
      for (let i = 0; i < win; i++) c += (seg[i] ?? 0) * (seg[i + lag] ?? 0);
      const v = c / Math.sqrt(e0 * eLag + 1e-12);
      r[lag] = v;
      if (lag <= maxLag && v > best) best = v;
      eLag += (seg[lag + win] ?? 0) ** 2 - (seg[lag] ?? 0) ** 2;
    }
    if (best < 0.5) continue;
    for (let lag = minLag + 1; lag <= maxLag; lag++) {
      const v = r[lag] ?? 0;
      if (v >= best * 0.9 && v >= (r[lag - 1] ?? 0) && v >= (r[lag + 1] ?? 0)) {
        const a = r[lag - 1] ?? 0;
        const c = r[lag + 1] ?? 0;
        const denom = a - 2 * v + c;
        const shift = denom < 0 ? (0.5 * (a - c)) / denom : 0;
        f0s.push(PITCH_RATE / (lag + clamp(shift, -0.5, 0.5)));
        voicedFrames++;
        break;
      }
    }
  }
  f0s.sort((a, b) => a - b);
  return {
    f0: f0s.length > 0 ? (f0s[Math.floor(f0s.length / 2)] ?? 0) : 0,
    activeSeconds: activeFrames / 100,
    voicedSeconds: (voicedFrames * step) / 100,
    syllableRate: activeFrames > 0 ? peaks / (activeFrames / 100) : 0,
    level: activeFrames > 0 ? Math.sqrt(levelSum / activeFrames) : 0,
    brightness: totalEnergy > 0 ? clamp(hfEnergy / (4 * totalEnergy), 0, 1) : 0,
  };
}

// ---------------------------------------------------------------------------------------
// Cloning.

const CALIBRATION_TEXT =
  'The quick brown fox jumps over the lazy dog. Yesterday we visited a beautiful museum in the old city.';
const CALIBRATION_PITCHES = [0, 50, 99];
const CALIBRATION_RATES = [120, 175, 250];

interface Calibration {
  /** Measured F0 at each of CALIBRATION_PITCHES (rate 175). */
  f0: number[];
  /** Measured syllable rate at each of CALIBRATION_RATES (pitch 50). */
  syllableRate: number[];
}
const calibrations = new Map<string, Calibration>();

/**
 * How eSpeak's pitch scale and rate land on measured F0 and syllable rate for one voice,
 * measured once per voice by speaking a calibration text (five short runs, ~0.4 s).
 */
async function calibrate(voice: ParsedVoice): Promise<Calibration> {
  const key = formatVoice(voice);
  const cached = calibrations.get(key);
  if (cached) return cached;
  const base = { language: voice.language, ...(voice.variant ? { variant: voice.variant } : {}), amplitude: 100 };
  const measure = async (pitch: number, rate: number): Promise<SpeechAnalysis> => {
    const samples = espeak(CALIBRATION_TEXT, { ...base, pitch, rate, wordGap: 0 });
    await yieldToEventLoop();
    return analyzeSpeech(samples, SPEECH_SAMPLE_RATE);
  };
  const f0: number[] = [];
  const syllableRate: number[] = [];
  for (const pitch of CALIBRATION_PITCHES) {
    const analysis = await measure(pitch, 175);
    f0.push(analysis.f0);
    if (pitch === 50) syllableRate[1] = analysis.syllableRate;
  }
  syllableRate[0] = (await measure(50, CALIBRATION_RATES[0] ?? 120)).syllableRate;
  syllableRate[2] = (await measure(50, CALIBRATION_RATES[2] ?? 250)).syllableRate;
  const calibration = { f0, syllableRate };
  calibrations.set(key, calibration);
  return calibration;
}

/** Piecewise-linear interpolation of y at x through points sorted by x, extrapolating the end segments. */
function interpolate(points: Array<readonly [number, number]>, x: number): number {
  const usable = points.filter(([px, py]) => Number.isFinite(px) && Number.isFinite(py)).sort((a, b) => a[0] - b[0]);
  if (usable.length === 0) return Number.NaN;
  if (usable.length === 1) return usable[0]?.[1] ?? Number.NaN;
  let i = 1;
  while (i < usable.length - 1 && x > (usable[i]?.[0] ?? 0)) i++;
  const [x0, y0] = usable[i - 1] ?? [0, 0];
  const [x1, y1] = usable[i] ?? [1, 0];
  return x1 === x0 ? y0 : y0 + ((x - x0) / (x1 - x0)) * (y1 - y0);
}

/**
 * A cloned voice: the sample's pitch and speaking rate, measured and mapped onto eSpeak.
 * Fails (not retryably) when the sample cannot be decoded, is silent, or has no voice in it.
 */
export async function voiceFromSample(audio: Buffer): Promise<VoiceProfile> {
  if (audio.length === 0) throw new WorkError('The voice sample is empty', false);
  const samples = (await decodeAudio(audio, 16000)).samples.subarray(0, 16000 * 60);
  if (samples.length < 16000 * 0.3) throw new WorkError('The voice sample is too short (under 0.3 s)', false);
  const analysis = analyzeSpeech(samples, 16000);
  if (analysis.activeSeconds === 0) throw new WorkError('The voice sample is silent', false);
  if (analysis.f0 === 0 || analysis.voicedSeconds < 0.2) {
    throw new WorkError('No voice could be detected in the sample', false);
  }
  // Typical speaking F0 is ~85..155 Hz for men and ~165..255 Hz for women.
  const female = analysis.f0 >= 150;
  const voice: ParsedVoice = { language: 'en-us', variant: female ? 'f2' : 'm3' };
  const calibration = await calibrate(voice);
  const pitchPoints = CALIBRATION_PITCHES.map((p, i) => [Math.log(calibration.f0[i] || 1), p] as const);
  const pitch = Math.round(clamp(interpolate(pitchPoints, Math.log(analysis.f0)), 0, 99));
  const ratePoints = CALIBRATION_RATES.map((r, i) => [calibration.syllableRate[i] ?? Number.NaN, r] as const);
  const estimated = analysis.syllableRate > 0 ? interpolate(ratePoints, analysis.syllableRate) : Number.NaN;
  const rate = Math.round(clamp(Number.isFinite(estimated) ? estimated : 175, 90, 320));
  const profile: VoiceProfile = { voice: formatVoice(voice), pitch, rate };
  if (analysis.brightness > 0.12) profile.timbre = 'bright';
  else if (analysis.brightness < 0.035) profile.timbre = 'warm';
  return profile;
}
