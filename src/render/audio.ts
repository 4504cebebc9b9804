// Audio for the simulator provider: a shared PCM encoder/decoder around ffmpeg, and a small
// deterministic music synthesizer. A track is a pure function of its request: the style words
// pick the genre (tempo, drum pattern, instruments), the mood words the mode (minor for sad,
// dark or melancholic music, major otherwise), and the seed the key, chord progression and
// melodies. Songs with vocals get a voice-like line: a glottal-like tone through three vowel
// formant resonators that follow the lyrics' vowels, higher for female than male vocals.
// Everything is synthesized as Float32 PCM in JavaScript (table oscillators, per-note loops,
// pre-rendered drum hits) in a few hundred milliseconds for a 60 s track; the master section
// (delay, room, limiter) then streams slices to ffmpeg while it encodes the previous ones.

import {
  type BassTimbre,
  type DrumStyle,
  loadMusicGenres,
  type MusicGenre,
  type Timbre,
} from '../catalog/music-genres.ts';
import { AUDIO_ENCODINGS, type AudioFormat } from '../lib/audio.ts';
import { WorkError } from '../lib/errors.ts';
import { F32_FORMAT, probeFile, readOutput, runFfmpeg, tempInput, withTempDir } from '../lib/ffmpeg.ts';
import type { RenderedFile } from './file.ts';
import { Rng } from './random.ts';

/** Interleaved float PCM (-1..1). */
export interface Pcm {
  samples: Float32Array;
  sampleRate: number;
  channels: 1 | 2;
}

export type { AudioFormat };

function checkPcm(pcm: Pcm): number {
  if (!Number.isInteger(pcm.sampleRate) || pcm.sampleRate < 8000 || pcm.sampleRate > 192000) {
    throw new WorkError(`sample rate must be an integer from 8000 to 192000, got ${pcm.sampleRate}`, false);
  }
  if (pcm.channels !== 1 && pcm.channels !== 2) throw new WorkError('channels must be 1 or 2', false);
  if (pcm.samples.length === 0 || pcm.samples.length % pcm.channels !== 0) {
    throw new WorkError('audio must hold at least one whole sample frame', false);
  }
  return pcm.samples.length / pcm.channels;
}

/** Float samples as signed 16-bit little-endian with rounding and clipping. */
function toS16(samples: Float32Array): Buffer {
  const out = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    const v = samples[i] as number;
    out.writeInt16LE(Math.round(Math.max(-1, Math.min(1, Number.isNaN(v) ? 0 : v)) * 32767), i * 2);
  }
  return out;
}

/** Encodes float PCM as mp3 (libmp3lame), wav (16-bit), ogg (Vorbis), flac, aac (ADTS) or raw s16le 'pcm'. */
export async function encodeAudio(pcm: Pcm, format: AudioFormat): Promise<RenderedFile> {
  const frames = checkPcm(pcm);
  const durationSeconds = frames / pcm.sampleRate;
  if (format === 'pcm') {
    return { data: toS16(pcm.samples), contentType: 'audio/pcm', extension: 'pcm', durationSeconds };
  }
  const bytes = Buffer.from(pcm.samples.buffer, pcm.samples.byteOffset, pcm.samples.byteLength);
  return encodeStream([bytes], pcm.sampleRate, pcm.channels, format, durationSeconds);
}

/**
 * Encodes interleaved Float32 PCM bytes arriving in chunks: ffmpeg starts at once, so its
 * start-up and the encoding overlap with whatever produces the chunks.
 */
async function encodeStream(
  chunks: Iterable<Buffer> | AsyncIterable<Buffer>,
  sampleRate: number,
  channels: 1 | 2,
  format: Exclude<AudioFormat, 'pcm'>,
  durationSeconds: number,
): Promise<RenderedFile> {
  const spec = AUDIO_ENCODINGS[format];
  if (!spec) throw new WorkError(`unsupported audio format '${String(format)}'`, false);
  // Codecs with a fixed set of rates get the nearest higher one (44.1 kHz when none is).
  const rate =
    spec.rates && !spec.rates.includes(sampleRate) ? (spec.rates.find((r) => r > sampleRate) ?? 44100) : sampleRate;
  const data = await withTempDir(async (dir) => {
    const output = `${dir}/output.${format}`;
    await runFfmpeg(
      [
        '-f',
        F32_FORMAT,
        '-ar',
        String(sampleRate),
        '-ac',
        String(channels),
        '-i',
        'pipe:0',
        ...(rate === sampleRate ? [] : ['-ar', String(rate)]),
        ...spec.args,
        '-fflags',
        '+bitexact',
        '-flags:a',
        '+bitexact',
        '-y',
        output,
      ],
      { stdin: chunks, what: `${format} encoding`, timeoutMs: 60_000 + durationSeconds * 500 },
    );
    return readOutput(output, `${format} encoding`);
  });
  return { data, contentType: spec.contentType, extension: format, durationSeconds };
}

/** Decodes any audio (or the sound of a video) to mono float PCM, at `sampleRate` or the file's own rate. */
export async function decodeAudio(
  data: Buffer,
  sampleRate?: number,
): Promise<{ samples: Float32Array; sampleRate: number }> {
  if (sampleRate !== undefined && (!Number.isInteger(sampleRate) || sampleRate < 1000 || sampleRate > 192000)) {
    throw new WorkError(`sample rate must be an integer from 1000 to 192000, got ${sampleRate}`, false);
  }
  if (data.length === 0) throw new WorkError('audio could not be decoded: empty input', false);
  return withTempDir(async (dir) => {
    const input = await tempInput(dir, 'input', data);
    const probe = await probeFile(input);
    if (!probe.hasAudio) throw new WorkError('audio could not be decoded: no audio stream', false);
    const rate = sampleRate ?? probe.sampleRate ?? 44100;
    const raw = await runFfmpeg(['-i', input, '-vn', '-ac', '1', '-ar', String(rate), '-f', F32_FORMAT, 'pipe:1'], {
      what: 'audio decoding',
      timeoutMs: 60_000 + probe.durationSeconds * 200,
    });
    // Copy into an aligned buffer (a Buffer's offset need not be a multiple of 4).
    const samples = new Float32Array(Math.floor(raw.length / 4));
    new Uint8Array(samples.buffer).set(raw.subarray(0, samples.length * 4));
    return { samples, sampleRate: rate };
  });
}

