// The genres the simulator's music synthesizer knows: the words that select each, its tempo range,
// drum pattern, instruments and arrangement. Data in music-genres.json, checked here at load.
import { type Static, Type } from 'typebox';
import { readJsonList } from './json-list.ts';

const TIMBRES = ['pad', 'saw', 'square', 'pluck', 'epiano', 'piano', 'bell', 'organ', 'distorted'] as const;
const BASS_TIMBRES = ['sine', 'saw', 'square', 'pluck', '808'] as const;
const DRUM_STYLES = [
  'none',
  'four',
  'pop',
  'rock',
  'metal',
  'punk',
  'ballad',
  'boombap',
  'trap',
  'halftime',
  'dnb',
  'jazz',
  'onedrop',
  'folk',
  'cinematic',
] as const;

/** A sound of the chords or the lead. */
export type Timbre = (typeof TIMBRES)[number];
/** A sound of the bass line. */
export type BassTimbre = (typeof BASS_TIMBRES)[number];
/** A drum pattern (`none`: no drums). */
export type DrumStyle = (typeof DRUM_STYLES)[number];

const Step = Type.Integer({ minimum: 0, maximum: 15 });
const Amount = Type.Number({ minimum: 0, maximum: 1 });

const GenreSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    words: Type.Array(Type.String({ pattern: '^[a-z0-9 ]+$' }), {
      minItems: 1,
      description: "Words and phrases (normalized: lower case, '&' → 'and', hyphens → spaces) that select it",
    }),
    bpm: Type.Tuple([Type.Number({ minimum: 20, maximum: 300 }), Type.Number({ minimum: 20, maximum: 300 })], {
      description: 'The tempo range, beats per minute (the seed picks within it)',
    }),
    drums: Type.Enum([...DRUM_STYLES]),
    chords: Type.Enum([...TIMBRES]),
    lead: Type.Enum([...TIMBRES]),
    bass: Type.Enum([...BASS_TIMBRES]),
    chordSteps: Type.Array(Step, {
      minItems: 1,
      description: 'Steps (16ths of a 4/4 bar) where chords are struck; [0] with `sustain` holds the chord',
    }),
    sustain: Type.Optional(Type.Boolean()),
    bassSteps: Type.Array(Step, { minItems: 1 }),
    melodyGrid: Type.Integer({ minimum: 1, maximum: 16, description: 'Melody grid in 16ths (4 = quarter notes)' }),
    melodyDensity: Type.Number({ minimum: 0, maximum: 1, description: 'How many grid slots get a note' }),
    swing: Type.Optional(Amount),
    reverb: { ...Amount, description: 'Room reverb amount 0..1' },
    delay: Type.Optional({ ...Amount, description: 'Tempo-synced (dotted eighth) ping-pong delay amount 0..1' }),
    sevenths: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** One genre of the music synthesizer. */
export type MusicGenre = Static<typeof GenreSchema>;

const GENRES_FILE = new URL('./music-genres.json', import.meta.url);

/** Loads and checks the genres file; a malformed file stops the start with the reason. */
export function loadMusicGenres(file: URL = GENRES_FILE): MusicGenre[] {
  const data = readJsonList(file, GenreSchema, 'music-genres.json');
  const names = new Set<string>();
  for (const genre of data) {
    if (names.has(genre.name)) throw new Error(`music-genres.json: genre '${genre.name}' is listed twice`);
    names.add(genre.name);
    if (genre.bpm[0] > genre.bpm[1]) throw new Error(`music-genres.json: ${genre.name}'s bpm range is reversed`);
  }
  if (!names.has('pop')) throw new Error("music-genres.json: the default genre 'pop' is missing");
  return data;
}
