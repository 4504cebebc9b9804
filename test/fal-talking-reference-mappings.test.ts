// Every fal route of the talking-head and reference-to-video catalogs, checked against the input
// schema fal publishes for its endpoint (test/fixtures/fal/input-schemas.json, from fal's own
// client; see its `source`): for every duration, aspect ratio and resolution a model offers, with
// elements, images, start and end frames and shots where the model allows them, the input we would
// send must be valid (no unknown field, every required one, values from the endpoint's lists), and
// what the endpoint cannot take must be refused (invalid_input), never sent without it. Then field
// by field: how references are numbered for each model, shots, and the refusals.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadMediaCatalog } from '../src/catalog/media-models.ts';
import type { ModelRoute } from '../src/catalog/models.ts';
import { WorkError } from '../src/lib/errors.ts';
import type { PickedRoute } from '../src/providers/registry.ts';
import type { ProviderError, VendorRequest } from '../src/providers/types.ts';
import { errorsText, falFixture, falValidatorOf, offlineRegistry } from './vendor-schemas.ts';

const registry = offlineRegistry({ replicate: false });

const media = loadMediaCatalog();
const PORTRAIT = 'https://cdn.example.com/portrait.png';
const AUDIO = 'https://cdn.example.com/speech.mp3';
const FACE = 'https://cdn.example.com/influencer-face.png';
const PRODUCT = 'https://cdn.example.com/bottle-front.png';
const PRODUCT_SIDE = 'https://cdn.example.com/bottle-side.png';
const PRODUCT_BACK = 'https://cdn.example.com/bottle-back.png';
const SCENE = 'https://cdn.example.com/beach.png';
const STYLE = 'https://cdn.example.com/film-look.png';
const START = 'https://cdn.example.com/first-frame.png';
const END = 'https://cdn.example.com/last-frame.png';
const SCRIPT = 'Hi everyone, today I want to show you my morning routine.';

type TalkingHeadRequest = Extract<VendorRequest, { kind: 'talking_head' }>;
type ReferenceRequest = Extract<VendorRequest, { kind: 'reference' }>;

function talkingHead(overrides: Partial<TalkingHeadRequest> = {}): TalkingHeadRequest {
  return {
    kind: 'talking_head',
    imageUrl: PORTRAIT,
    audioUrl: AUDIO,
    script: null,
    prompt: null,
    durationSeconds: 10,
    resolution: '720p',
    aspectRatio: '9:16',
    ...overrides,
  };
}

function reference(overrides: Partial<ReferenceRequest> = {}): ReferenceRequest {
  const prompt = overrides.prompt ?? '@Element1 walks along the shore';
  const durationSeconds = overrides.durationSeconds ?? 5;
  return {
    kind: 'reference',
    prompt,
    shots: [{ prompt, durationSeconds }],
    // The influencer's face, as the plan gives it: Element1, with no other views.
    elements: [{ frontal: FACE, references: [] }],
    images: [],
    startFrame: null,
    endFrame: null,
    durationSeconds,
    aspectRatio: '16:9',
    resolution: '1080p',
    audio: false,
    ...overrides,
  };
}

/** The input the first configured route of `routes` sends for `request`, checked against its schema. */
function inputOf(routes: readonly ModelRoute[] | undefined, request: VendorRequest) {
  const [picked] = registry.candidates(routes ?? [], request);
  assert.ok(picked, 'a configured route');
  const input = picked.map(request);
  const validate = falValidatorOf(picked.route.endpoint);
  assert.ok(validate(input), `${picked.route.endpoint}: ${errorsText(validate)}\n${JSON.stringify(input)}`);
  return { endpoint: picked.route.endpoint, input };
}

/** The input a picked route sends for a request, or its refusal (always invalid_input). */
function mapped(picked: PickedRoute, request: VendorRequest): Record<string, unknown> | ProviderError {
  try {
    return picked.map(request);
  } catch (err) {
    assert.ok(err instanceof WorkError && err.kind === 'invalid_input' && !err.retryable, String(err));
    return err;
  }
}