// ---------------------------------------------------------------------------------------
// Music: reading the request.

/** Bumped whenever the synthesis changes, so old and new outputs never share a key by accident. */
const MUSIC_VERSION = 'sim-music-v1';
const SAMPLE_RATE = 44100;
const MAX_MUSIC_SECONDS = 600;

type Genre = MusicGenre;

// The genres are catalog data, read once.
const GENRES: readonly Genre[] = loadMusicGenres();

const DEFAULT_GENRE = GENRES.find((g) => g.name === 'pop') as Genre;

const MINOR_WORDS = new Set(
  'sad dark melancholic melancholy minor somber sombre gloomy moody haunting tragic lonely heartbreak heartbroken tears eerie sinister mysterious grief sorrow mournful bittersweet brooding ominous gothic goth horror doom'.split(
    ' ',
  ),
);
const MAJOR_WORDS = new Set(
  'happy uplifting bright major cheerful joyful sunny hopeful playful triumphant fun euphoric carefree sweet'.split(
    ' ',
  ),
);
const SLOW_WORDS = new Set(
  'slow sad chill calm relaxing relaxed sleepy dreamy gentle soft mellow melancholic melancholy somber peaceful lazy'.split(
    ' ',
  ),
);
const FAST_WORDS = new Set(
  'fast energetic upbeat hype aggressive intense driving frantic party powerful uptempo furious explosive'.split(' '),
);

/** Lower case, '&' as 'and', hyphens and punctuation as spaces: "Drum-&-Bass" → "drum and bass". */
function normalizeText(text: string): string {
  return ` ${text
    .toLowerCase()
    .replaceAll('&', ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()} `;
}

/** What the synthesizer makes of a request: genre, tempo, mode and key. */
export interface MusicPlan {
  genre: string;
  bpm: number;
  mode: 'major' | 'minor';
  /** Pitch class of the key's tonic, 0 = C. */
  tonic: number;
}

/** Reads genre, tempo and mode from the style (and title) words; the seed picks what they leave open. */
export function planMusic(req: Pick<MusicRequest, 'title' | 'style' | 'seed' | 'model'>): MusicPlan {
  const { genreSpec: _, ...plan } = resolvePlan(req);
  return plan;
}

function resolvePlan(req: Pick<MusicRequest, 'title' | 'style' | 'seed' | 'model'>): MusicPlan & { genreSpec: Genre } {
  const style = normalizeText(req.style);
  const all = normalizeText(`${req.style} ${req.title}`);
  // The genre named earliest in the style wins; the title is a fallback.
  let best: { genre: Genre; at: number } | undefined;
  for (const text of [style, all]) {
    for (const genre of GENRES) {
      for (const word of genre.words) {
        const at = text.indexOf(` ${word} `);
        if (at >= 0 && (!best || at < best.at)) best = { genre, at };
      }
    }
    if (best) break;
  }
  const genre = best?.genre ?? DEFAULT_GENRE;
  const rng = Rng.from(MUSIC_VERSION, 'plan', req.style, req.title, req.seed, req.model);
  const words = all.trim().split(' ');
  let tempoScale = 1;
  let minor = 0;
  let major = 0;
  for (const word of words) {
    if (SLOW_WORDS.has(word)) tempoScale *= 0.93;
    if (FAST_WORDS.has(word)) tempoScale *= 1.07;
    if (MINOR_WORDS.has(word)) minor++;
    if (MAJOR_WORDS.has(word)) major++;
  }
  tempoScale = Math.min(1.2, Math.max(0.8, tempoScale));
  const explicit = /(\d{2,3}) ?bpm/.exec(all);
  const bpm = explicit
    ? Math.min(220, Math.max(40, Number(explicit[1])))
    : Math.round(rng.range(genre.bpm[0], genre.bpm[1]) * tempoScale);
  return {
    genre: genre.name,
    bpm,
    mode: minor > major ? 'minor' : 'major',
    tonic: rng.int(12),
    genreSpec: genre,
  };
}

// ---------------------------------------------------------------------------------------
// Music: synthesis primitives.

const TABLE_SIZE = 4096;
const SINE = new Float32Array(TABLE_SIZE + 1);
for (let i = 0; i <= TABLE_SIZE; i++) SINE[i] = Math.sin((2 * Math.PI * i) / TABLE_SIZE);

/** Sine of a phase in cycles (table lookup with linear interpolation). */
function sin1(phase: number): number {
  const p = (phase - Math.floor(phase)) * TABLE_SIZE;
  const i = p | 0;
  const a = SINE[i] as number;
  return a + ((SINE[i + 1] as number) - a) * (p - i);
}

/** PolyBLEP correction for a discontinuity at phase 0. */
function blep(t: number, dt: number): number {
  if (t < dt) {
    const x = t / dt;
    return x + x - x * x - 1;
  }
  if (t > 1 - dt) {
    const x = (t - 1) / dt;
    return x * x + x + x + 1;
  }
  return 0;
}

function midiToHz(note: number): number {
  return 440 * 2 ** ((note - 69) / 12);
}

/** One-pole low-pass coefficient for a cutoff in Hz. */
function lowpassCoefficient(cutoff: number): number {
  return 1 - Math.exp((-2 * Math.PI * Math.min(cutoff, SAMPLE_RATE * 0.45)) / SAMPLE_RATE);
}

/** The stereo mix being built. */
interface Mix {
  left: Float32Array;
  right: Float32Array;
}

interface Note {
  /** Start, in samples. */
  start: number;
  /** Held length, in samples (the release rings on after it). */
  length: number;
  midi: number;
  velocity: number;
  /** -1 (left) .. 1 (right). */
  pan: number;
}

function panGains(pan: number): [number, number] {
  const angle = ((Math.max(-1, Math.min(1, pan)) + 1) * Math.PI) / 4;
  return [Math.cos(angle), Math.sin(angle)];
}

