// Reference-to-video. The request's prompt and shots are in our syntax: `@Element1`… name its
// elements in order (the influencer's face first, when one was named), `@Image1`… its images.
// - Kling O1 and O3 use the same words but number by position in the `elements` and `image_urls`
//   lists they are sent: both lists go in the request's order, so each number names the same
//   thing there (the lists are what the numbers are derived from below, not the other way round).
// - Veo 3.1 has no syntax: its `image_urls` are "for consistent subject appearance" and its prompt
//   describes the scene in words, so each reference becomes words naming its place in that list
//   ("the subject of reference image 1"), an element's views being listed one after the other.
// A reference to an element or image the request lacks is refused, as are frames, shots, lengths
// and ratios the endpoint does not take; a setting is never sent without what it asked for.
import { type Mapping, mappingFor } from '../../mapping.ts';
import { ProviderError, type VendorRequest } from '../../types.ts';
import { nearestResolution, refuse } from './common.ts';

type ReferenceRequest = Extract<VendorRequest, { kind: 'reference' }>;

/** `text` with each `@ElementN`/`@ImageN` replaced by the N-th name of its list. */
function renameReferences(text: string, names: { Element: readonly string[]; Image: readonly string[] }): string {
  return text.replace(/@(Element|Image)(\d+)/g, (token: string, kind: string, digits: string) => {
    const list = kind === 'Element' ? names.Element : names.Image;
    const name = list[Number(digits) - 1];
    if (name === undefined) {
      throw new ProviderError(
        `The prompt names ${token}, but the request has ${list.length} ${kind.toLowerCase()}${list.length === 1 ? '' : 's'}`,
        false,
        { kind: 'invalid_input' },
      );
    }
    return name;
  });
}

/** A whole number of seconds within the endpoint's range, as the string its `duration` takes. */
function secondsWithin(seconds: number, min: number, max: number, what = 'videos'): string {
  if (!Number.isInteger(seconds) || seconds < min || seconds > max) refuse(`makes ${what} of ${min}-${max} s`);
  return String(seconds);
}

function listedRatio(request: ReferenceRequest, ratios: readonly string[]): string {
  if (!ratios.includes(request.aspectRatio)) refuse(`makes videos of ${ratios.join(', ')}`);
  return request.aspectRatio;
}

const KLING_REFERENCE_RATIOS = ['16:9', '9:16', '1:1'] as const;
// Kling counts elements, images and frames together ("maximum 7 total" on fal's O1 pages; ⚠ O3's
// pages give no figure but for video references, and Kling's own API has the same 7 for it).
const KLING_MAX_INPUTS = 7;
// ⚠ Kling 3.0 Omni makes at most 6 shots per video (its own documentation; fal's schema has no bound).
const KLING_MAX_SHOTS = 6;

/**
 * Kling's `elements` and `image_urls`, in the request's order, and the names our references get
 * there: the N-th entry of each list is `@ElementN`/`@ImageN`.
 */
function klingReferences(request: ReferenceRequest) {
  const elements = request.elements.map((element) => {
    if (element.references.length > 3) refuse('takes at most 3 other views of an element');
    // fal asks for at least one other view; an element with none (the influencer's face) gives its
    // front view again, which is what Kling itself uses when it has no other (⚠ Venice's guide).
    const views = element.references.length > 0 ? element.references : [element.frontal];
    return { frontal_image_url: element.frontal, reference_image_urls: views };
  });
  const names = {
    Element: elements.map((_, i) => `@Element${i + 1}`),
    Image: request.images.map((_, i) => `@Image${i + 1}`),
  };
  const lists = {
    ...(elements.length > 0 ? { elements } : {}),
    ...(request.images.length > 0 ? { image_urls: request.images } : {}),
  };
  return { lists, names };
}

/** Refuses what no reference endpoint of Kling takes: too many inputs, or none to keep consistent. */
function klingInputs(request: ReferenceRequest, frames: number): void {
  const references = request.elements.length + request.images.length;
  if (references + frames > KLING_MAX_INPUTS) {
    refuse(`takes at most ${KLING_MAX_INPUTS} elements, images and frames in all (asked: ${references + frames})`);
  }
  if (references === 0 && request.startFrame === null) refuse('needs an element, an image or a start frame');
}

/** `positions` (1-based) of Veo's reference images, in words: "reference images 1 and 2". */
function veoImages(positions: readonly number[]): string {
  const last = positions.at(-1);
  if (positions.length <= 1) return `reference image ${last}`;
  return `reference images ${positions.slice(0, -1).join(', ')} and ${last}`;
}

// ⚠ Veo 3.1 takes 1-3 reference images and makes 8 s only from them (fal's field is a free
// string, "8s" by default; Google's and other hosts' pages give the rest).
const VEO_MAX_REFERENCES = 3;

