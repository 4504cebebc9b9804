// Every Replicate route of the video catalog, checked against the input schema its model publishes
// (test/fixtures/replicate/input-schemas.json; where each came from: the README.md beside it): for
// every duration and aspect ratio a model offers (and both qualities of the provider family), from
// text and from a first frame where it takes one, the input the registry would send must be valid:
// no unknown field, every required one, values from the model's lists. Then field by field for a
// few models, and what each refuses.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadMediaCatalog, type VideoModel } from '../src/catalog/media-models.ts';
import type { ModelRoute } from '../src/catalog/models.ts';
import { loadConfig } from '../src/config.ts';
import { WorkError } from '../src/lib/errors.ts';
import { createProviderRegistry } from '../src/providers/registry.ts';
import type { VideoRequest } from '../src/providers/types.ts';
import { errorsText, replicateValidatorOf } from './vendor-schemas.ts';

const noNetwork = () => Promise.reject(new Error('no network in this test'));
const FAL = { FAL_KEY: 'test-key', FAL_QUEUE_URL: 'http://127.0.0.1:9', FAL_JWKS_URL: 'http://127.0.0.1:9/jwks' };
const REPLICATE = { REPLICATE_API_TOKEN: 'r8_test', REPLICATE_BASE_URL: 'http://127.0.0.1:9' };
/** Replicate configured alone: its routes are the ones picked. */
const replicateOnly = createProviderRegistry(loadConfig(REPLICATE).providers, noNetwork);
const both = createProviderRegistry(loadConfig({ ...FAL, ...REPLICATE }).providers, noNetwork);

const media = loadMediaCatalog();
const IMAGE = 'https://cdn.example.com/first.png';
const LAST = 'https://cdn.example.com/last.png';
const replicateRoutes = (model: VideoModel): ModelRoute[] => model.routes.filter((r) => r.provider === 'replicate');
const served = media.video.filter((m) => replicateRoutes(m).length > 0);

function video(overrides: Partial<VideoRequest> = {}): VideoRequest {
  return {
    kind: 'video',
    prompt: 'a lighthouse at dusk, waves rolling in',
    negativePrompt: null,
    aspectRatio: '16:9',
    durationSeconds: 5,
    resolution: '720p',
    fps: 24,
    seed: 7,
    firstFrame: null,
    lastFrame: null,
    audio: false,
    loras: [],
    ...overrides,
  };
}

/** The request videos/generate makes for a model (its own resolution, fps and audio), with `overrides`. */
function requestFor(model: VideoModel, overrides: Partial<VideoRequest> = {}): VideoRequest {
  return video({
    durationSeconds: model.settings.default_duration,
    aspectRatio: model.settings.aspect_ratios[0] ?? '16:9',
    resolution: model.settings.resolution,
    fps: model.settings.fps,
    audio: model.capabilities.native_audio,
    ...overrides,
  });
}

/** What a model's catalog entry lets a user ask for, that its Replicate route must take. */
interface Case {
  label: string;
  model: VideoModel;
  request: VideoRequest;
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const model of served) {
    const { settings, capabilities } = model;
    // The provider family's quality picks its resolution.
    const resolutions = model.provider_family ? ['720p', '1080p'] : [settings.resolution];
    for (const resolution of resolutions) {
      for (const duration of settings.durations) {
        for (const ratio of settings.aspect_ratios) {
          const request = requestFor(model, { aspectRatio: ratio, durationSeconds: duration, resolution });
          const label = `${model.id} ${resolution} ${duration}s ${ratio}`;
          if (capabilities.text_to_video) out.push({ label, model, request });
          if (capabilities.image_to_video) {
            out.push({ label: `${label} +frame`, model, request: { ...request, firstFrame: IMAGE } });
          }
        }
      }
    }
  }
  return out;
}

// What a model's entry offers and its Replicate model cannot take: the request is refused with the
// reason (invalid_input, refunded), never sent without it. Adding to this list is a decision.
const KNOWN_GAPS: string[] = [];

test('at least six catalog video models have a Replicate route behind their fal route', () => {
  assert.ok(served.length >= 6, `${served.length} models`);
  for (const model of served) {
    const last = model.routes.findLastIndex((r) => r.provider === 'fal');
    const first = model.routes.findIndex((r) => r.provider === 'replicate');
    assert.ok(last >= 0 && first > last, `${model.id}: the Replicate route comes after fal's`);
  }
});