/** Renders one instrument note into the mix. */
function renderNote(mix: Mix, note: Note, timbre: Timbre | BassTimbre, rng: Rng): void {
  const total = mix.left.length;
  const f = midiToHz(note.midi);
  const dt = f / SAMPLE_RATE;
  const [gl, gr] = panGains(note.pan);
  const start = note.start;
  const gate = note.length;
  const seconds = (s: number) => Math.round(s * SAMPLE_RATE);
  const L = mix.left;
  const R = mix.right;
  const vel = note.velocity;

  switch (timbre) {
    case 'pad': {
      const attack = Math.max(1, Math.min(seconds(0.6), Math.floor(gate * 0.3)));
      const release = seconds(0.8);
      const n = Math.min(total - start, gate + release);
      let phase1 = rng.next();
      let phase2 = rng.next();
      let phase3 = rng.next();
      for (let i = 0; i < n; i++) {
        const env = i < attack ? i / attack : i < gate ? 1 : 1 - (i - gate) / release;
        const v = sin1(phase1) + 0.6 * sin1(phase2) + 0.25 * sin1(phase3);
        phase1 += dt;
        phase2 += dt * 1.004;
        phase3 += dt * 2.001;
        const out = v * env * vel * 0.45;
        L[start + i] = (L[start + i] as number) + out * gl;
        R[start + i] = (R[start + i] as number) + out * gr;
      }
      return;
    }
    case 'organ': {
      const release = seconds(0.06);
      const n = Math.min(total - start, gate + release);
      let phase = 0;
      for (let i = 0; i < n; i++) {
        const env = i < 200 ? i / 200 : i < gate ? 1 : 1 - (i - gate) / release;
        const v = sin1(phase) + 0.5 * sin1(2 * phase) + 0.3 * sin1(3 * phase) + 0.15 * sin1(4 * phase);
        phase += dt;
        const out = v * env * vel * 0.4;
        L[start + i] = (L[start + i] as number) + out * gl;
        R[start + i] = (R[start + i] as number) + out * gr;
      }
      return;
    }
    case 'epiano':
    case 'bell': {
      const bell = timbre === 'bell';
      const ratio = bell ? 3.5 : 1;
      const decay = Math.exp(-1 / (SAMPLE_RATE * (bell ? 2.2 : 1.4)));
      const indexDecay = Math.exp(-1 / (SAMPLE_RATE * (bell ? 0.8 : 0.25)));
      const release = seconds(bell ? 0.6 : 0.12);
      const n = Math.min(total - start, gate + release, seconds(bell ? 5 : 3));
      let amp = 1;
      let index = bell ? 2.2 : 1.6;
      let phase = 0;
      for (let i = 0; i < n; i++) {
        const off = i < gate ? 1 : 1 - (i - gate) / release;
        const v = sin1(phase + (index / (2 * Math.PI)) * sin1(phase * ratio));
        phase += dt;
        amp *= decay;
        index *= indexDecay;
        const out = v * amp * off * vel * (i < 40 ? i / 40 : 1) * 0.5;
        L[start + i] = (L[start + i] as number) + out * gl;
        R[start + i] = (R[start + i] as number) + out * gr;
      }
      return;
    }
    case 'piano': {
      const release = seconds(0.25);
      const n = Math.min(total - start, gate + release, seconds(3.5));
      const decays = [1.6, 0.9, 0.5, 0.3].map((s) =>
        Math.exp(-1 / (SAMPLE_RATE * s * (220 / Math.max(f, 110)) ** 0.3)),
      );
      const amps = [1, 0.45, 0.22, 0.1];
      let phase = 0;
      for (let i = 0; i < n; i++) {
        const off = i < gate ? 1 : 1 - (i - gate) / release;
        let v = 0;
        for (let h = 0; h < 4; h++) {
          v += (amps[h] as number) * sin1(phase * (h + 1) * (1 + 0.0004 * h * h));
          amps[h] = (amps[h] as number) * (decays[h] as number);
        }
        phase += dt;
        const out = v * off * vel * (i < 30 ? i / 30 : 1) * 0.45;
        L[start + i] = (L[start + i] as number) + out * gl;
        R[start + i] = (R[start + i] as number) + out * gr;
      }
      return;
    }
    case 'pluck': {
      // Karplus-Strong: a noise burst circulating in a delay line one period long.
      const period = Math.max(2, Math.round(SAMPLE_RATE / f));
      const line = new Float32Array(period);
      let smooth = 0;
      for (let i = 0; i < period; i++) {
        smooth += (rng.signed() - smooth) * 0.6;
        line[i] = smooth;
      }
      const release = seconds(0.08);
      const n = Math.min(total - start, gate + release, seconds(2.5));
      const damping = 0.996;
      let previous = 0;
      for (let i = 0; i < n; i++) {
        const k = i % period;
        const current = line[k] as number;
        const v = (current + previous) * 0.5 * damping;
        previous = current;
        line[k] = v;
        const off = i < gate ? 1 : 1 - (i - gate) / release;
        const out = v * off * vel * 0.9;
        L[start + i] = (L[start + i] as number) + out * gl;
        R[start + i] = (R[start + i] as number) + out * gr;
      }
      return;
    }
    case 'saw':
    case 'square':
    case 'distorted': {
      const release = seconds(timbre === 'distorted' ? 0.05 : 0.09);
      const n = Math.min(total - start, gate + release);
      const decay = Math.exp(-1 / (SAMPLE_RATE * 0.18));
      let t1 = rng.next();
      let t2 = rng.next();
      let low = 0;
      let cutoffEnv = 1;
      let coefficient = 0;
      for (let i = 0; i < n; i++) {
        if ((i & 31) === 0) {
          const cutoff = timbre === 'distorted' ? 3200 : f * 2 + 900 + 4000 * cutoffEnv;
          coefficient = lowpassCoefficient(cutoff);
        }
        cutoffEnv *= decay;
        let v: number;
        if (timbre === 'square') {
          const t3 = t1 + 0.5 - Math.floor(t1 + 0.5);
          v = (t1 < 0.5 ? 1 : -1) + blep(t1, dt) - blep(t3, dt);
        } else {
          v = 2 * t1 - 1 - blep(t1, dt) + (2 * t2 - 1 - blep(t2, dt * 1.006));
          v *= 0.6;
          if (timbre === 'distorted') v = Math.tanh(v * 3);
        }
        t1 += dt;
        if (t1 >= 1) t1 -= 1;
        t2 += dt * 1.006;
        if (t2 >= 1) t2 -= 1;
        low += (v - low) * coefficient;
        const env = i < 120 ? i / 120 : i < gate ? 0.75 + 0.25 * cutoffEnv : (1 - (i - gate) / release) * 0.75;
        const out = low * env * vel * 0.3;
        L[start + i] = (L[start + i] as number) + out * gl;
        R[start + i] = (R[start + i] as number) + out * gr;
      }
      return;
    }
    case 'sine':
    case '808': {
      const is808 = timbre === '808';
      const release = seconds(is808 ? 0.15 : 0.06);
      const n = Math.min(total - start, gate + release);
      const decay = Math.exp(-1 / (SAMPLE_RATE * (is808 ? 0.9 : 4)));
      let amp = 1;
      let phase = 0;
      for (let i = 0; i < n; i++) {
        const drop = is808 && i < 1500 ? 1 + 0.6 * (1 - i / 1500) ** 2 : 1;
        let v = sin1(phase) + 0.25 * sin1(2 * phase);
        if (is808) v = Math.tanh(v * 1.6);
        phase += dt * drop;
        amp *= decay;
        const off = i < gate ? 1 : 1 - (i - gate) / release;
        const out = v * amp * off * vel * (i < 60 ? i / 60 : 1) * 0.55;
        L[start + i] = (L[start + i] as number) + out * gl;
        R[start + i] = (R[start + i] as number) + out * gr;
      }
      return;
    }
  }
}