function refusal(routes: readonly ModelRoute[] | undefined, request: VendorRequest): string {
  const [picked] = registry.candidates(routes ?? [], request);
  assert.ok(picked, 'a configured route');
  const result = mapped(picked, request);
  assert.ok(result instanceof WorkError, `refused: ${JSON.stringify(result)}`);
  return result.message;
}

const routesOf = (list: ReadonlyArray<{ id: string; routes: ModelRoute[] }>, id: string) =>
  list.find((m) => m.id === id)?.routes;

// Routes of these catalogs that name no mapping, and why. Adding to this list is a decision.
const UNMAPPED: Record<string, string> = {
  // Not among the endpoints of fal-js 381105e (fal publishes it, its client does not list it).
  'talking_head multitalk': 'fal-ai/ai-avatar',
  // Sheet-based presenters on Kling's reference-to-video endpoints. A talking head carries one
  // portrait and a speech track: O1 and O3 standard would have to lip-sync the track afterwards
  // (they take no audio), and O3 Pro voices a script with a voice of Kling's; none of them can be
  // given the influencer's reference sheet, which these models are built from.
  'talking_head kling-o1-sheet': 'fal-ai/kling-video/o1/reference-to-video',
  'talking_head kling-o1-standard-sheet': 'fal-ai/kling-video/o1/standard/reference-to-video',
  'talking_head kling-o3-standard-sheet': 'fal-ai/kling-video/o3/standard/reference-to-video',
  'talking_head kling-o3-pro-sheet': 'fal-ai/kling-video/o3/pro/reference-to-video',
};
const NOT_IN_FAL_JS = ['fal-ai/ai-avatar'];

test('every talking-head and reference-to-video route names an endpoint fal publishes and a mapping we have, or is listed', () => {
  const lists: Array<[string, ReadonlyArray<{ id: string; routes: readonly ModelRoute[] }>]> = [
    ['talking_head', media.talking_head],
    ['reference_video', media.reference_video],
  ];
  const unmapped: Record<string, string> = {};
  let routes = 0;
  for (const [kind, list] of lists) {
    for (const model of list) {
      for (const route of model.routes.filter((r) => r.provider === 'fal')) {
        if (route.mapping) {
          falValidatorOf(route.endpoint);
          assert.equal(registry.candidates([route]).length, 1, `${route.endpoint}: mapping ${route.mapping} exists`);
          routes += 1;
        } else {
          unmapped[`${kind} ${model.id}`] = route.endpoint;
          // An unmapped route is left to the simulator, whatever the request.
          assert.equal(registry.candidates([route], talkingHead()).length, 0);
        }
        if (route.image_endpoint) {
          assert.ok(route.image_mapping, `${model.id}: an image endpoint needs its mapping`);
          falValidatorOf(route.image_endpoint);
          const picked = registry.candidates([route], reference({ elements: [], startFrame: START }));
          assert.equal(picked[0]?.route.endpoint, route.image_endpoint, `${model.id}: a start frame takes it`);
        }
      }
    }
  }
  assert.deepEqual(unmapped, UNMAPPED);
  for (const [label, endpoint] of Object.entries(UNMAPPED)) {
    const published = falFixture.endpoints[endpoint] !== undefined;
    assert.equal(published, !NOT_IN_FAL_JS.includes(endpoint), `${label}: ${endpoint}`);
  }
  assert.equal(routes, 10, `${routes} mapped fal routes`);
  assert.equal(falFixture.source.commit, '381105e138b85502b528fb8f6c16d909e30e462a');
});

/** One request a model's entry lets a user make, and the refusal expected of its endpoint, if any. */
interface Case {
  label: string;
  routes: readonly ModelRoute[];
  request: VendorRequest;
  refused: RegExp | null;
}

// What a talking-head model's entry offers and its fal endpoint cannot take: refused (refunded),
// never sent without it. Each rule is a decision.
function talkingHeadGap(model: string, mode: 'upload' | 'generate', duration: number): RegExp | null {
  // InfiniTalk makes at most 721 frames (28.8 s at 25 fps); the catalog offers 30 s.
  if (model === 'infinitalk' && duration === 30) return /41-721 frames/;
  // VEED's text endpoint speaks a script with its own voice: uploaded audio (no script) cannot be used.
  if (model === 'veed-fabric-1.0-text' && mode === 'upload') return /speaks a script, and none was given/;
  return null;
}

