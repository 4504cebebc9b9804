// How a song request becomes the body of `POST /api/v1/generate` on a sunoapi.org-compatible API
// (kie.ai takes the same body). Suno has two modes: a description it writes lyrics for (non-custom),
// or custom mode, where `prompt` is sung word for word and `style` and `title` are required.
// Limits and rules: docs.sunoapi.org/suno-api/generate-music (its parameter guide and OpenAPI).
// The adapter (client.ts) adds `model` (the route's endpoint) and `callBackUrl`.
import { type Mapping, mappingFor } from '../mapping.ts';
import { type MusicRequest, ProviderError } from '../types.ts';

export type { MusicRequest } from '../types.ts';

/** What `POST /api/v1/generate` takes of a song, besides `model` and `callBackUrl`. */
export interface SunoGenerateInput extends Record<string, unknown> {
  customMode: boolean;
  instrumental: boolean;
  /** Non-custom mode: the description. Custom mode: the lyrics (absent for an instrumental). */
  prompt?: string;
  style?: string;
  title?: string;
  vocalGender?: 'm' | 'f';
}

/** The longest texts one model takes, in characters. */
interface Limits {
  lyrics: number;
  style: number;
  title: number;
}

// Non-custom mode takes a description of at most 500 characters, whatever the model.
const DESCRIPTION_MAX = 500;
// Older pages (and kie.ai's) give 80 for every model: a title we make up stays within that, so it
// never makes a song fail.
const DERIVED_TITLE_MAX = 80;

/** The limits of a model; models newer than this table get the latest models' limits. */
function limitsOf(model: string): Limits {
  if (model === 'V3_5' || model === 'V4') return { lyrics: 3000, style: 200, title: 80 };
  if (model === 'V4_5ALL') return { lyrics: 5000, style: 1000, title: 80 };
  return { lyrics: 5000, style: 1000, title: 100 };
}

/** Characters as Suno counts them (code points, so an emoji is one). */
const lengthOf = (text: string): number => [...text].length;

function refuse(message: string): never {
  throw new ProviderError(`Suno ${message}`, false, { kind: 'invalid_input' });
}

/** The text when it says something; null when absent or blank. */
function given(text: string | null): string | null {
  const trimmed = text?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

// Lyrics often start with section tags (`[Verse]`) that would make a poor title.
const SECTION_TAG = /^\s*[[(].*[\])]\s*$/;

/**
 * A title made from the first line of `text` that is not a section tag: whitespace collapsed, cut
 * at a word boundary to fit DERIVED_TITLE_MAX; null when there is no such line.
 */
export function titleFrom(text: string | null): string | null {
  const line = (text ?? '')
    .split(/\r\n|\r|\n/)
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .find((l) => l !== '' && !SECTION_TAG.test(l));
  if (!line) return null;
  const chars = [...line.replace(/[\s.,;:!?-]+$/, '')];
  if (chars.length <= DERIVED_TITLE_MAX) return chars.join('') || null;
  const cut = chars.slice(0, DERIVED_TITLE_MAX).join('');
  const space = cut.lastIndexOf(' ');
  // Cut at the last whole word unless that would throw most of the line away.
  return (space >= DERIVED_TITLE_MAX / 2 ? cut.slice(0, space) : cut).trim();
}

function checkLength(what: string, text: string, max: number, model: string): void {
  const length = lengthOf(text);
  if (length > max) refuse(`${model} takes ${what} of at most ${max} characters (${length} given): shorten it`);
}

/**
 * The `POST /api/v1/generate` input for a song on `model` (V4, V4_5, V4_5PLUS, V4_5ALL, V5...):
 * custom mode when lyrics or a style are given, else the description. What custom mode needs and
 * the request lacks is refused (invalid_input), except a missing title, made from the description
 * (or the first lyric line): a title only names the song. Texts over the model's limits are refused,
 * never cut, since cut lyrics would be another song.
 */
export function generateInput(request: MusicRequest, model: string): SunoGenerateInput {
  const lyrics = given(request.lyrics);
  const style = given(request.style);
  const title = given(request.title);
  const description = request.prompt.trim();
  const vocalGender = request.vocalGender === null ? undefined : request.vocalGender === 'male' ? 'm' : 'f';
  const limits = limitsOf(model);

  if (lyrics === null && style === null) {
    // Non-custom mode: Suno writes the lyrics and names the song; the other fields must stay empty.
    if (title !== null) refuse('takes a title only with lyrics or a style: give a style, or leave the title out');
    if (vocalGender) refuse('takes a vocal gender only with lyrics or a style: give a style, or leave it out');
    if (description === '') refuse('needs a description of the song, or lyrics and a style');
    checkLength('a description', description, DESCRIPTION_MAX, model);
    return { customMode: false, instrumental: request.instrumental, prompt: description };
  }

  if (request.instrumental && lyrics !== null) {
    refuse('sings no lyrics in an instrumental: leave the lyrics out, or turn instrumental off');
  }
  if (request.instrumental && vocalGender) refuse('has no vocals in an instrumental: leave the vocal gender out');
  if (style === null) refuse('needs a style (genre and style words) with lyrics: give one');
  if (lyrics === null && !request.instrumental) {
    refuse(
      'needs lyrics for a song with vocals and a style: give lyrics, make it instrumental, or describe it instead',
    );
  }
  if (lyrics !== null) checkLength('lyrics', lyrics, limits.lyrics, model);
  checkLength('a style', style, limits.style, model);
  if (title !== null) checkLength('a title', title, limits.title, model);
  const name = title ?? titleFrom(description) ?? titleFrom(lyrics);
  if (name === null) refuse('needs a title in custom mode: give a title or a description');

  return {
    customMode: true,
    instrumental: request.instrumental,
    ...(lyrics === null ? {} : { prompt: lyrics }),
    style,
    title: name,
    ...(vocalGender ? { vocalGender } : {}),
  };
}

/** The route mapping of a Suno model (the route's endpoint, which sets its limits). */
export function sunoMapping(model: string): Mapping {
  return mappingFor('music', (request) => generateInput(request, model));
}

/** The mappings of the Suno models the catalog routes to, by name (the model: it sets the limits). */
export const SUNO_MAPPINGS: Record<string, Mapping> = Object.fromEntries(
  ['V4', 'V4_5', 'V4_5PLUS', 'V4_5ALL', 'V5'].map((model) => [model, sunoMapping(model)]),
);