/** Vowel formants (Hz) of an adult male voice: F1, F2, F3. */
const VOWELS: Record<string, [number, number, number]> = {
  a: [730, 1090, 2440],
  e: [530, 1840, 2480],
  i: [300, 2250, 3000],
  o: [570, 840, 2410],
  u: [320, 870, 2240],
};

interface Syllable {
  vowel: keyof typeof VOWELS;
  /** The consonant the syllable starts with: a hiss, a click, or none. */
  onset: 'fricative' | 'plosive' | 'voiced' | 'none';
}

const FRICATIVES = new Set('sfhzvcxj'.split(''));
const PLOSIVES = new Set('ptkbdgq'.split(''));

/** Splits lyrics into sung syllables (one per vowel group); other scripts get a vowel per character. */
function syllables(lyrics: string): Syllable[] {
  const text = lyrics
    .replace(/\[[^\]]*\]|\([^)]*\)/g, ' ')
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}/gu, '');
  const out: Syllable[] = [];
  for (const word of text.match(/\p{L}+/gu) ?? []) {
    if (!/[a-z]/.test(word)) {
      for (const ch of word)
        out.push({ vowel: 'aeiou'[(ch.codePointAt(0) ?? 0) % 5] as Syllable['vowel'], onset: 'voiced' });
      continue;
    }
    const groups = word.match(/[^aeiouy]*[aeiouy]+/g) ?? [word];
    for (const group of groups) {
      const vowelChar = /[aeiou]/.exec(group)?.[0] ?? 'i';
      const first = group[0] ?? '';
      const onset = /[aeiouy]/.test(first)
        ? 'none'
        : FRICATIVES.has(first)
          ? 'fricative'
          : PLOSIVES.has(first)
            ? 'plosive'
            : 'voiced';
      out.push({ vowel: vowelChar as Syllable['vowel'], onset });
    }
  }
  return out;
}

/** Two-pole resonator coefficients. */
interface Resonator {
  b0: number;
  a1: number;
  a2: number;
}

function resonator(freq: number, bandwidth: number): Resonator {
  const r = Math.exp((-Math.PI * bandwidth) / SAMPLE_RATE);
  return {
    b0: 1 - r,
    a1: 2 * r * Math.cos((2 * Math.PI * Math.min(freq, SAMPLE_RATE * 0.45)) / SAMPLE_RATE),
    a2: -r * r,
  };
}

/** Sings one syllable: a bright glottal-like tone with vibrato through three formant resonators. */
function renderVocalNote(
  mix: Mix,
  note: Note,
  syllable: Syllable,
  formantScale: number,
  glideFrom: number,
  rng: Rng,
): void {
  const total = mix.left.length;
  const n = Math.min(total - note.start, note.length + Math.round(0.06 * SAMPLE_RATE));
  if (n <= 0) return;
  const [gl, gr] = panGains(note.pan);
  const formants = VOWELS[syllable.vowel] ?? (VOWELS.a as [number, number, number]);
  const r1 = resonator(formants[0] * formantScale, 90);
  const r2 = resonator(formants[1] * formantScale, 110);
  const r3 = resonator(formants[2] * formantScale, 170);
  let a1 = 0;
  let a2 = 0;
  let b1 = 0;
  let b2 = 0;
  let c1 = 0;
  let c2 = 0;
  const target = midiToHz(note.midi);
  const from = midiToHz(glideFrom);
  const glide = Math.round(0.05 * SAMPLE_RATE);
  const attack = Math.round(0.025 * SAMPLE_RATE);
  const release = Math.round(0.06 * SAMPLE_RATE);
  const consonant =
    syllable.onset === 'fricative'
      ? Math.round(0.06 * SAMPLE_RATE)
      : syllable.onset === 'plosive'
        ? Math.round(0.015 * SAMPLE_RATE)
        : 0;
  const hissGain = syllable.onset === 'plosive' ? 0.9 : 0.35;
  const voiceStart = consonant * 0.6;
  const vibratoRate = 5.2 + rng.next() * 0.8;
  let phase = rng.next();
  // A cheap inline noise source (xorshift32), seeded from the note's stream.
  let noiseState = (rng.int(0x7fffffff) | 1) >>> 0;
  let tilt = 0;
  let previousNoise = 0;
  const outGain = note.velocity * 0.5;
  for (let i = 0; i < n; i++) {
    const t = i / SAMPLE_RATE;
    const glideMix = i < glide ? i / glide : 1;
    const vibrato = t > 0.18 ? 0.018 * Math.min(1, (t - 0.18) * 4) * sin1(vibratoRate * t) : 0;
    const dt = ((from + (target - from) * glideMix) * (1 + vibrato)) / SAMPLE_RATE;
    phase += dt;
    if (phase >= 1) phase -= 1;
    // Sawtooth with a gentle roll-off plus breath: a rough glottal source.
    tilt += (2 * phase - 1 - blep(phase, dt) - tilt) * 0.35;
    noiseState ^= noiseState << 13;
    noiseState ^= noiseState >>> 17;
    noiseState ^= noiseState << 5;
    const noise = (noiseState >>> 0) / 2147483648 - 1;
    const voicedEnv =
      i < voiceStart
        ? 0
        : i - voiceStart < attack
          ? (i - voiceStart) / attack
          : i < note.length
            ? 1
            : Math.max(0, 1 - (i - note.length) / release);
    const source = (tilt + noise * 0.04) * voicedEnv;
    // Three formant resonators in parallel.
    const y1 = r1.b0 * source + r1.a1 * a1 + r1.a2 * a2;
    a2 = a1;
    a1 = y1;
    const y2 = r2.b0 * source + r2.a1 * b1 + r2.a2 * b2;
    b2 = b1;
    b1 = y2;
    const y3 = r3.b0 * source + r3.a1 * c1 + r3.a2 * c2;
    c2 = c1;
    c1 = y3;
    let hiss = 0;
    if (i < consonant) {
      // High-passed noise for the consonant: a hiss that fades as the vowel starts.
      hiss = (noise - previousNoise) * (1 - i / consonant) * hissGain;
      previousNoise = noise;
    }
    const out = ((y1 + 0.55 * y2 + 0.3 * y3) * 4.5 + hiss) * outGain;
    const p = note.start + i;
    mix.left[p] = (mix.left[p] as number) + out * gl;
    mix.right[p] = (mix.right[p] as number) + out * gr;
  }
}