test('every request a video model allows maps to a valid input of its Replicate model', () => {
  const gaps = new Set<string>();
  let checked = 0;
  for (const c of cases()) {
    const picked = replicateOnly.candidates(c.model.routes, c.request);
    assert.equal(picked.length, 1, `${c.label}: the Replicate route is picked`);
    for (const route of picked) {
      let input: Record<string, unknown>;
      try {
        input = route.map(c.request);
      } catch (err) {
        assert.ok(err instanceof WorkError && err.kind === 'invalid_input', `${c.label}: ${String(err)}`);
        gaps.add(c.label.replace(/ \d+s /, ' '));
        continue;
      }
      const validate = replicateValidatorOf(route.route.endpoint);
      assert.ok(
        validate(input),
        `${c.label} → ${route.route.endpoint}: ${errorsText(validate)}\n${JSON.stringify(input)}`,
      );
      assert.equal(input.prompt, c.request.prompt, c.label);
      // The length is sent as asked (duration, or Sora's seconds), never rounded to another.
      assert.equal(input.duration ?? input.seconds, c.request.durationSeconds, c.label);
      if (c.request.firstFrame) assert.ok(Object.values(input).includes(IMAGE), `${c.label}: the first frame is sent`);
      checked += 1;
    }
  }
  assert.ok(checked >= 150, `${checked} inputs checked`);
  assert.deepEqual([...gaps].sort(), KNOWN_GAPS);
});

test('the fal route still serves first where it is mapped; Replicate serves when fal cannot', () => {
  for (const model of served) {
    const request = requestFor(model, model.capabilities.text_to_video ? {} : { firstFrame: IMAGE });
    const routes = both.candidates(model.routes, request).map((p) => p.route.provider);
    const falMapped = model.routes.some((r) => r.provider === 'fal' && r.mapping);
    assert.deepEqual(routes, falMapped ? ['fal', 'replicate'] : ['replicate'], model.id);
  }
  // The provider family keeps the routes of the provider asked for (settings.provider: 'replicate').
  const sora = media.video.find((m) => m.id === 'sora-2');
  assert.ok(sora?.provider_family);
  const asked = sora.routes.filter((r) => r.provider === 'replicate');
  assert.deepEqual(
    both.candidates(asked, requestFor(sora)).map((p) => p.route.endpoint),
    ['openai/sora-2'],
  );
});

/** The input a catalog model's Replicate route sends for a request, checked against its schema. */
function inputFor(id: string, overrides: Partial<VideoRequest> = {}): Record<string, unknown> {
  const model = media.video.find((m) => m.id === id);
  assert.ok(model, `${id} is a catalog video model`);
  const [picked] = replicateOnly.candidates(model.routes, requestFor(model, overrides));
  assert.ok(picked, `${id} has a Replicate route`);
  const input = picked.map(requestFor(model, overrides));
  const validate = replicateValidatorOf(picked.route.endpoint);
  assert.ok(validate(input), `${id}: ${errorsText(validate)}\n${JSON.stringify(input)}`);
  return input;
}

const refusal = (fn: () => unknown, reason: RegExp): void => {
  assert.throws(
    fn,
    (err) => err instanceof WorkError && err.kind === 'invalid_input' && !err.retryable && reason.test(err.message),
  );
};

test('Veo 3.1 takes the frames, negative prompt, seed, audio and resolution by their Replicate names', () => {
  const input = inputFor('veo-3.1', {
    aspectRatio: '9:16',
    durationSeconds: 6,
    firstFrame: IMAGE,
    lastFrame: LAST,
    negativePrompt: 'blurry',
    seed: 42,
  });
  assert.deepEqual(input, {
    prompt: 'a lighthouse at dusk, waves rolling in',
    duration: 6,
    image: IMAGE,
    aspect_ratio: '9:16',
    resolution: '1080p',
    last_frame: LAST,
    generate_audio: true,
    negative_prompt: 'blurry',
    seed: 42,
  });
  assert.equal(inputFor('veo-3', { resolution: '2160p' }).resolution, '1080p', 'the nearest resolution it makes');
  assert.equal(inputFor('veo-3-fast', { audio: false }).generate_audio, false);
  refusal(() => inputFor('veo-3', { lastFrame: LAST, firstFrame: IMAGE }), /veo-3 on Replicate takes no last frame/);
  refusal(() => inputFor('veo-3.1', { lastFrame: LAST }), /only after a first frame/);
  refusal(() => inputFor('veo-3.1', { durationSeconds: 5 }), /makes videos of 4, 6, 8 s/);
  refusal(() => inputFor('veo-3.1', { aspectRatio: '1:1' }), /makes videos of 16:9, 9:16/);
});

test('Veo 2 is silent and takes no negative prompt', () => {
  assert.deepEqual(inputFor('veo-2', { durationSeconds: 7, seed: 3 }), {
    prompt: 'a lighthouse at dusk, waves rolling in',
    duration: 7,
    aspect_ratio: '16:9',
    seed: 3,
  });
  refusal(() => inputFor('veo-2', { audio: true }), /makes silent videos/);
  refusal(() => inputFor('veo-2', { negativePrompt: 'blurry' }), /takes no negative prompt/);
});