function talkingHeadCases(): Case[] {
  const out: Case[] = [];
  for (const model of media.talking_head.filter((m) => m.routes.some((r) => r.mapping))) {
    const { durations, resolutions, aspect_ratios } = model.settings;
    for (const mode of ['upload', 'generate'] as const) {
      for (const duration of durations) {
        for (const resolution of resolutions) {
          for (const ratio of aspect_ratios) {
            // Uploaded audio has no script; a generated one is spoken before the submit, except by
            // models that speak the script themselves (no audio: '').
            const request = talkingHead({
              audioUrl: mode === 'generate' && !model.needs_audio ? '' : AUDIO,
              script: mode === 'generate' ? SCRIPT : null,
              durationSeconds: duration,
              resolution,
              aspectRatio: ratio,
            });
            out.push({
              label: `talking_head ${model.id} ${mode} ${duration}s ${resolution} ${ratio}`,
              routes: model.routes,
              request,
              refused: talkingHeadGap(model.id, mode, duration),
            });
          }
        }
      }
    }
  }
  return out;
}

type References = Pick<ReferenceRequest, 'elements' | 'images' | 'prompt'>;

/** The references of a reference-to-video request, by what it brings. */
const VARIANTS: Record<'face' | 'refs' | 'images' | 'text', References> = {
  // The influencer's face only.
  face: { elements: [{ frontal: FACE, references: [] }], images: [], prompt: '@Element1 waves at the camera' },
  // The face, a product seen from two more sides, and a scene.
  refs: {
    elements: [
      { frontal: FACE, references: [] },
      { frontal: PRODUCT, references: [PRODUCT_SIDE, PRODUCT_BACK] },
    ],
    images: [SCENE],
    prompt: '@Element1 holds up @Element2 on @Image1',
  },
  // Images only.
  images: { elements: [], images: [SCENE, STYLE], prompt: 'a beach at dawn like @Image1, graded like @Image2' },
  // No reference at all.
  text: { elements: [], images: [], prompt: 'a beach at dawn' },
};

type Variant =
  | keyof typeof VARIANTS
  | 'start'
  | 'start+face'
  | 'start+end+face'
  | 'end+face'
  | 'shots'
  | 'shots+frames';

function referenceRequest(variant: Variant, base: Partial<ReferenceRequest>): ReferenceRequest | null {
  const duration = base.durationSeconds ?? 5;
  const face = VARIANTS.face;
  const by = (v: keyof typeof VARIANTS) => VARIANTS[v];
  switch (variant) {
    case 'face':
    case 'refs':
    case 'images':
    case 'text':
      return reference({ ...base, ...by(variant) });
    case 'start':
      return reference({ ...base, elements: [], prompt: 'the tide comes in', startFrame: START });
    case 'start+face':
      return reference({ ...base, ...by('face'), startFrame: START });
    case 'start+end+face':
      return reference({ ...base, ...by('face'), startFrame: START, endFrame: END });
    case 'end+face':
      return reference({ ...base, ...by('face'), endFrame: END });
    case 'shots':
    case 'shots+frames': {
      // Two shots splitting the video (a shot lasts a second at least).
      if (duration < 2) return null;
      const first = Math.floor(duration / 2);
      const frames = variant === 'shots+frames' ? { startFrame: START, endFrame: END } : {};
      return reference({
        ...base,
        ...by('refs'),
        ...frames,
        prompt: `${face.prompt} @Element1 holds up @Element2 on @Image1`,
        shots: [
          { prompt: face.prompt, durationSeconds: first },
          { prompt: '@Element1 holds up @Element2 on @Image1', durationSeconds: duration - first },
        ],
      });
    }
  }
}

const VARIANT_NAMES: readonly Variant[] = [
  'face',
  'refs',
  'images',
  'text',
  'start',
  'start+face',
  'start+end+face',
  'end+face',
  'shots',
  'shots+frames',
];