type DrumName = 'kick' | 'snare' | 'clap' | 'hat' | 'open' | 'tom' | 'ride' | 'rim';

/** Pre-rendered drum hits (deterministic noise). */
function drumKit(rng: Rng, genre: Genre): Record<DrumName, Float32Array> {
  const sr = SAMPLE_RATE;
  const make = (seconds: number, fn: (t: number, i: number) => number) => {
    const out = new Float32Array(Math.round(seconds * sr));
    for (let i = 0; i < out.length; i++) out[i] = fn(i / sr, i);
    return out;
  };
  const noise = () => rng.signed();
  let phase = 0;
  const electronic = genre.drums === 'four' || genre.drums === 'trap' || genre.drums === 'halftime';
  const kick = make(0.45, (t) => {
    const f = 45 + (electronic ? 110 : 80) * Math.exp(-t * 28);
    phase += f / sr;
    return Math.tanh(1.5 * sin1(phase) * Math.exp(-t * (electronic ? 6 : 9))) + (t < 0.003 ? noise() * 0.3 : 0);
  });
  let lastNoise = 0;
  const highNoise = () => {
    const x = noise();
    const y = x - lastNoise;
    lastNoise = x;
    return y * 0.5;
  };
  let snarePhase = 0;
  const snare = make(0.3, (t) => {
    snarePhase += 190 / sr;
    return 0.45 * sin1(snarePhase) * Math.exp(-t * 30) + 0.6 * noise() * Math.exp(-t * 16);
  });
  const clap = make(0.3, (t) => {
    const burst = t < 0.03 ? Math.exp(-((t * 1000) % 10) / 2.5) : Math.exp(-(t - 0.03) * 14);
    return highNoise() * burst * 1.4;
  });
  const hat = make(0.06, (t) => highNoise() * Math.exp(-t * 70));
  const open = make(0.35, (t) => highNoise() * Math.exp(-t * 9));
  let tomPhase = 0;
  const tom = make(0.6, (t) => {
    tomPhase += (80 + 40 * Math.exp(-t * 20)) / sr;
    return sin1(tomPhase) * Math.exp(-t * 6) + 0.1 * noise() * Math.exp(-t * 30);
  });
  const ride = make(0.8, (t) => {
    return (highNoise() * 0.6 + 0.15 * sin1(t * 3140) * sin1(t * 4670)) * Math.exp(-t * 5);
  });
  const rim = make(0.05, (t) => (sin1(t * 1700) * 0.6 + highNoise() * 0.5) * Math.exp(-t * 90));
  return { kick, snare, clap, hat, open, tom, ride, rim };
}

/** 16-step patterns per drum: 'x' a hit, 'o' a soft hit. */
const PATTERNS: Record<Exclude<DrumStyle, 'none'>, Partial<Record<DrumName, string>>> = {
  four: { kick: 'x...x...x...x...', clap: '....x.......x...', hat: 'oooooooooooooooo', open: '..x...x...x...x.' },
  pop: { kick: 'x.....x.x.......', snare: '....x.......x...', hat: 'x.o.x.o.x.o.x.o.' },
  rock: { kick: 'x.......x.x.....', snare: '....x.......x...', hat: 'x.x.x.x.x.x.x.x.' },
  metal: { kick: 'xxxxxxxxxxxxxxxx', snare: '....x.......x...', hat: 'x...x...x...x...' },
  punk: { kick: 'x...x...x...x...', snare: '..x...x...x...x.', hat: 'x.x.x.x.x.x.x.x.' },
  ballad: { kick: 'x.........x.....', snare: '........x.......', hat: 'o...o...o...o...' },
  boombap: { kick: 'x.......x.x.....', snare: '....x.......x...', hat: 'x.o.x.o.x.o.x.o.' },
  trap: { kick: 'x......x..x.....', snare: '........x.......', hat: 'xoxoxoxoxoxoxxxx' },
  halftime: { kick: 'x.........x.....', snare: '........x.......', hat: 'x.o.x.o.x.o.x.o.' },
  dnb: { kick: 'x.........x.....', snare: '....x.......x...', hat: 'x.x.x.x.x.x.x.x.' },
  jazz: { kick: 'o...............', rim: '......o.......o.', ride: 'x...x.x.x...x.x.', hat: '....o.......o...' },
  onedrop: { kick: '........x.......', rim: '........x.......', hat: '..x...x...x...x.' },
  folk: { kick: 'x.......x.......', snare: '....o.......o...', hat: 'o.o.o.o.o.o.o.o.' },
  cinematic: { tom: 'x.....x...x.....', snare: '........x.......', kick: 'x...............' },
};