export const REFERENCE_MAPPINGS = {
  /**
   * fal-ai/kling-video/o1/{standard/,}reference-to-video: elements and images, one silent shot of
   * 3-10 s; its tier is the endpoint's. A start frame goes to the image endpoint (`kling-o1-frames`).
   */
  'kling-o1-reference': mappingFor('reference', (request) => {
    if (request.startFrame !== null) refuse('takes no start frame alongside references');
    if (request.endFrame !== null) refuse('takes no end frame');
    if (request.shots.length > 1) refuse('makes one shot per video (no multi-shot)');
    if (request.audio) refuse('makes silent videos');
    klingInputs(request, 0);
    const { lists, names } = klingReferences(request);
    return {
      prompt: renameReferences(request.prompt, names),
      duration: secondsWithin(request.durationSeconds, 3, 10),
      aspect_ratio: listedRatio(request, KLING_REFERENCE_RATIOS),
      ...lists,
    };
  }),
  /**
   * fal-ai/kling-video/o1/image-to-video: from a start frame (and to an end frame), without
   * references; the frames set the shape. Its prompt's `@Image1` is the start frame, which our
   * syntax cannot name (a request without images has no `@Image`), so nothing is renamed.
   */
  'kling-o1-frames': mappingFor('reference', (request) => {
    if (request.startFrame === null) refuse('needs a start frame');
    if (request.elements.length > 0 || request.images.length > 0) {
      refuse('takes no elements or images alongside a start frame');
    }
    if (request.shots.length > 1) refuse('makes one shot per video (no multi-shot)');
    if (request.audio) refuse('makes silent videos');
    return {
      prompt: renameReferences(request.prompt, { Element: [], Image: [] }),
      start_image_url: request.startFrame,
      ...(request.endFrame !== null ? { end_image_url: request.endFrame } : {}),
      duration: secondsWithin(request.durationSeconds, 3, 10),
    };
  }),
  /**
   * fal-ai/kling-video/o3/{standard, pro}/reference-to-video: and start and end frames, native
   * audio, 3-15 s, and shots as `multi_prompt` (each 1-15 s, adding up to the video). Neither
   * endpoint takes a resolution: each makes its tier's (standard 720p, pro 1080p). A route cannot
   * pick its endpoint by resolution, so a 720p request on the pro route is made at 1080p: more than
   * asked, at the catalog's one price.
   */
  'kling-o3-reference': mappingFor('reference', (request) => {
    klingInputs(request, (request.startFrame !== null ? 1 : 0) + (request.endFrame !== null ? 1 : 0));
    const { lists, names } = klingReferences(request);
    const input = {
      duration: secondsWithin(request.durationSeconds, 3, 15),
      aspect_ratio: listedRatio(request, KLING_REFERENCE_RATIOS),
      generate_audio: request.audio,
      ...lists,
      ...(request.startFrame !== null ? { start_image_url: request.startFrame } : {}),
      ...(request.endFrame !== null ? { end_image_url: request.endFrame } : {}),
    };
    if (request.shots.length <= 1) return { prompt: renameReferences(request.prompt, names), ...input };
    if (request.shots.length > KLING_MAX_SHOTS) refuse(`makes at most ${KLING_MAX_SHOTS} shots`);
    const total = request.shots.reduce((sum, shot) => sum + shot.durationSeconds, 0);
    if (total !== request.durationSeconds) {
      refuse(`was given shots of ${total} s for a ${request.durationSeconds} s video`);
    }
    // The endpoint takes a prompt or shots, not both; `customize` keeps our shots as they are
    // (`intelligent` would let the model cut its own).
    return {
      multi_prompt: request.shots.map((shot) => ({
        prompt: renameReferences(shot.prompt, names),
        duration: secondsWithin(shot.durationSeconds, 1, 15, 'shots'),
      })),
      shot_type: 'customize',
      ...input,
    };
  }),
  /** fal-ai/veo3.1/reference-to-video: 1-3 reference images, 8 s, 16:9 or 9:16, native audio. */
  'veo-reference': mappingFor('reference', (request) => {
    if (request.startFrame !== null || request.endFrame !== null) refuse('takes no start or end frame');
    if (request.shots.length > 1) refuse('makes one shot per video (no multi-shot)');
    if (request.durationSeconds !== 8) refuse('makes 8 s videos from references');
    const imageUrls: string[] = [];
    // push answers the list's new length: the image's place, counted from 1.
    const place = (urls: readonly string[]): number[] => urls.map((url) => imageUrls.push(url));
    const names = {
      Element: request.elements.map((e) => `the subject of ${veoImages(place([e.frontal, ...e.references]))}`),
      Image: request.images.map((url) => veoImages(place([url]))),
    };
    if (imageUrls.length === 0) refuse('needs at least one reference image');
    if (imageUrls.length > VEO_MAX_REFERENCES) {
      refuse(
        `takes at most ${VEO_MAX_REFERENCES} reference images, each view of an element counted (asked: ${imageUrls.length})`,
      );
    }
    return {
      prompt: renameReferences(request.prompt, names),
      image_urls: imageUrls,
      duration: '8s',
      aspect_ratio: listedRatio(request, ['16:9', '9:16']),
      resolution: nearestResolution(request.resolution, ['720p', '1080p', '4k']),
      generate_audio: request.audio,
    };
  }),
} satisfies Record<string, Mapping>;