// What a reference model's entry offers and its fal endpoint cannot take: refused (refunded), never
// sent without it. The first reason the endpoint gives, per model. Each rule is a decision.
function referenceGap(model: string, variant: Variant, duration: number, ratio: string): RegExp | null {
  const frames = variant.startsWith('start') || variant.includes('end') || variant === 'shots+frames';
  const shots = variant.startsWith('shots');
  switch (model) {
    // Kling O1: one silent shot of 3-10 s (the catalog offers up to 15, and multi-prompt); its
    // start frame goes to its image-to-video endpoint, which takes no references, and its
    // reference endpoint takes no frames; it needs something to keep consistent.
    case 'kling-o1-reference':
      if (variant === 'start+face' || variant === 'start+end+face')
        return /no elements or images alongside a start frame/;
      if (variant === 'end+face') return /takes no end frame/;
      if (variant === 'shots+frames') return /no elements or images alongside a start frame/;
      if (shots) return /no multi-shot/;
      if (variant === 'text') return /needs an element, an image or a start frame/;
      if (duration > 10) return /3-10 s/;
      return null;
    // Kling O3: no 4:3 or 3:4; something to keep consistent.
    case 'kling-o3-reference':
      if (variant === 'text') return /needs an element, an image or a start frame/;
      if (ratio === '4:3' || ratio === '3:4') return /16:9, 9:16, 1:1/;
      return null;
    // Veo 3.1: 1-3 reference images (each view of an element counts), 8 s, 16:9 or 9:16, one
    // shot, no frames.
    case 'veo-3.1-reference':
      if (frames) return /no start or end frame/;
      if (shots) return /no multi-shot/;
      if (duration !== 8) return /8 s videos/;
      if (variant === 'text') return /at least one reference image/;
      if (variant === 'refs') return /at most 3 reference images/;
      if (ratio !== '16:9' && ratio !== '9:16') return /16:9, 9:16/;
      return null;
    default:
      assert.fail(`no rules for ${model}`);
  }
}

function referenceCases(): Case[] {
  const out: Case[] = [];
  for (const model of media.reference_video) {
    const { min_duration, max_duration, aspect_ratios } = model.settings;
    // A model without a resolution choice is asked for 1080p (the plan's default).
    const resolutions = model.settings.resolutions.length > 0 ? model.settings.resolutions : ['1080p'];
    for (let duration = min_duration; duration <= max_duration; duration += 1) {
      for (const ratio of aspect_ratios) {
        for (const resolution of resolutions) {
          for (const variant of VARIANT_NAMES) {
            const request = referenceRequest(variant, {
              durationSeconds: duration,
              aspectRatio: ratio,
              resolution,
              audio: model.native_audio,
            });
            if (!request) continue;
            out.push({
              label: `reference ${model.id} ${duration}s ${ratio} ${resolution} ${variant}`,
              routes: model.routes,
              request,
              refused: referenceGap(model.id, variant, duration, ratio),
            });
          }
        }
      }
    }
  }
  return out;
}

test('every request a model allows maps to a valid input of its fal endpoint, or is refused as listed', () => {
  let checked = 0;
  let refused = 0;
  for (const c of [...talkingHeadCases(), ...referenceCases()]) {
    const picked = registry.candidates(c.routes, c.request);
    assert.equal(picked.length, 1, `${c.label}: one fal route`);
    for (const route of picked) {
      const input = mapped(route, c.request);
      if (c.refused) {
        assert.ok(input instanceof WorkError, `${c.label} → ${route.route.endpoint}: refused`);
        assert.match(input.message, c.refused, c.label);
        refused += 1;
        continue;
      }
      assert.ok(!(input instanceof WorkError), `${c.label} → ${route.route.endpoint}: ${String(input)}`);
      const validate = falValidatorOf(route.route.endpoint);
      assert.ok(
        validate(input),
        `${c.label} → ${route.route.endpoint}: ${errorsText(validate)}\n${JSON.stringify(input)}`,
      );
      checked += 1;
    }
  }
  assert.ok(checked > 800, `${checked} inputs checked`);
  assert.ok(refused > 0, `${refused} requests refused`);
});