const DRUM_GAINS: Record<DrumName, number> = {
  kick: 0.95,
  snare: 0.55,
  clap: 0.5,
  hat: 0.22,
  open: 0.18,
  tom: 0.6,
  ride: 0.2,
  rim: 0.35,
};
const DRUM_PANS: Record<DrumName, number> = {
  kick: 0,
  snare: 0.05,
  clap: -0.05,
  hat: 0.35,
  open: 0.35,
  tom: -0.2,
  ride: -0.35,
  rim: 0.15,
};

function addHit(mix: Mix, sample: Float32Array, start: number, gain: number, pan: number): void {
  const [gl, gr] = panGains(pan);
  const n = Math.min(sample.length, mix.left.length - start);
  for (let i = 0; i < n; i++) {
    const v = (sample[i] as number) * gain;
    mix.left[start + i] = (mix.left[start + i] as number) + v * gl;
    mix.right[start + i] = (mix.right[start + i] as number) + v * gr;
  }
}

// ---------------------------------------------------------------------------------------
// Music: arrangement.

/** A music request: the text of a song and how long it is. */
export interface MusicRequest {
  title: string;
  /** Genre and mood words ('sad piano ballad', 'energetic edm, 128 bpm'). */
  style: string;
  /** Sung when not instrumental; [Verse] tags and (directions) are skipped. */
  lyrics?: string;
  instrumental: boolean;
  vocalGender?: 'm' | 'f';
  seed: number;
  /** Above 0, at most 600. */
  durationSeconds: number;
  model: string;
}

const MAJOR_SCALE = [0, 2, 4, 5, 7, 9, 11];
const MINOR_SCALE = [0, 2, 3, 5, 7, 8, 10];
const MAJOR_PROGRESSIONS = [
  [0, 4, 5, 3],
  [0, 5, 3, 4],
  [0, 3, 4, 4],
  [5, 3, 0, 4],
  [0, 3, 0, 4],
  [0, 4, 3, 4],
];
const MINOR_PROGRESSIONS = [
  [0, 5, 2, 6],
  [0, 3, 4, 0],
  [0, 6, 5, 6],
  [0, 5, 3, 4],
  [0, 3, 6, 2],
  [0, 2, 5, 4],
];
const DEFAULT_SYLLABLES: Syllable[] = [
  { vowel: 'o', onset: 'none' },
  { vowel: 'a', onset: 'voiced' },
  { vowel: 'a', onset: 'voiced' },
  { vowel: 'e', onset: 'voiced' },
];

/** MIDI note of scale degree `degree` (any integer, wrapping octaves) above `base`. */
function degreeToMidi(scale: readonly number[], base: number, degree: number): number {
  const octave = Math.floor(degree / 7);
  const step = ((degree % 7) + 7) % 7;
  return base + 12 * octave + (scale[step] as number);
}

/** Renders a deterministic stereo 44.1 kHz MP3 whose genre, tempo, mode and voice follow the request. */
export async function renderMusic(req: MusicRequest): Promise<RenderedFile> {
  if (!Number.isFinite(req.durationSeconds) || req.durationSeconds <= 0 || req.durationSeconds > MAX_MUSIC_SECONDS) {
    throw new WorkError(
      `duration must be above 0 and at most ${MAX_MUSIC_SECONDS} s, got ${req.durationSeconds}`,
      false,
    );
  }
  if (!Number.isFinite(req.seed)) throw new WorkError(`seed must be a finite number, got ${req.seed}`, false);
  const frames = Math.max(1, Math.round(req.durationSeconds * SAMPLE_RATE));
  // The mastered PCM streams to the encoder in slices while ffmpeg works on the previous ones.
  return encodeStream(musicChunks(req), SAMPLE_RATE, 2, 'mp3', frames / SAMPLE_RATE);
}

/** The track as interleaved stereo Float32 bytes, in slices of about 0.1 s. */
function* musicChunks(req: MusicRequest): Generator<Buffer> {
  const { mix, genre, bpm, rng } = arrange(req);
  const process = masterChain(mix, genre, bpm, rng);
  const total = mix.left.length;
  const slice = 4096;
  for (let from = 0; from < total; from += slice) {
    const samples = process(from, Math.min(total, from + slice));
    yield Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  }
}