test('Kling models take a start image, a negative prompt, and the end image only where they can', () => {
  assert.deepEqual(inputFor('kling-2.5-turbo-pro', { aspectRatio: '1:1', durationSeconds: 10 }), {
    prompt: 'a lighthouse at dusk, waves rolling in',
    duration: 10,
    aspect_ratio: '1:1',
  });
  const master = inputFor('kling-2.1-master', { firstFrame: IMAGE, negativePrompt: 'blurry' });
  assert.deepEqual([master.start_image, master.negative_prompt, master.seed], [IMAGE, 'blurry', undefined]);
  refusal(() => inputFor('kling-2.5-turbo-pro', { firstFrame: IMAGE, lastFrame: LAST }), /takes no last frame/);
  assert.equal(inputFor('kling-1.6-pro', { firstFrame: IMAGE, lastFrame: LAST }).end_image, LAST);
  refusal(() => inputFor('kling-1.6-pro', { durationSeconds: 8 }), /makes videos of 5, 10 s/);
  refusal(() => inputFor('kling-1.6-pro', { aspectRatio: '4:3' }), /makes videos of 16:9, 9:16, 1:1/);
});

test('Kling 2.1 Standard needs its start image, picks its mode by resolution, and takes an end image in pro only', () => {
  assert.deepEqual(inputFor('kling-2.1-standard', { firstFrame: IMAGE }), {
    prompt: 'a lighthouse at dusk, waves rolling in',
    duration: 5,
    start_image: IMAGE,
    mode: 'standard',
  });
  refusal(() => inputFor('kling-2.1-standard'), /kling-v2.1 on Replicate needs a first frame/);
  refusal(() => inputFor('kling-2.1-standard', { firstFrame: IMAGE, lastFrame: LAST }), /only with mode pro/);
  const pro = inputFor('kling-2.1-standard', { firstFrame: IMAGE, lastFrame: LAST, resolution: '1080p' });
  assert.deepEqual([pro.mode, pro.end_image], ['pro', LAST]);
});

test('Sora 2 names its shapes, takes seconds and a reference frame, and always has sound', () => {
  assert.deepEqual(inputFor('sora-2', { aspectRatio: '9:16', durationSeconds: 12, firstFrame: IMAGE }), {
    prompt: 'a lighthouse at dusk, waves rolling in',
    seconds: 12,
    input_reference: IMAGE,
    aspect_ratio: 'portrait',
  });
  assert.equal(inputFor('sora-2', { resolution: '1080p' }).resolution, undefined, 'sora-2 makes 720p only');
  assert.equal(inputFor('sora-2-pro', { resolution: '1080p' }).resolution, 'high');
  assert.equal(inputFor('sora-2-pro', { resolution: '720p' }).aspect_ratio, 'landscape');
  assert.equal(inputFor('sora-2-pro', { resolution: '720p' }).resolution, 'standard');
  refusal(() => inputFor('sora-2', { audio: false }), /always makes a soundtrack/);
  refusal(() => inputFor('sora-2', { aspectRatio: '1:1' }), /makes videos of 16:9, 9:16/);
  refusal(() => inputFor('sora-2-pro', { durationSeconds: 10 }), /makes videos of 4, 8, 12 s/);
});

test('Seedance 1.0 Lite takes its ratio, resolution, seed, 24 fps and a last frame after the first', () => {
  assert.deepEqual(
    inputFor('seedance-1.0-lite', { aspectRatio: '4:3', durationSeconds: 10, firstFrame: IMAGE, lastFrame: LAST }),
    {
      prompt: 'a lighthouse at dusk, waves rolling in',
      duration: 10,
      image: IMAGE,
      aspect_ratio: '4:3',
      resolution: '720p',
      last_frame_image: LAST,
      seed: 7,
      fps: 24,
    },
  );
  assert.equal(inputFor('seedance-1.0-lite', { resolution: '1440p' }).resolution, '1080p');
  refusal(() => inputFor('seedance-1.0-lite', { lastFrame: LAST }), /only after a first frame/);
  refusal(() => inputFor('seedance-1.0-lite', { fps: 30 }), /makes 24 frames per second/);
  refusal(() => inputFor('seedance-1.0-lite', { durationSeconds: 15 }), /makes videos of 2, 3, .*12 s/);
});

test('what the LoRA video endpoint passes on is refused by every Replicate video model', () => {
  for (const model of served) {
    const base = model.capabilities.text_to_video ? {} : { firstFrame: IMAGE };
    const lora = { url: 'https://cdn.example.com/motion.safetensors', scale: 1, transformer: 'high' } as const;
    refusal(() => inputFor(model.id, { ...base, loras: [lora] }), /takes no LoRA/);
    refusal(() => inputFor(model.id, { ...base, frames: 81 }), /not a frame count/);
    refusal(() => inputFor(model.id, { ...base, steps: 30 }), /takes no step count/);
    refusal(() => inputFor(model.id, { ...base, guidanceScale: 5 }), /takes no guidance scale/);
    refusal(() => inputFor(model.id, { ...base, promptExpansion: true }), /does not expand prompts/);
    assert.ok(inputFor(model.id, { ...base, promptExpansion: false }), `${model.id}: no expansion is already met`);
  }
});