test('Kling numbers elements and images by their place in its lists: ours carry over, the face first', () => {
  const routes = routesOf(media.reference_video, 'kling-o3-reference');
  // The influencer's face is Element1 (the plan puts it first); the user's product is Element2.
  const request = reference({
    prompt: '@Element2 is handed to @Element1 in front of @Image1, lit like @Image2',
    elements: [
      { frontal: FACE, references: [] },
      { frontal: PRODUCT, references: [PRODUCT_SIDE] },
    ],
    images: [SCENE, STYLE],
    durationSeconds: 7,
    aspectRatio: '9:16',
    audio: true,
  });
  const { endpoint, input } = inputOf(routes, request);
  assert.equal(endpoint, 'fal-ai/kling-video/o3/pro/reference-to-video');
  assert.equal(input.prompt, '@Element2 is handed to @Element1 in front of @Image1, lit like @Image2');
  assert.deepEqual(input.elements, [
    // No other view of the face: its front view stands in (fal asks for at least one).
    { frontal_image_url: FACE, reference_image_urls: [FACE] },
    { frontal_image_url: PRODUCT, reference_image_urls: [PRODUCT_SIDE] },
  ]);
  assert.deepEqual(input.image_urls, [SCENE, STYLE]);
  assert.deepEqual(
    [input.duration, input.aspect_ratio, input.generate_audio, input.multi_prompt],
    ['7', '9:16', true, undefined],
  );

  const o1 = inputOf(routesOf(media.reference_video, 'kling-o1-reference'), { ...request, audio: false });
  assert.equal(o1.endpoint, 'fal-ai/kling-video/o1/reference-to-video');
  assert.equal(o1.input.prompt, request.prompt);
  assert.deepEqual(o1.input.elements, input.elements);
  assert.deepEqual(o1.input.image_urls, [SCENE, STYLE]);
  assert.equal(o1.input.generate_audio, undefined, 'O1 has no soundtrack');

  // Images only: no elements list at all.
  const images = inputOf(routes, reference({ elements: [], images: [SCENE], prompt: 'waves on @Image1' }));
  assert.deepEqual([images.input.elements, images.input.image_urls], [undefined, [SCENE]]);

  // A reference to what the request lacks is refused, not sent for Kling to guess.
  assert.match(
    refusal(routes, { ...request, prompt: '@Element3 dances with @Element1' }),
    /names @Element3, but the request has 2 elements/,
  );
  assert.match(
    refusal(routes, { ...request, prompt: '@Image3 at night' }),
    /names @Image3, but the request has 2 images/,
  );
});

test('Veo 3.1 gets its references as image_urls and each of ours as words naming its place there', () => {
  const routes = routesOf(media.reference_video, 'veo-3.1-reference');
  const { endpoint, input } = inputOf(
    routes,
    reference({
      prompt: '@Element1 sips from @Element2 on @Image1',
      elements: [
        { frontal: FACE, references: [] },
        { frontal: PRODUCT, references: [] },
      ],
      images: [SCENE],
      durationSeconds: 8,
      resolution: '1080p',
      aspectRatio: '9:16',
      audio: true,
    }),
  );
  assert.equal(endpoint, 'fal-ai/veo3.1/reference-to-video');
  assert.deepEqual(input, {
    prompt: 'the subject of reference image 1 sips from the subject of reference image 2 on reference image 3',
    image_urls: [FACE, PRODUCT, SCENE],
    duration: '8s',
    aspect_ratio: '9:16',
    resolution: '1080p',
    generate_audio: true,
  });
  // An element's views follow one another: the product is the subject of images 1 and 2, the
  // scene image 3.
  const views = inputOf(
    routes,
    reference({
      prompt: '@Element1 stands on @Image1',
      elements: [{ frontal: PRODUCT, references: [PRODUCT_SIDE] }],
      images: [SCENE],
      durationSeconds: 8,
      resolution: '720p',
    }),
  );
  assert.equal(views.input.prompt, 'the subject of reference images 1 and 2 stands on reference image 3');
  assert.deepEqual(views.input.image_urls, [PRODUCT, PRODUCT_SIDE, SCENE]);
  assert.deepEqual([views.input.resolution, views.input.generate_audio], ['720p', false]);

  const eight = { durationSeconds: 8 };
  assert.match(
    refusal(routes, reference({ ...eight, ...VARIANTS.refs })),
    /at most 3 reference images, each view of an element counted \(asked: 5\)/,
  );
  assert.match(refusal(routes, reference({ ...eight, elements: [] })), /needs at least one reference image/);
  assert.match(refusal(routes, reference({ durationSeconds: 5 })), /makes 8 s videos/);
  assert.match(refusal(routes, reference({ ...eight, aspectRatio: '1:1' })), /16:9, 9:16/);
  assert.match(refusal(routes, reference({ ...eight, endFrame: END })), /no start or end frame/);
  assert.match(refusal(routes, reference({ ...eight, prompt: '@Element2 runs' })), /names @Element2/);
});