/** Every note of the track, mixed dry into left and right at 44.1 kHz. */
function arrange(req: MusicRequest): { mix: Mix; genre: Genre; bpm: number; rng: Rng } {
  const plan = resolvePlan(req);
  const genre = plan.genreSpec;
  const total = Math.max(1, Math.round(req.durationSeconds * SAMPLE_RATE));
  const mix: Mix = { left: new Float32Array(total), right: new Float32Array(total) };
  // The arrangement ignores lyrics, voice and length: the same song can be sung by another
  // voice, and a longer render continues a shorter one.
  const key = [MUSIC_VERSION, req.title, req.style, req.seed, req.model];
  const rng = Rng.from(...key, 'arrangement');
  const kit = drumKit(Rng.from(...key, 'drums'), genre);
  const sound = Rng.from(...key, 'sound');

  const scale = plan.mode === 'minor' ? MINOR_SCALE : MAJOR_SCALE;
  const progression = rng.pick(plan.mode === 'minor' ? MINOR_PROGRESSIONS : MAJOR_PROGRESSIONS);
  const step = 60 / plan.bpm / 4; // a 16th, in seconds
  const barSamples = 16 * step * SAMPLE_RATE;
  const bars = Math.ceil(total / barSamples);
  const chordBars = plan.bpm >= 150 ? 2 : 1;
  const swing = genre.swing ?? 0;
  const stepStart = (bar: number, s: number) =>
    Math.round(bar * barSamples + (s + (s % 2 === 1 ? swing * 2 : 0)) * step * SAMPLE_RATE);
  const tonicBass = 36 + plan.tonic; // C2..B2
  const chordBase = 48 + plan.tonic;
  const introBars = bars >= 12 ? 2 : 0;
  const chordAt = (bar: number) => progression[Math.floor(bar / chordBars) % progression.length] as number;
  const sectionOf = (bar: number): 'intro' | 'verse' | 'chorus' =>
    bar < introBars ? 'intro' : bars < 12 || Math.floor((bar - introBars) / 8) % 2 === 1 ? 'chorus' : 'verse';

  for (let bar = 0; bar < bars; bar++) {
    const degree = chordAt(bar);
    const section = sectionOf(bar);
    // Chords: a close voicing around middle C.
    const chord = [0, 2, 4, ...(genre.sevenths ? [6] : [])].map((d) => {
      let midi = degreeToMidi(scale, chordBase, degree + d);
      while (midi > chordBase + 14) midi -= 12;
      return midi;
    });
    const hits = genre.sustain ? [0] : genre.chordSteps;
    hits.forEach((s, i) => {
      const next = genre.sustain ? 16 * (bar % chordBars === 0 ? chordBars : 1) : (hits[i + 1] ?? 16);
      if (genre.sustain && bar % chordBars !== 0) return;
      const length = Math.round((next - s) * step * SAMPLE_RATE * (genre.chords === 'distorted' ? 0.9 : 1));
      chord.forEach((midi, v) => {
        // Strummed instruments spread the notes of a chord a little in time.
        const strum = genre.chords === 'pluck' ? v * Math.round(0.012 * SAMPLE_RATE) : 0;
        const start = stepStart(bar, s) + strum;
        if (start >= total) return;
        renderNote(
          mix,
          { start, length, midi, velocity: (section === 'intro' ? 0.7 : 1) * (i === 0 ? 1 : 0.8), pan: (v - 1) * 0.3 },
          genre.chords,
          sound,
        );
      });
    });

    // Bass: the chord's root, with walking passing notes for jazz.
    genre.bassSteps.forEach((s, i) => {
      const next = genre.bassSteps[i + 1] ?? 16;
      const start = stepStart(bar, s);
      if (start >= total || section === 'intro') return;
      let midi = degreeToMidi(scale, tonicBass, degree);
      if (genre.name === 'jazz') midi = degreeToMidi(scale, tonicBass, degree + ([0, 2, 4, 5][i % 4] as number));
      else if (genre.bassSteps.length >= 8 && i % 4 === 3) midi += 12;
      while (midi > tonicBass + 11) midi -= 12;
      const length = Math.round((next - s) * step * SAMPLE_RATE * 0.92);
      renderNote(mix, { start, length, midi, velocity: 0.9, pan: 0 }, genre.bass, sound);
    });

    // Drums: the genre's pattern; intros keep only the hats, phrase ends get a fill.
    if (genre.drums !== 'none') {
      const pattern = PATTERNS[genre.drums];
      const fill = section !== 'intro' && (bar - introBars) % 8 === 7;
      for (const [name, steps] of Object.entries(pattern) as Array<[DrumName, string]>) {
        if (section === 'intro' && name !== 'hat' && name !== 'ride') continue;
        if (section === 'verse' && name === 'open') continue;
        for (let s = 0; s < 16; s++) {
          const mark = steps[s];
          if (mark !== 'x' && mark !== 'o') continue;
          if (fill && s >= 12 && name === 'snare') continue;
          const gain = DRUM_GAINS[name] * (mark === 'x' ? 1 : 0.55);
          addHit(mix, kit[name], stepStart(bar, s), gain, DRUM_PANS[name]);
        }
      }
      if (fill) {
        const hit = genre.drums === 'cinematic' ? 'tom' : genre.drums === 'jazz' ? 'rim' : 'snare';
        for (let s = 12; s < 16; s++)
          addHit(mix, kit[hit], stepStart(bar, s), DRUM_GAINS[hit] * (0.5 + (s - 12) * 0.15), 0);
      }
      // A crash (long open hat) at the start of each chorus.
      if (section === 'chorus' && sectionOf(bar - 1) !== 'chorus') addHit(mix, kit.open, stepStart(bar, 0), 0.35, -0.2);
    }
  }

  // Melody: two-bar motifs, repeated with a changed ending; the lead plays it in instrumentals
  // (and in intros of songs), the voice sings it otherwise.
  const vocals = !req.instrumental;
  const vocalRng = Rng.from(...key, 'vocals', req.lyrics ?? '', req.vocalGender ?? '');
  const gender = req.vocalGender ?? (vocalRng.next() < 0.5 ? 'm' : 'f');
  const grid = plan.bpm >= 150 ? Math.max(4, genre.melodyGrid) : genre.melodyGrid;
  const slots = 32 / grid; // per two bars
  const lyricSyllables = syllables(req.lyrics ?? req.title);
  const sung = lyricSyllables.length > 0 ? lyricSyllables : DEFAULT_SYLLABLES;
  let syllableIndex = 0;
  let lastVocalMidi: number | undefined;
  const leadBase = chordBase + 12;
  // Female voices sit an octave above male ones, with formants about 18% higher.
  const vocalBase = (gender === 'f' ? 60 : 48) + ((plan.tonic + 6) % 12) - 6;
  const formantScale = gender === 'f' ? 1.18 : 1;
  for (let pair = 0; pair * 2 < bars; pair++) {
    const motifRng = Rng.from(...key, 'motif', pair % 4);
    const rhythm = Array.from({ length: slots }, (_, i) => i === 0 || motifRng.next() < genre.melodyDensity);
    let position = 2 + motifRng.int(3);
    const line = rhythm.map(() => {
      position = Math.max(0, Math.min(7, position + motifRng.pick([-2, -1, -1, 0, 1, 1, 2])));
      return position;
    });
    if (pair % 2 === 1) line[line.length - 1] = 0; // answer phrases come home to the tonic
    for (let slot = 0; slot < slots; slot++) {
      if (!rhythm[slot]) continue;
      const bar = pair * 2 + Math.floor((slot * grid) / 16);
      const s = (slot * grid) % 16;
      const section = sectionOf(bar);
      const start = stepStart(bar, s);
      if (start >= total) continue;
      let nextSlot = slot + 1;
      while (nextSlot < slots && !rhythm[nextSlot]) nextSlot++;
      const length = Math.round((nextSlot - slot) * grid * step * SAMPLE_RATE * 0.9);
      // Strong beats move to the nearest chord tone.
      let degree = line[slot] as number;
      if (s % 8 === 0) {
        const chordDegree = chordAt(bar);
        const tones = [chordDegree, chordDegree + 2, chordDegree + 4].map((d) => ((d % 7) + 7) % 7);
        degree = tones.reduce((best, d) => (Math.abs(d - degree) < Math.abs(best - degree) ? d : best), tones[0] ?? 0);
      }
      const lift = section === 'chorus' ? 2 : 0;
      const singing = vocals && section !== 'intro';
      // The last slot of each two-bar phrase is a breath for singers.
      if (singing && slot === slots - 1) continue;
      if (singing) {
        const midi = degreeToMidi(scale, vocalBase, degree + lift);
        const syllable = sung[syllableIndex++ % sung.length] as Syllable;
        renderVocalNote(
          mix,
          { start, length, midi, velocity: 0.8, pan: 0 },
          syllable,
          formantScale,
          lastVocalMidi ?? midi,
          vocalRng,
        );
        lastVocalMidi = midi;
      } else if (!vocals || section === 'intro') {
        const midi = degreeToMidi(scale, leadBase, degree + lift);
        renderNote(mix, { start, length, midi, velocity: 0.75, pan: 0.15 }, genre.lead, sound);
      }
    }
  }

  return { mix, genre, bpm: plan.bpm, rng: Rng.from(...key, 'master') };
}

