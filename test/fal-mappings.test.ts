// Every fal route of the image catalogs, checked against the input schema fal publishes for its
// endpoint (test/fixtures/fal/input-schemas.json, from fal's own client; see its `source`): for
// every aspect ratio a model offers, with and without input images and LoRAs as the model allows,
// the input we would send must be valid: no unknown field, every required one, values in range.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dimensionsFor } from '../src/catalog/image-sizes.ts';
import { loadModelCatalog, type ModelRoute } from '../src/catalog/models.ts';
import { INFLUENCER_MODEL_ROUTES } from '../src/catalog/routes.ts';
import { WorkError } from '../src/lib/errors.ts';
import type { ImageRequest } from '../src/providers/types.ts';
import { errorsText, falFixture, falValidatorOf, offlineRegistry } from './vendor-schemas.ts';

const registry = offlineRegistry({ replicate: false });

const catalog = loadModelCatalog();
const IMAGE = 'https://cdn.example.com/in.png';
const LORA = { url: 'https://cdn.example.com/style.safetensors', type: 'flux-1-dev' };

/** What a model's catalog entry lets a user ask for, that its fal route must take. */
interface Case {
  label: string;
  routes: readonly ModelRoute[];
  request: ImageRequest;
}

function cases(): Case[] {
  const out: Case[] = [];
  const base = (aspectRatio: string, size: ImageRequest['size']): ImageRequest => ({
    kind: 'image',
    prompt: 'a lighthouse at dusk',
    negativePrompt: 'blurry',
    size,
    aspectRatio,
    steps: 28,
    seed: 7,
    references: [],
    lora: null,
  });
  for (const kind of ['image', 'face'] as const) {
    for (const model of catalog[kind]) {
      for (const ratio of model.settings.aspect_ratios) {
        const request = base(ratio, dimensionsFor(ratio));
        const label = `${kind} ${model.id} ${ratio}`;
        out.push({ label, routes: model.routes, request });
        const max = model.capabilities.max_reference_images;
        if (model.capabilities.image_to_image && max > 0) {
          out.push({
            label: `${label} +images`,
            routes: model.routes,
            request: { ...request, references: Array(max).fill(IMAGE) },
          });
        }
        if (model.capabilities.supports_lora) {
          out.push({ label: `${label} +lora`, routes: model.routes, request: { ...request, lora: LORA } });
        }
      }
    }
  }
  for (const model of catalog.edit) {
    for (const ratio of model.settings.aspect_ratios) {
      const size = model.capabilities.custom_dimensions ? dimensionsFor(ratio) : null;
      const references = Array(Math.max(1, model.capabilities.max_reference_images)).fill(IMAGE);
      out.push({
        label: `edit ${model.id} ${ratio}`,
        routes: model.routes,
        request: { ...base(ratio, size), references },
      });
    }
  }
  for (const ratio of ['1:1', '16:9', '9:16']) {
    out.push({
      label: `influencer ${ratio}`,
      routes: INFLUENCER_MODEL_ROUTES.routes,
      request: { ...base(ratio, dimensionsFor(ratio)), references: [IMAGE, IMAGE] },
    });
  }
  return out;
}

// What a model's entry offers and its fal route cannot take: the request is refused with the
// reason (invalid_input, refunded), never sent without it. Adding to this list is a decision.
const KNOWN_GAPS = ['image flux-1-schnell +lora'];

test('every fal route names an endpoint fal publishes, and a mapping we have', () => {
  const routes = [
    ...[...catalog.image, ...catalog.edit, ...catalog.face].flatMap((m) => m.routes),
    ...INFLUENCER_MODEL_ROUTES.routes,
  ].filter((r) => r.provider === 'fal' && r.mapping);
  assert.ok(routes.length >= 54, `${routes.length} mapped fal routes`);
  for (const route of routes) {
    falValidatorOf(route.endpoint);
    if (route.image_endpoint) falValidatorOf(route.image_endpoint);
    assert.equal(registry.candidates([route]).length, 1, `${route.endpoint}: mapping ${route.mapping} exists`);
  }
  assert.match(falFixture.source.repository, /fal-ai\/fal-js/);
});

test('every request a model allows maps to a valid input of its fal endpoint', () => {
  const gaps: string[] = [];
  let checked = 0;
  for (const c of cases()) {
    for (const picked of registry.candidates(c.routes, c.request)) {
      let input: Record<string, unknown>;
      try {
        input = picked.map(c.request);
      } catch (err) {
        assert.ok(err instanceof WorkError && err.kind === 'invalid_input', `${c.label}: ${String(err)}`);
        gaps.push(c.label.replace(/ \d+:\d+/, ''));
        continue;
      }
      const validate = falValidatorOf(picked.route.endpoint);
      assert.ok(
        validate(input),
        `${c.label} → ${picked.route.endpoint}: ${errorsText(validate)}\n${JSON.stringify(input)}`,
      );
      assert.equal(input.prompt ?? input.instruction, c.request.prompt);
      checked += 1;
    }
  }
  assert.ok(checked > 500, `${checked} inputs checked`);
  assert.deepEqual([...new Set(gaps)].sort(), KNOWN_GAPS);
});

test('the shape asked for reaches the vendor: a size, or the nearest ratio it offers', () => {
  const [ultra] = registry.candidates(catalog.find('image', 'flux-1.1-pro-ultra')?.routes ?? []);
  assert.equal(ultra?.map({ ...sample(), aspectRatio: '16:9' }).aspect_ratio, '16:9');
  const [luma] = registry.candidates(catalog.find('image', 'luma-photon')?.routes ?? []);
  assert.equal(luma?.map({ ...sample(), aspectRatio: '3:2' }).aspect_ratio, '4:3', 'the nearest luma offers');
  const [dev] = registry.candidates(catalog.find('image', 'flux-1-dev')?.routes ?? []);
  assert.deepEqual(dev?.map(sample()).image_size, { width: 1024, height: 1024 });
  const [i2i] = registry.candidates(catalog.find('image', 'flux-1-dev')?.routes ?? [], {
    ...sample(),
    references: [IMAGE],
  });
  assert.equal(i2i?.route.endpoint, 'fal-ai/flux-lora/image-to-image');
  assert.equal(i2i?.map({ ...sample(), references: [IMAGE] }).image_url, IMAGE);
  const [raw] = registry.candidates(catalog.find('face', 'flux-1.1-pro-ultra-raw')?.routes ?? []);
  assert.equal(raw?.map(sample()).raw, true, 'a route’s fixed params are sent');
  const [lightning] = registry.candidates(catalog.find('image', 'sdxl-lightning')?.routes ?? []);
  assert.equal(lightning?.map({ ...sample(), steps: 6 }).num_inference_steps, '4');
});

function sample(): ImageRequest {
  return {
    kind: 'image',
    prompt: 'p',
    negativePrompt: null,
    size: { width: 1024, height: 1024 },
    aspectRatio: '1:1',
    steps: 28,
    seed: 1,
    references: [],
    lora: null,
  };
}