test('Kling O3 takes shots as multi_prompt, each in its numbering and length, the video their sum', () => {
  const routes = routesOf(media.reference_video, 'kling-o3-reference');
  const shots = [
    { prompt: '@Element1 opens the door', durationSeconds: 3 },
    { prompt: 'close-up: @Element1 picks up @Element2', durationSeconds: 4 },
    { prompt: 'wide shot of @Image1 at sunset', durationSeconds: 5 },
  ];
  const request = reference({
    prompt: shots.map((s) => s.prompt).join(' '),
    shots,
    elements: [
      { frontal: FACE, references: [] },
      { frontal: PRODUCT, references: [PRODUCT_SIDE, PRODUCT_BACK] },
    ],
    images: [SCENE],
    startFrame: START,
    endFrame: END,
    durationSeconds: 12,
    audio: true,
  });
  const { input } = inputOf(routes, request);
  assert.deepEqual(input.multi_prompt, [
    { prompt: '@Element1 opens the door', duration: '3' },
    { prompt: 'close-up: @Element1 picks up @Element2', duration: '4' },
    { prompt: 'wide shot of @Image1 at sunset', duration: '5' },
  ]);
  assert.equal(input.shot_type, 'customize', 'our shots as given, not cut by the model');
  assert.equal('prompt' in input, false, 'a prompt or shots, not both');
  assert.deepEqual(
    [input.duration, input.start_image_url, input.end_image_url, input.generate_audio],
    ['12', START, END, true],
  );

  const seven = Array.from({ length: 7 }, () => ({ prompt: '@Element1 turns', durationSeconds: 2 }));
  assert.match(refusal(routes, { ...request, shots: seven, durationSeconds: 14 }), /at most 6 shots/);
  assert.match(refusal(routes, { ...request, durationSeconds: 10 }), /shots of 12 s for a 10 s video/);
  assert.match(
    refusal(routes, { ...request, shots: [...shots.slice(0, 2), { prompt: '@Element9 waves', durationSeconds: 5 }] }),
    /names @Element9/,
  );
  // Elements, images and frames count together.
  const crowd = Array.from({ length: 6 }, () => ({ frontal: FACE, references: [] }));
  assert.match(
    refusal(routes, { ...request, elements: crowd }),
    /at most 7 elements, images and frames in all \(asked: 9\)/,
  );
  assert.match(
    refusal(routes, { ...request, elements: [{ frontal: PRODUCT, references: [FACE, FACE, FACE, FACE] }] }),
    /at most 3 other views/,
  );
  assert.match(refusal(routes, { ...request, aspectRatio: '4:3' }), /16:9, 9:16, 1:1/);
  // 720p on the pro route: the pro tier, which takes no resolution.
  assert.equal(inputOf(routes, { ...request, resolution: '720p' }).input.resolution, undefined);
});