/** Freeverb-style comb filter lengths (samples at 44.1 kHz) and all-pass lengths. */
const COMBS = [1116, 1188, 1277, 1356, 1422, 1491];
const ALLPASSES = [556, 441, 341];

/** A circular delay line with its position. */
interface Line {
  data: Float32Array;
  index: number;
}

const delayLine = (length: number): Line => ({ data: new Float32Array(length), index: 0 });

/**
 * The master section as a stateful function of consecutive sample ranges: tempo-synced
 * ping-pong delay, a diffuse room (damped combs into all-passes), the lo-fi filter, gain from
 * the dry peak with a soft limiter above it, and fades; returns the range interleaved.
 */
function masterChain(mix: Mix, genre: Genre, bpm: number, rng: Rng): (from: number, to: number) => Float32Array {
  const { left, right } = mix;
  const total = left.length;
  let peak = 1e-9;
  for (let i = 0; i < total; i++) peak = Math.max(peak, Math.abs(left[i] as number), Math.abs(right[i] as number));
  // Effects add a little level; a soft limiter bends what passes the knee toward a ceiling
  // 1.4 dB below full scale (MP3 encoding overshoots peaks a little).
  const gain = 0.68 / peak;
  const knee = 0.7;
  const ceiling = 0.85;
  const limit = (x: number) => {
    const a = Math.abs(x);
    return a <= knee ? x : Math.sign(x) * (knee + (ceiling - knee) * Math.tanh((a - knee) / (ceiling - knee)));
  };
  const fadeIn = Math.min(total, Math.round(0.01 * SAMPLE_RATE));
  const fadeOut = Math.min(total, Math.round(Math.min(3, total / SAMPLE_RATE / 10) * SAMPLE_RATE));

  const delay = genre.delay ?? 0;
  const delaySamples = Math.max(1, Math.round((60 / bpm) * 0.75 * SAMPLE_RATE));
  const echo = {
    inL: new Float32Array(delaySamples),
    inR: new Float32Array(delaySamples),
    outL: new Float32Array(delaySamples),
    outR: new Float32Array(delaySamples),
    index: 0,
  };
  let lowL = 0;
  let lowR = 0;
  const combs = COMBS.map((n) => ({ ...delayLine(n), store: 0 }));
  const allpasses = [ALLPASSES.map((n) => delayLine(n)), ALLPASSES.map((n) => delayLine(n + 23))];
  let vinylL = 0;
  let vinylR = 0;

  return (from, to) => {
    const n = to - from;
    const l = left.slice(from, to);
    const r = right.slice(from, to);
    if (delay > 0) {
      // Ping-pong: each side echoes the other side's sound (and echo) one delay ago, darkened.
      for (let i = 0; i < n; i++) {
        const k = echo.index;
        lowL += ((echo.inR[k] as number) + 0.35 * (echo.outR[k] as number) - lowL) * 0.3;
        lowR += ((echo.inL[k] as number) + 0.35 * (echo.outL[k] as number) - lowR) * 0.3;
        echo.inL[k] = l[i] as number;
        echo.inR[k] = r[i] as number;
        echo.outL[k] = lowL;
        echo.outR[k] = lowR;
        echo.index = k + 1 === delaySamples ? 0 : k + 1;
        l[i] = (l[i] as number) + delay * 0.4 * lowL;
        r[i] = (r[i] as number) + delay * 0.4 * lowR;
      }
    }
    if (genre.reverb > 0) {
      const room = new Float32Array(n);
      for (const comb of combs) {
        const data = comb.data;
        const length = data.length;
        let index = comb.index;
        let store = comb.store;
        for (let i = 0; i < n; i++) {
          const y = data[index] as number;
          store = y * 0.75 + store * 0.25;
          data[index] = ((l[i] as number) + (r[i] as number)) * 0.015 + store * 0.82;
          room[i] = (room[i] as number) + y;
          if (++index === length) index = 0;
        }
        comb.index = index;
        comb.store = store;
      }
      for (const [c, channel] of [l, r].entries()) {
        const wet = room.slice();
        for (const ap of allpasses[c] as Line[]) {
          const data = ap.data;
          const length = data.length;
          let index = ap.index;
          for (let i = 0; i < n; i++) {
            const buffered = data[index] as number;
            const x = wet[i] as number;
            data[index] = x + buffered * 0.5;
            wet[i] = buffered - x;
            if (++index === length) index = 0;
          }
          ap.index = index;
        }
        for (let i = 0; i < n; i++) channel[i] = (channel[i] as number) + (wet[i] as number) * genre.reverb;
      }
    }
    if (genre.name === 'lofi') {
      // Vinyl: a soft low-pass and sparse crackle.
      for (let i = 0; i < n; i++) {
        const crackle = rng.next() < 0.0001 ? rng.signed() * 0.08 : 0;
        vinylL += ((l[i] as number) - vinylL) * 0.35;
        vinylR += ((r[i] as number) - vinylR) * 0.35;
        l[i] = vinylL + crackle;
        r[i] = vinylR + crackle;
      }
    }
    const out = new Float32Array(n * 2);
    for (let i = 0; i < n; i++) {
      const at = from + i;
      let g = gain;
      if (at < fadeIn) g *= at / fadeIn;
      const fromEnd = total - 1 - at;
      if (fromEnd < fadeOut) g *= fromEnd / fadeOut;
      out[2 * i] = limit((l[i] as number) * g);
      out[2 * i + 1] = limit((r[i] as number) * g);
    }
    return out;
  };
}