test('Kling O1: references on its reference endpoint, frames on its image-to-video one, one silent shot', () => {
  const routes = routesOf(media.reference_video, 'kling-o1-reference');
  const frames = inputOf(
    routes,
    reference({ elements: [], prompt: 'the door swings open', startFrame: START, endFrame: END, durationSeconds: 10 }),
  );
  assert.equal(frames.endpoint, 'fal-ai/kling-video/o1/image-to-video');
  assert.deepEqual(frames.input, {
    prompt: 'the door swings open',
    start_image_url: START,
    end_image_url: END,
    duration: '10',
  });
  assert.match(refusal(routes, reference({ startFrame: START })), /no elements or images alongside a start frame/);
  assert.match(refusal(routes, reference({ endFrame: END })), /takes no end frame/);
  assert.match(refusal(routes, reference({ audio: true })), /makes silent videos/);
  assert.match(refusal(routes, reference({ durationSeconds: 12 })), /3-10 s/);
  assert.match(
    refusal(
      routes,
      reference({
        shots: [
          { prompt: '@Element1 waves', durationSeconds: 3 },
          { prompt: '@Element1 bows', durationSeconds: 2 },
        ],
      }),
    ),
    /no multi-shot/,
  );
  const eight = Array.from({ length: 5 }, () => ({ frontal: FACE, references: [] }));
  assert.match(
    refusal(routes, reference({ elements: eight, images: [SCENE, STYLE, SCENE] })),
    /at most 7 elements, images and frames in all \(asked: 8\)/,
  );
  assert.match(refusal(routes, reference({ elements: [], prompt: 'a beach' })), /needs an element/);
});

test('talking heads send the portrait and the speech by each endpoint’s names', () => {
  const route = (id: string) => routesOf(media.talking_head, id);
  for (const id of ['kling-avatar-v2-standard', 'kling-avatar-v2-pro']) {
    assert.deepEqual(inputOf(route(id), talkingHead()).input, { image_url: PORTRAIT, audio_url: AUDIO });
    const directed = inputOf(route(id), talkingHead({ prompt: 'slow push-in' })).input;
    assert.equal(directed.prompt, 'slow push-in');
  }
  assert.deepEqual(inputOf(route('omnihuman-1.5'), talkingHead({ resolution: '1080p' })).input, {
    image_url: PORTRAIT,
    audio_url: AUDIO,
    resolution: '1080p',
  });
  // InfiniTalk: the length as 4k+1 frames at 25 fps, and "." for the prompt it requires.
  assert.deepEqual(inputOf(route('infinitalk'), talkingHead({ resolution: '480p' })).input, {
    image_url: PORTRAIT,
    audio_url: AUDIO,
    prompt: '.',
    num_frames: 253,
    resolution: '480p',
  });
  assert.equal(inputOf(route('infinitalk'), talkingHead({ durationSeconds: 20 })).input.num_frames, 501);
  assert.match(refusal(route('infinitalk'), talkingHead({ durationSeconds: 30 })), /41-721 frames/);
  assert.deepEqual(inputOf(route('sadtalker'), talkingHead({ resolution: '480p' })).input, {
    source_image_url: PORTRAIT,
    driven_audio_url: AUDIO,
    preprocess: 'full',
    still_mode: true,
  });
  assert.deepEqual(inputOf(route('veed-fabric-1.0'), talkingHead({ script: SCRIPT })).input, {
    image_url: PORTRAIT,
    audio_url: AUDIO,
    resolution: '720p',
  });
  assert.deepEqual(
    inputOf(route('veed-fabric-1.0-text'), talkingHead({ audioUrl: '', script: SCRIPT, resolution: '480p' })).input,
    { image_url: PORTRAIT, text: SCRIPT, resolution: '480p' },
  );
  assert.match(refusal(route('veed-fabric-1.0-text'), talkingHead({ audioUrl: '' })), /none was given/);
  assert.match(refusal(route('veed-fabric-1.0-text'), talkingHead({ script: SCRIPT })), /takes no audio track/);
  assert.match(refusal(route('sadtalker'), talkingHead({ prompt: 'nod' })), /takes no prompt/);
  assert.match(refusal(route('veed-fabric-1.0'), talkingHead({ prompt: 'nod' })), /takes no prompt/);
  assert.match(refusal(route('omnihuman-1.5'), talkingHead({ audioUrl: '' })), /audio track/);
  // Sheet-based models are not mapped: the simulator serves them.
  for (const model of media.talking_head.filter((m) => m.sheet_based)) {
    assert.equal(registry.candidates(model.routes, talkingHead()).length, 0, model.id);
  }
});
